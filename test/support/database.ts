import { createDatabase } from '../../src/extension-api/testing-core.js';

/**
 * Points this spec file at a database of its own, `<run id>_<suffix>`, copied from the run's migrated template
 * (test/support/global-setup.js: CREATE DATABASE ... TEMPLATE, no migrations run again), for a spec that reads every
 * row of a table or fills one with enough rows to slow the others down. Call it in beforeAll, before the app, the
 * workers and the connections the spec opens: it sets this file's DATABASE_URL (Jest gives each test file a process.env
 * of its own), which the service's config, the workers it spawns and the ledger check (test/support/ledger-setup.ts)
 * read. The run's global teardown drops the database with the run's. (An extension's spec, with migrations of its
 * own, takes the extension test kit instead: src/extension-api/testing.ts.)
 */
export async function useOwnDatabase(suffix: string): Promise<string> {
  const runId = process.env.TEST_RUN_ID;
  if (!runId || !process.env.DATABASE_URL) throw new Error('no test run: TEST_RUN_ID and DATABASE_URL come from test/support/global-setup.js');
  process.env.DATABASE_URL = await createDatabase(process.env.DATABASE_URL, `${runId}_${suffix}`, `${runId}_template`);
  return process.env.DATABASE_URL;
}
