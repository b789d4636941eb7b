import pg from 'pg';

/**
 * Points this spec file at a database of its own, `<run id>_<suffix>`, copied from the run's migrated template
 * (test/support/global-setup.js: CREATE DATABASE ... TEMPLATE, no migrations run again), for a spec that reads every
 * row of a table or fills one with enough rows to slow the others down. Call it in beforeAll, before the app, the
 * workers and the connections the spec opens: it sets this file's DATABASE_URL (Jest gives each test file a process.env
 * of its own), which the service's config, the workers it spawns and the ledger check (test/support/ledger-setup.ts)
 * read. The run's global teardown drops the database with the run's.
 */
export async function useOwnDatabase(suffix: string): Promise<string> {
  const runId = process.env.TEST_RUN_ID;
  if (!runId || !process.env.DATABASE_URL) throw new Error('no test run: TEST_RUN_ID and DATABASE_URL come from test/support/global-setup.js');
  const name = `${runId}_${suffix}`;
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${runId}_template"`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  return process.env.DATABASE_URL;
}
