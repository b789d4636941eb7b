import { jest } from '@jest/globals';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { OrganizationBacklog } from '../src/queues/organization-backlog.js';
import { QueueName } from '../src/queues/queue-names.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { createBehaviors } from './factories/behavior.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';

/** A bound on waiting for the worker (five attempts with their backoff: about 15 s), never an expectation of speed. */
const SETTLE_MS = 60_000;
jest.setTimeout(SETTLE_MS + 30_000);

/** What PostgreSQL answered the probe that found this (a behavior's points overflowing an integer column). */
const DATABASE_TEXT = 'value "6442450941" is out of range for type integer';

/**
 * Contract §18 and issue #28: one customer's failure is not the batch's, and a failure never answers, nor stores, the
 * database's text. A trigger of this spec's own database makes every write of one customer's progress fail the way
 * the probe's overflow did: the database raises an error, whatever the rules say.
 */
describe('a customer whose evaluation fails', () => {
  const prefix = ownQueuePrefix('failure-isolation');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let db: DataSource;
  let tenant: TestTenant;
  let failing: { id: string; external_id: string };
  let others: Array<{ id: string; external_id: string }>;

  beforeAll(async () => {
    // Its own database (the trigger below) and queue prefix (its worker takes no other spec's jobs).
    await useOwnDatabase('failure-isolation');
    app = await createTestApp({ queuePrefix: prefix });
    worker = await startTestWorker({ queuePrefix: prefix });
    db = app.get(DataSource);
    tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await createBehaviors(app, tenant, campaign.id, [{ name: 'Visit', event: 'visit', points: 10 }]);
    failing = await createCustomer(app, tenant);
    others = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
    await db.query(`
      CREATE FUNCTION fail_one_customer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.customer_id = '${failing.id}' THEN RAISE EXCEPTION '${DATABASE_TEXT}' USING ERRCODE = '22003'; END IF;
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER fail_one_customer BEFORE INSERT OR UPDATE ON customer_progress FOR EACH ROW EXECUTE FUNCTION fail_one_customer()`);
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  const eventsOf = (customerId: string) =>
    db.query<Array<{ status: string; reason: string | null }>>(`SELECT status, reason FROM events WHERE customer_id = $1 ORDER BY id`, [customerId]);

  it('in a V2 batch: the batch’s other customers are processed; its events end failed with a code, not the database’s text', async () => {
    const batch = [failing, ...others, failing].map((c) => ({ name: 'visit', external_id: c.external_id }));
    await request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).send({ events: batch }).expect(200);

    await waitFor(async () => (await Promise.all(others.map((c) => eventsOf(c.id)))).every((rows) => rows.length === 1 && rows[0].status === 'processed'), SETTLE_MS, "the other customers' events processed");
    for (const other of others) {
      const user = await api(app, tenant).get(`/users/${other.id}`).expect(200);
      expect(user.body.user.available_points).toBe(10);
    }

    await waitFor(async () => (await eventsOf(failing.id)).every((row) => row.status === 'failed'), SETTLE_MS, "the failing customer's events failed");
    expect(await eventsOf(failing.id)).toEqual([
      { status: 'failed', reason: 'evaluation_failed' },
      { status: 'failed', reason: 'evaluation_failed' },
    ]);
    const timeline = await api(app, tenant).get(`/users/${failing.id}/timeline`).expect(200);
    expect(JSON.stringify(timeline.body)).not.toContain('out of range');
    expect(timeline.body.events.map((e: { reason: string | null }) => e.reason)).toEqual(['evaluation_failed', 'evaluation_failed']);
    // The batch's job, split, and the failing customer's job out of attempts: each counted out of the backlog.
    expect(await new OrganizationBacklog(app.get<Queue>(getQueueToken(QueueName.Events))).current(tenant.organizationId)).toBe(1);
  });

  it('through V1: 500 internal_error with the request id, and no database text', async () => {
    const res = await api(app, tenant).post(`/users/${failing.id}/events`).send({ events: { visit: 1 } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ status: 'error', errors: { code: 'internal_error', message: expect.any(String), request_id: res.headers['x-request-id'] } });
    expect(JSON.stringify(res.body)).not.toMatch(/out of range|integer|customer_progress|\bat\b.*\.js/);
  });

  it('an event that failed before reasons were codes (its reason the database text) answers the code too', async () => {
    const [old] = others;
    await db.query(`UPDATE events SET status = 'failed', reason = $2 WHERE customer_id = $1`, [old.id, DATABASE_TEXT]);
    const timeline = await api(app, tenant).get(`/users/${old.id}/timeline`).expect(200);
    expect(timeline.body.events.map((e: { status: string; reason: string | null }) => [e.status, e.reason])).toEqual([['failed', 'evaluation_failed']]);
  });
});
