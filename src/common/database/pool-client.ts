import type { PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';

/**
 * Runs `work` on a pg client straight from TypeORM's pool and gives it back after: for hot paths that send their own
 * statements (pipelined, named), without a QueryRunner's bookkeeping around every query.
 */
export async function withPoolClient<T>(db: DataSource, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const [client, release] = (await (db.driver as PostgresDriver).obtainMasterConnection()) as [PoolClient, () => void];
  try {
    return await work(client);
  } finally {
    release();
  }
}
