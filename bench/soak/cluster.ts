/**
 * The soak's own services and the service's processes: a private PostgreSQL cluster and a private redis-server (the
 * shared ones on 5432 and 6379 are never restarted nor killed), two API processes and two workers. Each of them can be
 * killed and started again on demand (the faults), and all of it is stopped and removed at the end, on Ctrl-C too.
 */
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { chownSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../../test/support/ports.js';
import { redisAnswers } from '../../test/support/redis.js';
import { onInterrupt } from '../support/cleanup.js';

export interface SoakCluster {
  /** postgres://postgres@127.0.0.1:<port>/soak (the private cluster, trust auth). */
  databaseUrl: string;
  /** redis://127.0.0.1:<port> (the private redis-server). */
  redisUrl: string;
  /** The API processes, http://127.0.0.1:<port> each. */
  apiUrls: string[];
  adminToken: string;
  /** The env the service's processes run with (workers get LOG_LEVEL=info on top: they say `worker ready` at info). */
  env: NodeJS.ProcessEnv;
  /** SIGKILL of API process i; started again after `downMs` on the same port; resolves when it answers /health/ready again. */
  killApi(i: number, downMs: number): Promise<void>;
  /** SIGKILL of worker process i; started again after `downMs`; resolves once its log says `worker ready`. */
  killWorker(i: number, downMs: number): Promise<void>;
  /** redis-server SIGKILLed (data lost: --save "" --appendonly no), started again after downMs on the same port. */
  restartRedis(downMs: number): Promise<void>;
  /** pg_terminate_backend of every connection to the soak database but the caller's and the soak's own; answers how many. */
  terminateConnections(): Promise<number>;
  /** PostgreSQL stopped (`pg_ctl stop -m immediate`: a crash) and started again after downMs. */
  restartPostgres(downMs: number): Promise<void>;
  /** Resident memory (kB, from /proc/<pid>/status VmRSS) of each process by name: api-0, api-1, worker-0, worker-1. */
  memory(): Record<string, number>;
  /** The last lines (at most 200) each process wrote on stderr, and its stdout lines at level warn or worse, by name. */
  logs(): Record<string, string[]>;
  /** How many times each process exited by itself (not killed by the soak) and was started again, by name. */
  selfExits(): Record<string, number>;
  /** Every process and service stopped, the private data directories removed. Idempotent; also on SIGINT. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  apiCount?: number;
  workerCount?: number;
  /** Added last to the processes' env (overrides the soak's defaults). */
  env?: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

/** The project root (this file runs as dist/bench/soak/cluster.js): the service's processes run from there. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PG_BIN = process.env.SOAK_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const ADMIN_TOKEN = 'soak-admin-token-0123456789';
const READY_TIMEOUT_MS = 90_000;
const TAIL_LINES = 200;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startCluster(options: ClusterOptions): Promise<SoakCluster> {
  const { log } = options;
  const dir = mkdtempSync('/tmp/soak-');
  chmodSync(dir, 0o755); // the postgres OS user goes through it to its own directories
  const pgServer = new PrivatePostgres(dir);
  const redis = new PrivateRedis(dir);
  const managed: Managed[] = [];
  let stopped: Promise<void> | undefined;
  // Idempotent: the processes first (they would log every lost connection), then the services, then the files.
  const stop = () =>
    (stopped ??= (async () => {
      await Promise.all(managed.map((m) => m.stop()));
      await redis.stop();
      await pgServer.stop();
      rmSync(dir, { recursive: true, force: true });
      forget();
      process.removeListener('exit', lastResort);
    })());
  const forget = onInterrupt(stop);
  // Should the soak end without stop() (an uncaught error), nothing it started may outlive it.
  const lastResort = () => {
    for (const m of managed) m.child?.kill('SIGKILL');
    redis.child?.kill('SIGKILL');
    pgServer.stopNow();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', lastResort);
  try {
    await Promise.all([pgServer.start(), redis.start()]);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: pgServer.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: 'soak',
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '10000000',
      SWEEP_AFTER_SECONDS: '5',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', // the receiver listens on 127.0.0.1
      API_PROCESSES: '1', // each API process is one of ours, on its own port: no node:cluster forks under it
      STORAGE_DIR: join(dir, 'storage'),
      EXTENSIONS: '',
      ...options.env,
    };
    delete env.NODE_OPTIONS;
    delete env.PORT;
    await migrate(env);
    const ports = await Promise.all(Array.from({ length: options.apiCount ?? 2 }, () => freePort()));
    ports.forEach((port, i) => managed.push(new Managed(`api-${i}`, 'dist/src/main.js', { ...env, PORT: String(port) }, `http://127.0.0.1:${port}`, log)));
    for (let i = 0; i < (options.workerCount ?? 2); i += 1) managed.push(new Managed(`worker-${i}`, 'dist/src/worker.js', { ...env, LOG_LEVEL: 'info' }, null, log));
    await Promise.all(managed.map((m) => m.start()));
    log(`cluster: PostgreSQL ${pgServer.url}, Redis ${redis.url}, ${ports.length} API processes, ${managed.length - ports.length} workers, files in ${dir}`);
    const apis = managed.filter((m) => m.url);
    const workers = managed.filter((m) => !m.url);
    return {
      databaseUrl: pgServer.url,
      redisUrl: redis.url,
      apiUrls: apis.map((m) => m.url!),
      adminToken: ADMIN_TOKEN,
      env,
      killApi: (i, downMs) => at(apis, i, 'API process').kill(downMs),
      killWorker: (i, downMs) => at(workers, i, 'worker').kill(downMs),
      restartRedis: (downMs) => redis.restart(downMs),
      terminateConnections: () => terminateConnections(pgServer.url),
      restartPostgres: (downMs) => pgServer.restart(downMs),
      memory: () => Object.fromEntries(managed.map((m) => [m.name, m.rss()])),
      logs: () => Object.fromEntries(managed.map((m) => [m.name, [...m.tail]])),
      selfExits: () => Object.fromEntries(managed.map((m) => [m.name, m.selfExits])),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function at(list: Managed[], i: number, what: string): Managed {
  const m = list[i];
  if (!m) throw new Error(`no ${what} ${i} (there are ${list.length})`);
  return m;
}

/** `node dist/src/cli.js migrate` on the private cluster (it creates the database first). */
async function migrate(env: NodeJS.ProcessEnv): Promise<void> {
  const result = await run(process.execPath, ['dist/src/cli.js', 'migrate'], { env, cwd: ROOT });
  if (result.code !== 0) throw new Error(`migrations failed (${result.code}): ${result.stderr || result.stdout}`);
}

/**
 * One of the service's processes (an API or a worker), kept running: a process that exits without the soak having
 * killed it is logged and started again. Its stderr lines, and its stdout lines at level warn or worse, are kept
 * (the last 200) for the report.
 */
class Managed {
  child: ChildProcess | null = null;
  readonly tail: string[] = [];
  selfExits = 0;
  /** Set while the soak itself has it down (a fault, the stop): its exit is no crash and starts nothing. */
  private held = false;
  private sawReady = false;
  private exited: Promise<void> = Promise.resolve();
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly name: string,
    private readonly script: string,
    private readonly env: NodeJS.ProcessEnv,
    /** The API's URL; null for a worker. */
    readonly url: string | null,
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {
    this.launch();
    await this.waitReady();
  }

  /** SIGKILL, `downMs` without it, then started again; resolves when it is ready. */
  async kill(downMs: number): Promise<void> {
    this.held = true;
    clearTimeout(this.restartTimer);
    this.child?.kill('SIGKILL');
    await this.exited;
    await sleep(downMs);
    this.held = false;
    if (!this.child) this.launch();
    await this.waitReady();
  }

  /** SIGTERM (a worker finishes its jobs in flight), SIGKILL after 15 s; nothing is started again. */
  async stop(): Promise<void> {
    this.held = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }

  /** VmRSS in kB; 0 while the process is down. */
  rss(): number {
    const pid = this.child?.pid;
    if (!pid) return 0;
    try {
      const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return match ? Number(match[1]) : 0;
    } catch {
      return 0;
    }
  }

  private launch(): void {
    const child = spawn(process.execPath, [this.script], { cwd: ROOT, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.sawReady = false;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(this.onExit(child, code, signal))));
    lines(child.stdout!, (line) => this.onStdout(line));
    lines(child.stderr!, (line) => this.keep(line));
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child === child) this.child = null;
    if (this.held) return;
    this.selfExits += 1;
    this.log(`${this.name} (pid ${child.pid}) exited by itself (code ${code}, signal ${signal}); starting it again in 1 s`);
    // A second apart: a process that cannot start (PostgreSQL down) is not started in a tight loop.
    this.restartTimer = setTimeout(() => {
      if (this.held || this.child) return;
      this.launch();
      this.waitReady().then(
        () => this.log(`${this.name} is back (pid ${this.child?.pid})`),
        (error: Error) => this.log(`${this.name}: ${error.message}`),
      );
    }, 1000);
  }

  private onStdout(line: string): void {
    if (!this.sawReady && line.includes('"msg":"worker ready"')) this.sawReady = true;
    if (/"level":"(warn|error|fatal)"/.test(line)) this.keep(line);
  }

  private keep(line: string): void {
    this.tail.push(`${new Date().toISOString()} ${line}`);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
  }

  /** An API answers /health/ready with 200; a worker has logged `worker ready`. Whichever process runs under the name. */
  private async waitReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await this.isReady())) {
      if (this.held) throw new Error(`${this.name} was stopped before it was ready`);
      if (Date.now() > deadline) throw new Error(`${this.name} not ready after ${READY_TIMEOUT_MS / 1000} s`);
      await sleep(100);
    }
  }

  private async isReady(): Promise<boolean> {
    if (!this.child) return false;
    if (!this.url) return this.sawReady;
    return fetch(`${this.url}/health/ready`, { signal: AbortSignal.timeout(2000) }).then(
      (res) => res.ok,
      () => false,
    );
  }
}

