// Plain JavaScript: Jest loads global setup outside its module transform. It uses the built service (`npm test`
// builds first), so the migrations applied here are the ones `npm start` applies, through the same CLI, and the
// database helpers are the test kit's own (src/extension-api/testing-stores.ts, built).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/**
 * Once per `jest` run: a fresh database with every migration applied, and a Redis key prefix of its own. The values
 * reach the test workers through the environment, where the service's config reads them as usual. A copy of the
 * migrated database, `<run id>_template`, is kept unused, so that a spec that needs a database of its own gets one
 * with `CREATE DATABASE ... TEMPLATE` (test/support/database.ts, and the extension test kit of
 * src/extension-api/testing.ts through TEST_TEMPLATE_DATABASE) instead of running the migrations again.
 */
export default async function globalSetup() {
  if (!existsSync('dist/src/cli.js')) throw new Error('dist/ is missing: run `npm run build` (npm test does) before jest');
  const { createDatabase } = await import('../../dist/src/extension-api/testing-stores.js');
  const runId = `ce_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const base = new URL(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/${runId}`;
  const env = { ...process.env, DATABASE_URL: base.toString() };
  const migrate = spawnSync(process.execPath, ['dist/src/cli.js', 'migrate'], { env, encoding: 'utf8' });
  if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr || migrate.stdout}`);
  await createDatabase(base.toString(), `${runId}_template`, runId);
  Object.assign(process.env, {
    TEST_RUN_ID: runId,
    TEST_TEMPLATE_DATABASE: `${runId}_template`,
    DATABASE_URL: base.toString(),
    QUEUE_PREFIX: runId,
    ADMIN_TOKEN: 'test-admin-token-0123456789',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // Every test file of the run shares this Redis prefix, so the failure budget of 127.0.0.1 over every credential
    // would be shared by files running side by side: far above what any file sends. Specs of the budgets set their own
    // and send from addresses of their own (X-Forwarded-For with TRUST_PROXY).
    AUTH_FAILURES_PER_MINUTE: '1000000',
  });
}
