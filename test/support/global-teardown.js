import pg from 'pg';
import { Redis } from 'ioredis';

/**
 * Drops the run's database, its template and the specs' own databases (`<run id>_*`, the extension test kits' among
 * them), and deletes the run's Redis keys, with those of the prefixes made from it (`<run id>-<suffix>`: ownQueuePrefix,
 * the kits') that a spec left behind.
 */
export default async function globalTeardown() {
  const runId = process.env.TEST_RUN_ID;
  if (!runId || !process.env.DATABASE_URL) return;
  const admin = new URL(process.env.DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname = $1 OR left(datname, length($1) + 1) = $1 || '_'`, [runId]);
  for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  await client.end();

  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  for (const pattern of [`${runId}:*`, `${runId}-*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  await redis.quit();
}
