import { ChildProcess, spawn } from 'node:child_process';
import { getPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { loadConfig } from '../src/config/config.js';
import { QueueName } from '../src/queues/queue-names.js';
import { freePort } from './support/ports.js';
import { deleteQueueKeys, ownQueuePrefix } from './support/worker.js';

/** The project root: the built processes run from there, as `npm start` runs them. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STACK_LINE = /^\s+at \S/m;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Child {
  process: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<Exit>;
}

const children: Child[] = [];

/** The environment of this jest run (database, Redis prefix, admin token), with logging on and overrides applied. */
function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...overrides };
  delete env.NODE_OPTIONS; // jest's own flags (e.g. --experimental-vm-modules) would add warnings on stderr
  return env;
}

function start(script: 'main.js' | 'worker.js', overrides: Record<string, string> = {}): Child {
  const proc = spawn(process.execPath, [`dist/src/${script}`], { cwd: ROOT, env: childEnv(overrides), stdio: ['ignore', 'pipe', 'pipe'] });
  const child: Child = {
    process: proc,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => (child.stdout += chunk));
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => (child.stderr += chunk));
  children.push(child);
  return child;
}

/** Resolves with `work`, or rejects naming `what` once `ms` have passed. Only a bound on waiting, never an assertion on speed. */
async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function exitOf(child: Child, ms = 15_000): Promise<Exit> {
  return within(child.exited, ms, `waiting for the process to exit (stderr: ${child.stderr})`);
}

/** Complete stdout lines so far. */
function lines(child: Child): string[] {
  return child.stdout.split('\n').slice(0, -1).filter((line) => line.trim() !== '');
}

function parsed(child: Child): Array<Record<string, unknown>> {
  return lines(child).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Waits until a JSON log line matches, or the process exits, or `ms` pass. */
async function logLine(child: Child, match: (line: Record<string, unknown>) => boolean, ms = 20_000): Promise<Record<string, unknown>> {
  const found = new Promise<Record<string, unknown>>((resolve, reject) => {
    const poll = setInterval(() => {
      const line = parsed(child).find(match);
      if (line) {
        clearInterval(poll);
        resolve(line);
      } else if (child.process.exitCode !== null || child.process.signalCode !== null) {
        clearInterval(poll);
        reject(new Error(`the process exited before logging the line; stderr: ${child.stderr}`));
      }
    }, 50);
    child.exited.then(() => setTimeout(() => clearInterval(poll), 200));
  });
  return within(found, ms, 'waiting for a log line');
}


async function killAll(): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.process.exitCode === null && child.process.signalCode === null) {
      child.process.kill('SIGKILL');
      await within(child.exited, 5_000, 'killing a child').catch(() => undefined);
    }
  }
}

