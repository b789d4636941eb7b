import { DataSource } from 'typeorm';

export interface OwnDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * An empty database of the spec's own, named after the run's (`<run id>_<suffix>`), for a spec that changes the
 * schema or must know every row of a table; `drop()` removes it (in afterAll).
 */
export async function ownDatabase(suffix: string): Promise<OwnDatabase> {
  const name = `${process.env.TEST_RUN_ID}_${suffix}`;
  const admin = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL });
  await admin.initialize();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.destroy();
    },
  };
}
