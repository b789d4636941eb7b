import { Cluster } from 'ioredis';
import pg from 'pg';
import { createRedisClient, type RedisTarget } from '../redis/connection.js';

// The test kit's databases and Redis keys, without Nest: what jest's global setup and the benchmarks load.

/** Runs `work` with a client of the server of `databaseUrl`, connected to its `postgres` database. */
export async function onServer<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Creates database `name` on the server of `databaseUrl`, a copy of `template` when given (CREATE DATABASE ...
 * TEMPLATE: its schema and rows, without running its migrations again), else empty; answers its URL.
 */
export async function createDatabase(databaseUrl: string, name: string, template?: string): Promise<string> {
  await onServer(databaseUrl, async (client) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${quoted(name)}${template ? ` TEMPLATE ${quoted(template)}` : ''}`);
        return;
      } catch (error) {
        // 55006: a connection to the template has not gone yet ("source database is being accessed by other users").
        if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops the database `databaseUrl` names, ending the connections still open to it. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  await onServer(databaseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`));
}

/** Deletes every Redis key matching `match` (a SCAN pattern, such as `<prefix>:*`), on every master of a cluster; answers how many. */
export async function deleteRedisKeys(target: RedisTarget, match: string): Promise<number> {
  const client = createRedisClient(target, { lazyConnect: true, maxRetriesPerRequest: null });
  let deleted = 0;
  try {
    await client.connect();
    const nodes = client instanceof Cluster ? client.nodes('master') : [client];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
        // One key at a time on a cluster node: a DEL of several keys must stay in one slot.
        if (keys.length) deleted += client instanceof Cluster ? (await Promise.all(keys.map((key) => node.del(key)))).reduce((a, b) => a + b, 0) : await node.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    client.disconnect();
  }
  return deleted;
}
