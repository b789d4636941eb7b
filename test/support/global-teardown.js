// Plain JavaScript, as global-setup.js: the database and Redis helpers are the test kit's own, from the build.

/**
 * Drops the run's database, its template and the specs' own databases (`<run id>_*`, the extension test kits' among
 * them), and deletes the run's Redis keys, with those of the prefixes made from it (`<run id>-<suffix>`: ownQueuePrefix,
 * the kits') that a spec left behind.
 */
export default async function globalTeardown() {
  const runId = process.env.TEST_RUN_ID;
  if (!runId || !process.env.DATABASE_URL) return;
  const { deleteRedisKeys, dropDatabase, onServer } = await import('../../dist/src/extension-api/testing-stores.js');
  const url = new URL(process.env.DATABASE_URL);
  const { rows } = await onServer(url.toString(), (client) =>
    client.query(`SELECT datname FROM pg_database WHERE datname = $1 OR left(datname, length($1) + 1) = $1 || '_'`, [runId]),
  );
  for (const { datname } of rows) {
    url.pathname = `/${datname}`;
    await dropDatabase(url.toString());
  }
  const redis = { redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', redisCluster: false };
  for (const pattern of [`${runId}:*`, `${runId}-*`]) await deleteRedisKeys(redis, pattern);
}
