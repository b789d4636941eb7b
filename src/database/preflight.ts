import pg from 'pg';
import { redactUrl } from '../config/config.js';
import { createDataSource, type MigrationClass } from './data-source.js';
import { createRedisClient, RedisTarget } from '../redis/connection.js';

/** A dependency that is missing or unreachable; its message is the one line the process prints before exiting. */
export class DependencyError extends Error {}

function reason(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code ?? e.message ?? String(error);
}

/** Creates the database named in the URL when it does not exist yet (first run on a fresh machine). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!name) throw new DependencyError(`DATABASE_URL names no database: ${redactUrl(databaseUrl)}`);
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    throw new DependencyError(`PostgreSQL unreachable at ${redactUrl(admin.toString())} (${reason(error)})`);
  }
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (error) {
    throw new DependencyError(`PostgreSQL database "${name}" could not be created (${reason(error)})`);
  } finally {
    await client.end();
  }
}

export async function runMigrations(databaseUrl: string, extraMigrations: MigrationClass[] = []): Promise<string[]> {
  const dataSource = createDataSource(databaseUrl, extraMigrations);
  try {
    await dataSource.initialize();
  } catch (error) {
    throw new DependencyError(`PostgreSQL unreachable at ${redactUrl(databaseUrl)} (${reason(error)})`);
  }
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Checks that PostgreSQL answers and has the schema; answers warnings about settings under which a crash of the server
 * loses commits the service has already answered 2xx for (synchronous_commit or fsync off: docs/operations.md).
 */
export async function checkPostgres(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const pending = await client
      .query(`SELECT count(*)::int AS n FROM migrations`)
      .then((r) => r.rows[0].n as number)
      .catch(() => 0);
    if (pending === 0) throw new DependencyError(`PostgreSQL at ${redactUrl(databaseUrl)} has no schema: run npm run migration:run`);
    return await durabilityWarnings(client);
  } catch (error) {
    if (error instanceof DependencyError) throw error;
    throw new DependencyError(`PostgreSQL unreachable at ${redactUrl(databaseUrl)} (${reason(error)})`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The durability settings of the connection's server that lose answered commits in a crash, as warnings. */
export async function durabilityWarnings(client: Pick<pg.Client, 'query'>): Promise<string[]> {
  const { rows } = await client.query(`SELECT current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync`);
  const settings = rows[0] as { synchronous_commit: string; fsync: string };
  const warnings: string[] = [];
  if (settings.synchronous_commit === 'off') {
    warnings.push('PostgreSQL runs with synchronous_commit off: a crash of the server loses the last commits already answered 2xx (docs/operations.md)');
  }
  if (settings.fsync === 'off') warnings.push('PostgreSQL runs with fsync off: a crash of the machine can lose or corrupt committed data (docs/operations.md)');
  return warnings;
}

export async function checkRedis(target: RedisTarget): Promise<void> {
  const redis = createRedisClient(target, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new DependencyError(`Redis unreachable at ${redactUrl(target.redisUrl)} (${reason(error)})`);
  } finally {
    redis.disconnect();
  }
}
