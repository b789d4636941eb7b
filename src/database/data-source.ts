import { DataSource, DataSourceOptions } from 'typeorm';
import { migrations } from '../../migrations/index.js';
import { entities } from './entities/index.js';

/** The one description of the database connection, used by the app, the CLI and the test setup. */
export function dataSourceOptions(databaseUrl: string, poolSize = 20): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities,
    migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    // Pipeline mode lets the hot path send several statements in one write (common/database/pipelined.ts).
    extra: { max: poolSize, connectionTimeoutMillis: 5000, pipeline: true },
  };
}

export function createDataSource(databaseUrl: string): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl));
}
