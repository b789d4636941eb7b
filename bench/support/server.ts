/** Starts the built API on a fresh database for a benchmark, and tears both down afterwards. */
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { deleteRedisKeys, dropDatabase } from '../../src/extension-api/testing-stores.js';
import type { RedisTarget } from '../../src/redis/connection.js';
import { onInterrupt } from './cleanup.js';
import { CpuSnapshot, cpuSnapshot } from './cpu.js';

export interface BenchServer {
  url: string;
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  /** CPU seconds so far: the API processes, the PostgreSQL backends of its database, and this benchmark process. */
  cpu(): CpuSnapshot;
  stop(): Promise<void>;
}

const ADMIN_TOKEN = 'bench-admin-token-0123456789';

export async function startServer(port: number, extraEnv: NodeJS.ProcessEnv = {}): Promise<BenchServer> {
  const name = `ce_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/${name}`;
  const env = {
    ...process.env,
    DATABASE_URL: base.toString(),
    QUEUE_PREFIX: name,
    ADMIN_TOKEN,
    PORT: String(port),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMIT_PER_MINUTE: '10000000',
    ...extraEnv,
  };
  const children: ChildProcess[] = [];
  let stopped: Promise<void> | undefined;
  // Idempotent, and run on Ctrl-C too: the API processes, the database and every Redis key under this run's prefix.
  const stop = () =>
    (stopped ??= (async () => {
      const exited = children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((r) => c.once('exit', r)));
      for (const child of children) child.kill('SIGTERM');
      await Promise.race([Promise.all(exited), new Promise((r) => setTimeout(r, 5000))]);
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await dropDatabase(base.toString());
      await deleteRedisKeys(benchRedis(), `${name}*`);
      forget();
    })());
  const forget = onInterrupt(stop);
  try {
    const migrate = spawnSync(process.execPath, ['dist/src/cli.js', 'migrate'], { env, encoding: 'utf8' });
    if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr}`);
    children.push(spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/src/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] }));
    const url = `http://127.0.0.1:${port}`;
    if (!(await apiReady(url))) throw new Error(`the API on port ${port} was not ready after 30 s`);
    return {
      url,
      databaseUrl: base.toString(),
      env,
      cpu() {
        return cpuSnapshot(children.map((c) => c.pid!), name);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Whether the API at `url` answers /health/ready within 30 s (polled every 100 ms); false at once if `child`, its process, exits. */
export async function apiReady(url: string, child?: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 300; i += 1) {
    if (await fetch(`${url}/health/ready`).then((r) => r.ok, () => false)) return true;
    if (child && child.exitCode !== null) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

export async function bootstrap(url: string, name = 'Bench'): Promise<{ key: string; secret: string; auth: string; organizationId: number }> {
  const res = await fetch(`${url}/admin/v1/organizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ organization: { name, time_zone: 'America/New_York' }, application: { name } }),
  });
  if (res.status !== 201) throw new Error(`organization not created: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { api_key: string; api_secret: string; organization: { id: number } };
  return {
    key: body.api_key,
    secret: body.api_secret,
    auth: `Basic ${Buffer.from(`${body.api_key}:${body.api_secret}`).toString('base64')}`,
    organizationId: body.organization.id,
  };
}

/** The Redis the benchmarks' APIs use (REDIS_URL, else the local one), where their keys are deleted after them. */
export function benchRedis(): RedisTarget {
  return { redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', redisCluster: false };
}