describe('processes', () => {
  afterAll(killAll);

  describe('refusing to start', () => {
    afterEach(killAll);

    /** One line on stderr, naming `subject`, no stack trace, exit code 1. */
    async function expectCannotStart(child: Child, subject: RegExp): Promise<string> {
      expect(await exitOf(child)).toEqual({ code: 1, signal: null });
      const stderrLines = child.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(stderrLines).toEqual([expect.stringMatching(subject)]);
      expect(child.stderr).not.toMatch(STACK_LINE);
      expect(child.stdout).not.toMatch(STACK_LINE);
      return stderrLines[0];
    }

    it('the API exits 1 with one line naming PostgreSQL when DATABASE_URL points at a closed port', async () => {
      await expectCannotStart(start('main.js', { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' }), /PostgreSQL/);
    });

    it('does not print the database password', async () => {
      const line = await expectCannotStart(start('main.js', { DATABASE_URL: 'postgres://postgres:hunter2secret@127.0.0.1:1/x' }), /PostgreSQL/);
      expect(line).not.toContain('hunter2secret');
    });

    it('the API exits 1 with one line naming Redis when REDIS_URL points at a closed port', async () => {
      await expectCannotStart(start('main.js', { REDIS_URL: 'redis://127.0.0.1:1' }), /Redis/);
    });

    it('the API exits 1 with one line naming PORT when PORT is not a number', async () => {
      await expectCannotStart(start('main.js', { PORT: 'abc' }), /\bPORT\b/);
    });

    it('the worker exits 1 with one line naming PostgreSQL when DATABASE_URL points at a closed port', async () => {
      await expectCannotStart(start('worker.js', { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' }), /PostgreSQL/);
    });

    it('the worker exits 1 with one line naming Redis when REDIS_URL points at a closed port', async () => {
      await expectCannotStart(start('worker.js', { REDIS_URL: 'redis://127.0.0.1:1' }), /Redis/);
    });
  });

  describe('the API process', () => {
    let api: Child;
    let baseUrl: string;

    beforeAll(async () => {
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      api = start('main.js', { PORT: String(port) });
      await logLine(api, (line) => line.msg === 'api listening');
    });

    it('logs little at info before it listens: no line per module or route (those are debug), then one api listening line', () => {
      const all = parsed(api);
      const listening = all.findIndex((line) => line.msg === 'api listening');
      const startUp = all.slice(0, listening + 1);
      expect(startUp.length).toBeLessThanOrEqual(3);
      expect(startUp.filter((line) => line.context !== undefined)).toEqual([]);
      expect(all.filter((line) => line.msg === 'api listening')).toEqual([expect.objectContaining({ level: 'info', service: 'api' })]);
    });

    it('answers GET /health/ready 200 with postgres and redis up', async () => {
      const res = await within(fetch(`${baseUrl}/health/ready`, { headers: { 'x-request-id': 'proc-ready-1' } }), 10_000, 'GET /health/ready');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok', checks: { postgres: 'up', redis: 'up' } });
      expect(res.headers.get('x-request-id')).toBe('proc-ready-1');
    });

    it('logs JSON lines only, one per request with its req_id', async () => {
      for (const [path, id] of [
        ['/health/live', 'proc-live-1'],
        ['/nope', 'proc-404-1'],
      ]) {
        const res = await within(fetch(`${baseUrl}${path}`, { headers: { 'x-request-id': id } }), 10_000, `GET ${path}`);
        await res.arrayBuffer();
      }
      const requestLine = (id: string) => (line: Record<string, unknown>) => line.msg === 'request' && line.req_id === id;
      await logLine(api, requestLine('proc-404-1'));
      await logLine(api, requestLine('proc-live-1'));
      await logLine(api, requestLine('proc-ready-1'));

      for (const line of lines(api)) expect(() => JSON.parse(line)).not.toThrow();
      const requests = parsed(api).filter((line) => line.msg === 'request');
      expect(requests.every((line) => typeof line.req_id === 'string' && line.req_id !== '')).toBe(true);
      expect(requests.filter(requestLine('proc-live-1'))).toEqual([expect.objectContaining({ method: 'GET', path: '/health/live', status: 200 })]);
      expect(requests.filter(requestLine('proc-404-1'))).toEqual([expect.objectContaining({ method: 'GET', path: '/nope', status: 404 })]);
      expect(requests.filter(requestLine('proc-ready-1'))).toEqual([expect.objectContaining({ path: '/health/ready', status: 200 })]);
      expect(api.stderr).toBe('');
    });

    it('exits 0 after SIGTERM, with one info line saying it stops and why', async () => {
      api.process.kill('SIGTERM');
      expect(await exitOf(api, 10_000)).toEqual({ code: 0, signal: null });
      expect(api.stderr).toBe('');
      const stopping = parsed(api).filter((line) => typeof line.msg === 'string' && line.msg.startsWith('api stopping'));
      expect(stopping).toEqual([expect.objectContaining({ level: 'info', service: 'api', signal: 'SIGTERM' })]);
    });
  });

  describe('the worker process', () => {
    let worker: Child;

    beforeAll(async () => {
      worker = start('worker.js');
    });

    it("logs a JSON line with msg 'worker ready', and little else at info before it", async () => {
      const ready = await logLine(worker, (line) => line.msg === 'worker ready');
      expect(ready).toEqual(expect.objectContaining({ service: 'worker', queue_prefix: process.env.QUEUE_PREFIX }));
      for (const line of lines(worker)) expect(() => JSON.parse(line)).not.toThrow();
      const all = parsed(worker);
      const startUp = all.slice(0, all.findIndex((line) => line.msg === 'worker ready') + 1);
      expect(startUp.length).toBeLessThanOrEqual(3);
      expect(startUp.filter((line) => line.context !== undefined)).toEqual([]);
    });

    it('exits 0 after SIGTERM, with one info line saying it stops and why', async () => {
      await logLine(worker, (line) => line.msg === 'worker ready');
      worker.process.kill('SIGTERM');
      expect(await exitOf(worker, 10_000)).toEqual({ code: 0, signal: null });
      expect(worker.stderr).toBe('');
      const stopping = parsed(worker).filter((line) => typeof line.msg === 'string' && line.msg.startsWith('worker stopping'));
      expect(stopping).toEqual([expect.objectContaining({ level: 'info', service: 'worker', signal: 'SIGTERM' })]);
    });
  });

  describe('a worker of simulations alone (WORKER_QUEUES, WORKER_NICE), as npm start runs one', () => {
    const prefix = ownQueuePrefix('simulations-only');
    const connection = { url: loadConfig(process.env).redisUrl, maxRetriesPerRequest: null };
    const queues = Object.values(QueueName).map((name) => new Queue(name, { connection, prefix }));
    afterAll(async () => {
      await Promise.all(queues.map((queue) => queue.close()));
      await deleteQueueKeys(prefix);
    });

    it('listens on the simulations queue alone, at the niceness asked, and says so when ready', async () => {
      const worker = start('worker.js', { QUEUE_PREFIX: prefix, WORKER_QUEUES: 'simulations', WORKER_NICE: '10' });
      const ready = await logLine(worker, (line) => line.msg === 'worker ready');
      expect(ready).toEqual(expect.objectContaining({ queues: ['simulations'], nice: 10 }));
      expect(getPriority(worker.process.pid)).toBe(10);
      const listening = await Promise.all(queues.map(async (queue) => [queue.name, (await queue.getWorkers()).length]));
      expect(Object.fromEntries(listening)).toEqual({ [QueueName.Events]: 0, [QueueName.Webhooks]: 0, [QueueName.AudienceJobs]: 0, [QueueName.Simulations]: 1, [QueueName.RewardEffects]: 0 });
      worker.process.kill('SIGTERM');
      expect(await exitOf(worker, 10_000)).toEqual({ code: 0, signal: null });
    });
  });
});