/** Calls `onLine` with each complete line of the stream. */
function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) if (line.trim()) onLine(line);
  });
}

/**
 * A PostgreSQL cluster of the soak's own in `<dir>/pg`, on a free port, trust authentication, durability off (an
 * immediate stop is a crash of the server process, not of the machine: nothing written is lost). As root its
 * binaries run as the `postgres` OS user (PostgreSQL refuses root).
 */
class PrivatePostgres {
  url = '';
  private port = 0;
  private readonly data: string;
  private readonly run: string;

  constructor(dir: string) {
    this.data = join(dir, 'pg');
    this.run = join(dir, 'pg-run');
  }

  async start(): Promise<void> {
    this.port = await freePort();
    this.url = `postgres://postgres@127.0.0.1:${this.port}/soak`;
    for (const path of [this.data, this.run]) {
      mkdirSync(path, { mode: 0o700 });
      const owner = postgresUser();
      if (owner) chownSync(path, owner.uid, owner.gid);
    }
    await pgBin('initdb', ['-D', this.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await this.up();
  }

  /** pg_ctl start, waiting until it accepts connections (crash recovery included after an immediate stop). */
  async up(): Promise<void> {
    const settings = [
      `-p ${this.port}`,
      `-k ${this.run}`,
      '-c listen_addresses=127.0.0.1',
      '-c max_connections=200',
      '-c shared_buffers=128MB',
      // The faults crash the server's processes, never the machine: what was written to the OS survives them, so
      // fsync and full-page writes can be spared. Commits must still reach the WAL before they are answered
      // (synchronous_commit on, the default): off, a crash loses the last commits the service was told were made
      // (the first soak run found 200-answered events and sent webhooks missing after a restart that way).
      '-c fsync=off',
      '-c full_page_writes=off',
    ].join(' ');
    await pgBin('pg_ctl', ['-D', this.data, '-o', settings, '-l', join(this.run, 'postgres.log'), '-t', '120', 'start', '-w']);
    await this.waitConnect();
  }

  async restart(downMs: number): Promise<void> {
    await pgBin('pg_ctl', ['-D', this.data, '-m', 'immediate', 'stop', '-w']);
    await sleep(downMs);
    await this.up();
  }

  /** A client of the soak database connects (the database itself may not exist yet on the first start). */
  private async waitConnect(): Promise<void> {
    const target = new URL(this.url);
    target.pathname = '/postgres';
    const deadline = Date.now() + 60_000;
    for (;;) {
      const client = new pg.Client({ connectionString: target.toString(), connectionTimeoutMillis: 2000, application_name: 'soak-cluster' });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`PostgreSQL on port ${this.port} not accepting connections: ${(error as Error).message}`, { cause: error });
        await sleep(100);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
  }

  async stop(): Promise<void> {
    if (!this.port) return;
    await pgBin('pg_ctl', ['-D', this.data, '-m', 'immediate', 'stop', '-w']).catch(() => undefined);
  }

  /** The same, synchronously (from an `exit` handler). */
  stopNow(): void {
    if (!this.port) return;
    const [command, args] = pgCommand('pg_ctl', ['-D', this.data, '-m', 'immediate', 'stop', '-w']);
    spawnSync(command, args, { stdio: 'ignore' });
  }
}

/** terminate_connections: every backend of the soak database but this one and the soak's own (application_name soak-*). */
async function terminateConnections(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'soak-faults', connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n
         FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name NOT LIKE 'soak%'`,
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The command line of a PostgreSQL binary: as root, through `runuser -u postgres`. */
function pgCommand(bin: string, args: string[]): [string, string[]] {
  const path = join(PG_BIN, bin);
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

async function pgBin(bin: string, args: string[]): Promise<void> {
  const [command, fullArgs] = pgCommand(bin, args);
  const result = await run(command, fullArgs, {});
  if (result.code !== 0) throw new Error(`${bin} ${args.join(' ')} failed (${result.code}): ${result.stderr || result.stdout}`);
}

/** The uid and gid of the postgres OS user, when running as root (null otherwise). */
function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'postgres');
  if (!entry) throw new Error('running as root, but there is no postgres OS user to run PostgreSQL as');
  return { uid: Number(entry[2]), gid: Number(entry[3]) };
}

/**
 * A redis-server of the soak's own on a free port, without persistence: killed (SIGKILL, a crash) it loses all it held,
 * and it starts again empty on the same port.
 */
class PrivateRedis {
  url = '';
  child: ChildProcess | null = null;
  private port = 0;
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly dir: string) {}

  async start(): Promise<void> {
    if (!this.port) {
      this.port = await freePort();
      this.url = `redis://127.0.0.1:${this.port}`;
    }
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', this.dir];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 10_000;
    while (!(await redisAnswers(this.url))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer`);
      await sleep(50);
    }
  }

  async restart(downMs: number): Promise<void> {
    await this.stop();
    await sleep(downMs);
    await this.start();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.exited;
  }
}

/**
 * Runs a command to its end, collecting its output. Resolves on `exit`, not `close`: pg_ctl start leaves the server
 * running, and the server may hold the pipes open.
 */
function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => setImmediate(() => resolve({ code, stdout, stderr })));
  });
}
