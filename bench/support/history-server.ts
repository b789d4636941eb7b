/**
 * The history benchmark's databases and API processes. Unlike server.ts (a fresh database per run, dropped with the
 * API), a database here is named by the caller and outlives its API: the large one may be kept between runs.
 */
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import pg from 'pg';
import { deleteRedisKeys, dropDatabase as dropDatabaseAt, onServer } from '../../src/extension-api/testing-stores.js';
import { onInterrupt } from './cleanup.js';
import { cpuSnapshot, type CpuSnapshot } from './cpu.js';
import { apiReady, benchRedis } from './server.js';

/** The admin token of every benchmark's API (server.ts's bootstrap() sends the same one). */
export const ADMIN_TOKEN = 'bench-admin-token-0123456789';

export function databaseUrl(name: string): string {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  return url.toString();
}

const withAdmin = <T>(run: (client: pg.Client) => Promise<T>): Promise<T> => onServer(databaseUrl('postgres'), run);

export function databaseExists(name: string): Promise<boolean> {
  return withAdmin(async (c) => ((await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount ?? 0) > 0);
}

export function dropDatabase(name: string): Promise<void> {
  return dropDatabaseAt(databaseUrl(name));
}

/** The comment on a database (the history benchmark keeps what it built there), or null. */
export function databaseComment(name: string): Promise<string | null> {
  return withAdmin(async (c) => (await c.query(`SELECT shobj_description(oid, 'pg_database') AS d FROM pg_database WHERE datname = $1`, [name])).rows[0]?.d ?? null);
}

export function setDatabaseComment(name: string, comment: string): Promise<void> {
  return withAdmin(async (c) => void (await c.query(`COMMENT ON DATABASE "${name}" IS ${pg.escapeLiteral(comment)}`)));
}

/** Creates the database if missing and applies every migration, as `npm run migration:run` does (the built CLI). */
export function migrate(name: string): void {
  const result = spawnSync(process.execPath, ['dist/src/cli.js', 'migrate'], { env: { ...process.env, DATABASE_URL: databaseUrl(name) }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`migrations of ${name} failed: ${result.stderr}`);
}

/** The name of the last migration applied to a database. */
export async function lastMigration(name: string): Promise<string | null> {
  const db = new pg.Client({ connectionString: databaseUrl(name) });
  await db.connect();
  try {
    return (await db.query(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`)).rows[0]?.name ?? null;
  } finally {
    await db.end();
  }
}

export interface HistoryApi {
  url: string;
  database: string;
  env: NodeJS.ProcessEnv;
  /** CPU so far: the API process, the database's PostgreSQL backends, this process. */
  cpu(): CpuSnapshot;
  stop(): Promise<void>;
}

/** Starts the built API (one process) on an existing, migrated database; stop() ends it and deletes its Redis keys. */
export async function startApi(database: string, port: number): Promise<HistoryApi> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl(database),
    QUEUE_PREFIX: database,
    ADMIN_TOKEN,
    PORT: String(port),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    RATE_LIMIT_PER_MINUTE: '10000000',
  };
  const child: ChildProcess = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      await deleteRedisKeys(benchRedis(), `${database}*`);
      forget();
    })());
  const forget = onInterrupt(stop);
  const url = `http://127.0.0.1:${port}`;
  if (await apiReady(url, child)) return { url, database, env, cpu: () => cpuSnapshot([child.pid!], database), stop };
  await stop();
  throw new Error(`the API on ${database} (port ${port}) was not ready after 30 s`);
}
