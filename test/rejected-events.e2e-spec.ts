import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';
/** A bound on waiting for the worker, never an expectation of speed. */
const SETTLE_MS = 45_000;
jest.setTimeout(SETTLE_MS + 30_000);

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** `npm run cli -- events:rejected ...` as built (the test run builds first), with this run's database. */
async function cli(args: string[]): Promise<Record<string, unknown>> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  const { stdout } = await run(process.execPath, ['dist/src/cli.js', 'events:rejected', ...args], { cwd: ROOT, env });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('rejected events: GET /priv/v1/apps/:api_key/events/rejected and events:rejected', () => {
  let app: INestApplication;
  let db: DataSource;
  let worker: INestApplicationContext;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    worker = await startTestWorker({ workerQueues: ['events'] });
    tenant = await createTenant(app);
    other = await createTenant(app);
    const known = await createCustomer(app, tenant);
    const send = (t: TestTenant, body: unknown) =>
      request(app.getHttpServer()).post(`/priv/v2/apps/${t.apiKey}/events`).auth(t.apiKey, t.apiSecret).send(body as object).expect(200);
    // First batch: one unknown external id; the second (later): an unknown user id with a transaction id, a known
    // customer. Another organization's unknown customer must not show in this one's list.
    await send(tenant, { events: [{ name: 'visit', external_id: 'ghost-1', occurred_at: '2026-01-05T10:00:00Z' }] });
    await waitFor(async () => (await statuses(tenant)).length === 1 && (await statuses(tenant))[0] !== 'pending', SETTLE_MS, 'the first batch');
    await send(tenant, {
      events: [
        { name: 'purchase', user_id: UNKNOWN_UUID, transaction_id: 'tx-rejected-1', occurred_at: '2026-01-06T10:00:00Z', context: { store_id: 's1' } },
        { name: 'visit', user_id: known.id },
      ],
    });
    await send(other, { events: [{ name: 'visit', external_id: 'ghost-other' }] });
    await waitFor(async () => !(await statuses(tenant)).includes('pending') && !(await statuses(other)).includes('pending'), SETTLE_MS, 'the events to settle');
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
  });

  async function statuses(t: TestTenant): Promise<string[]> {
    const rows: Array<{ status: string }> = await db.query(`SELECT status FROM events WHERE organization_id = $1 ORDER BY id`, [t.organizationId]);
    return rows.map((r) => r.status);
  }

  it('lists the organization\'s rejected events newest first, with their reason, and not the processed one', async () => {
    const res = await api(app, tenant).get('/events/rejected').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      events: [
        {
          id: expect.stringMatching(/^\d+$/),
          name: 'purchase',
          user_ref: UNKNOWN_UUID,
          reason: 'customer_not_found',
          source: 'v2',
          transaction_id: 'tx-rejected-1',
          occurred_at: '2026-01-06T10:00:00.000Z',
          created_at: expect.any(String),
        },
        {
          id: expect.stringMatching(/^\d+$/),
          name: 'visit',
          user_ref: 'ghost-1',
          reason: 'customer_not_found',
          source: 'v2',
          transaction_id: null,
          occurred_at: '2026-01-05T10:00:00.000Z',
          created_at: expect.any(String),
        },
      ],
      page: 1,
      limit: 10,
      total: 2,
    });
    const [newer, older] = res.body.events as Array<{ created_at: string }>;
    expect(Date.parse(newer.created_at)).toBeGreaterThanOrEqual(Date.parse(older.created_at));
  });

  it('pages like the other lists', async () => {
    const second = await api(app, tenant).get('/events/rejected?limit=1&page=2').expect(200);
    expect(second.body).toEqual(expect.objectContaining({ page: 2, limit: 1, total: 2 }));
    expect((second.body.events as Array<{ user_ref: string }>).map((e) => e.user_ref)).toEqual(['ghost-1']);
    const past = await api(app, tenant).get('/events/rejected?limit=1&page=3').expect(200);
    expect(past.body).toEqual({ status: 'ok', events: [], page: 3, limit: 1, total: 2 });
    expectError(await api(app, tenant).get('/events/rejected?limit=0'), 400, 'validation');
    expectError(await api(app, tenant).get('/events/rejected?limit=101'), 400, 'validation');
  });

  it('shows each organization only its own', async () => {
    const res = await api(app, other).get('/events/rejected').expect(200);
    expect((res.body.events as Array<{ user_ref: string }>).map((e) => e.user_ref)).toEqual(['ghost-other']);
  });

  it('needs the api key\'s credentials', async () => {
    const res = await request(app.getHttpServer()).get(`/priv/v1/apps/${tenant.apiKey}/events/rejected`);
    expect(res.status).toBe(401);
  });

  it('the CLI lists the same events: events:rejected --org ID', async () => {
    const out = await cli(['--org', String(tenant.organizationId)]);
    expect(out).toEqual(expect.objectContaining({ status: 'ok', organization_id: tenant.organizationId, page: 1, limit: 100, total: 2 }));
    expect((out.rejected as Array<{ user_ref: string; reason: string }>).map((e) => [e.user_ref, e.reason])).toEqual([
      [UNKNOWN_UUID, 'customer_not_found'],
      ['ghost-1', 'customer_not_found'],
    ]);
    const all = await cli(['--limit', '1000']);
    const refs = (all.rejected as Array<{ user_ref: string }>).map((e) => e.user_ref);
    expect(refs).toEqual(expect.arrayContaining([UNKNOWN_UUID, 'ghost-1', 'ghost-other']));
  });
});
