import type { ClientBase } from 'pg';
import { DataSource, DataSourceOptions, type MigrationInterface } from 'typeorm';
import { migrations } from '../../migrations/index.js';
import { entities } from './entities/index.js';

/** The one description of the database connection, used by the app, the CLI and the test setup. */
export function dataSourceOptions(databaseUrl: string, poolSize = 20, extraMigrations: MigrationClass[] = []): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities,
    // The extensions' own (EXTENSIONS), beside the service's: TypeORM runs them in the order of their timestamps.
    migrations: [...migrations, ...extraMigrations],
    migrationsTableName: 'migrations',
    synchronize: false,
    // Pipeline mode lets the hot path send several statements in one write (common/database/unit-of-work.ts).
    extra: { max: poolSize, connectionTimeoutMillis: 5000, pipeline: true, onConnect: listenForErrors },
  };
}

/**
 * Every pooled client keeps an error listener for its whole life. The pool listens only while a client is idle, and a
 * borrower only once it has it: a connection lost in between (a backend terminated right as it became ready, or while
 * a hot path holds the client without a listener of its own, see common/database/pool-client.ts) would otherwise be
 * an unhandled 'error' event, which ends the process. The queries in flight fail all the same, and the pool discards
 * the client when it is given back.
 */
function listenForErrors(client: ClientBase): void {
  client.on('error', () => undefined);
}

export type MigrationClass = new () => MigrationInterface;

export function createDataSource(databaseUrl: string, extraMigrations: MigrationClass[] = []): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl, undefined, extraMigrations));
}
