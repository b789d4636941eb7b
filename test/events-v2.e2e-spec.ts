import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/queues/queue-names.js';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { EventsProcessor } from '../src/modules/events/events.processor.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createBehavior } from './factories/behavior.factory.js';

const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';
/** A bound on waiting for the worker, never an expectation of speed. */
const SETTLE_MS = 45_000;
// Tests wait for the worker (bounded by SETTLE_MS); jest's own 5 s default would cut them short on a loaded machine.
jest.setTimeout(SETTLE_MS + 15_000);

type Customer = { id: string; external_id: string; division_id: number };
interface EventRow {
  id: string;
  api_key_id: number;
  customer_id: string | null;
  user_ref: string | null;
  source: string;
  transaction_id: string | null;
  name: string;
  count: string;
  context: Record<string, unknown>;
  division_id: number | null;
  occurred_at: Date;
  status: string;
  reason: string | null;
  points_earned: number;
  attempts: number;
}

let seq = 0;
const uniq = (prefix: string) => `${prefix}-${++seq}-${Date.now().toString(36)}`;

describe('events V2', () => {
  let app: INestApplication;
  let db: DataSource;
  let worker: INestApplicationContext;

  // A queue of this file's own: its events are processed by its worker alone, which a test can pause.
  const prefix = ownQueuePrefix('events-v2');

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix });
    db = app.get(DataSource);
    worker = await startTestWorker({ queuePrefix: prefix, workerQueues: ['events'] });
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  /** Runs `check` with the worker taking no job, then lets it go on: what the answer left before any processing. */
  async function beforeProcessing(check: () => Promise<void>): Promise<void> {
    const events = worker.get(EventsProcessor).worker;
    await events.pause();
    try {
      await check();
    } finally {
      events.resume();
    }
  }

  /** POST /priv/v2/apps/:api_key/events with the tenant's credentials. */
  function send(tenant: TestTenant, body?: unknown): request.Test {
    const req = request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret);
    return body === undefined ? req : req.send(body as object);
  }

  /** Sends and expects exactly 200 {"status":"ok"}. */
  async function sendOk(tenant: TestTenant, body: unknown): Promise<void> {
    const res = await send(tenant, body);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
  }

  /** Every stored event of the tenant's organization, oldest first. */
  function rows(tenant: TestTenant): Promise<EventRow[]> {
    return db.query(
      `SELECT id, api_key_id, customer_id, user_ref, source, transaction_id, name, count, context, division_id, occurred_at, status, reason,
              points_earned::int AS points_earned, attempts
         FROM events WHERE organization_id = $1 ORDER BY id`,
      [tenant.organizationId],
    );
  }

  async function countRows(tenant: TestTenant): Promise<number> {
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1`, [tenant.organizationId]);
    return n;
  }

  /** Waits (bounded) until the organization has `expected` events and none of them is pending. */
  async function settled(tenant: TestTenant, expected: number): Promise<EventRow[]> {
    await waitFor(
      async () => {
        const [{ total, pending }] = await db.query(
          `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'pending')::int AS pending FROM events WHERE organization_id = $1`,
          [tenant.organizationId],
        );
        return total === expected && pending === 0;
      },
      SETTLE_MS,
      `${expected} events of organization ${tenant.organizationId} processed`,
    );
    return rows(tenant);
  }

  async function user(tenant: TestTenant, customer: Customer): Promise<{ available_points: number; lifetime_points: number }> {
    const res = await api(app, tenant).get(`/users/${customer.id}`).expect(200);
    return res.body.user;
  }

  async function points(tenant: TestTenant, customer: Customer): Promise<{ available: number; lifetime: number }> {
    const u = await user(tenant, customer);
    return { available: u.available_points, lifetime: u.lifetime_points };
  }

  async function timeline(tenant: TestTenant, customer: Customer) {
    const res = await api(app, tenant).get(`/users/${customer.id}/timeline?limit=100`).expect(200);
    return res.body as {
      total: number;
      events: Array<{ name: string; occurred_at: string; division_id: number | null; status: string; reason: string | null; points_earned: number; source: string }>;
    };
  }

  async function secondApiKey(tenant: TestTenant): Promise<TestTenant> {
    const res = await request(app.getHttpServer())
      .post(`/admin/v1/organizations/${tenant.organizationId}/applications`)
      .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
      .send({ application: { name: 'POS' } })
      .expect(201);
    return { ...tenant, apiKey: res.body.api_key, apiSecret: res.body.api_secret };
  }

  /** A tenant with a live campaign: `visit` earns 10 points each; 5 `step` (by counts) earn 50. */
  async function loyaltyTenant(organization: { multi_org_enabled?: boolean } = {}): Promise<TestTenant> {
    const tenant = await createTenant(app, organization);
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Visit', event: 'visit', event_count: 1, points: 10 });
    await createBehavior(app, tenant, campaign.id, { name: 'Five steps', event: 'step', event_count: 5, points: 50 });
    return tenant;
  }

  // ---------------------------------------------------------------------------------------------------------------
  describe('accepted requests', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await loyaltyTenant();
    });

    it('one event object: 200 {"status":"ok"}, stored from v2 before the answer, then processed and credited by the worker', async () => {
      const customer = await createCustomer(app, tenant);
      await beforeProcessing(async () => {
        const res = await send(tenant, { events: { name: 'visit', user_id: customer.id } });
        expect(res.status).toBe(200);
        expect(res.text).toBe('{"status":"ok"}');
        // Right after the answer: already in PostgreSQL, pending.
        const stored = (await rows(tenant)).filter((r) => r.customer_id === customer.id);
        expect(stored).toEqual([expect.objectContaining({ name: 'visit', source: 'v2', count: '1', customer_id: customer.id, status: 'pending' })]);
      });

      const done = (await settled(tenant, await countRows(tenant))).filter((r) => r.customer_id === customer.id);
      expect(done).toEqual([expect.objectContaining({ status: 'processed', points_earned: 10 })]);
      expect(await points(tenant, customer)).toEqual({ available: 10, lifetime: 10 });
      const { events } = await timeline(tenant, customer);
      expect(events).toEqual([expect.objectContaining({ name: 'visit', status: 'processed', points_earned: 10, source: 'v2' })]);
    });

    it('an array of events: 200 {"status":"ok"}, every event stored before the answer, then all processed', async () => {
      const t = await loyaltyTenant();
      const a = await createCustomer(app, t);
      const b = await createCustomer(app, t);
      await beforeProcessing(async () => {
        const res = await send(t, {
          events: [
            { name: 'visit', user_id: a.id },
            { name: 'visit', external_id: b.external_id },
            { name: 'visit', user_id: a.id },
          ],
        });
        expect(res.status).toBe(200);
        expect(res.text).toBe('{"status":"ok"}');
        expect((await rows(t)).map((r) => [r.customer_id, r.source, r.status])).toEqual([
          [a.id, 'v2', 'pending'],
          [b.id, 'v2', 'pending'],
          [a.id, 'v2', 'pending'],
        ]);
      });

      const done = await settled(t, 3);
      expect(done.map((r) => r.status)).toEqual(['processed', 'processed', 'processed']);
      expect(await points(t, a)).toEqual({ available: 20, lifetime: 20 });
      expect(await points(t, b)).toEqual({ available: 10, lifetime: 10 });
    });

    it('several customers in one batch, by user_id and by external_id, are each credited exactly', async () => {
      const t = await loyaltyTenant();
      const customers = await Promise.all(Array.from({ length: 4 }, () => createCustomer(app, t)));
      // Customer i gets i + 1 visits, interleaved, half by user_id and half by external_id.
      const events: Array<Record<string, unknown>> = [];
      for (let round = 0; round < 4; round += 1) {
        customers.forEach((c, i) => {
          if (round <= i) events.push(round % 2 === 0 ? { name: 'visit', user_id: c.id } : { name: 'visit', external_id: c.external_id });
        });
      }
      await sendOk(t, { events });
      const done = await settled(t, 10);
      expect(done.every((r) => r.status === 'processed')).toBe(true);
      for (const [i, c] of customers.entries()) {
        expect({ customer: i, ...(await points(t, c)) }).toEqual({ customer: i, available: 10 * (i + 1), lifetime: 10 * (i + 1) });
        expect((await timeline(t, c)).total).toBe(i + 1);
      }
    });

    it('by as a number and as a numeric string counts that many (default 1)', async () => {
      const t = await loyaltyTenant();
      const done = await createCustomer(app, t);
      const partial = await createCustomer(app, t);
      const defaulted = await createCustomer(app, t);
      await sendOk(t, {
        events: [
          { name: 'step', user_id: done.id, by: 2 },
          { name: 'step', user_id: done.id, by: '3' },
          { name: 'step', user_id: partial.id, by: '4' },
          { name: 'step', user_id: defaulted.id },
        ],
      });
      const stored = await settled(t, 4);
      expect(stored.map((r) => Number(r.count))).toEqual([2, 3, 4, 1]);
      expect(await points(t, done)).toEqual({ available: 50, lifetime: 50 });
      const progress = async (c: Customer) => {
        const res = await api(app, t).get(`/users/${c.id}/events`).expect(200);
        return res.body.behaviors['Five steps'].goals.step.progress.current_count as number;
      };
      expect(await progress(partial)).toBe(4);
      expect(await progress(defaulted)).toBe(1);
      expect(await points(t, partial)).toEqual({ available: 0, lifetime: 0 });
    });

    it('occurred_at is honoured (any accepted datetime form), and defaults to the time of the request', async () => {
      const customer = await createCustomer(app, tenant);
      const before = Date.now();
      await sendOk(tenant, {
        events: [
          { name: 'visit', user_id: customer.id, occurred_at: '2026-01-06T10:00:00Z' },
          { name: 'visit', user_id: customer.id, occurred_at: '2026-01-05 10:00:00 +0200' },
          { name: 'visit', user_id: customer.id, occurred_at: '2026-01-07T10:00:00.000+02:00' },
          { name: 'later', user_id: customer.id },
        ],
      });
      const after = Date.now();
      await settled(tenant, await countRows(tenant));
      const { events } = await timeline(tenant, customer);
      expect(events.map((e) => e.name)).toEqual(['later', 'visit', 'visit', 'visit']);
      expect(events.slice(1).map((e) => e.occurred_at)).toEqual(['2026-01-07T08:00:00.000Z', '2026-01-06T10:00:00.000Z', '2026-01-05T08:00:00.000Z']);
      const now = Date.parse(events[0].occurred_at);
      expect(now).toBeGreaterThanOrEqual(before - 1000);
      expect(now).toBeLessThanOrEqual(after + 1000);
      expect(events.every((e) => e.status === 'processed')).toBe(true);
    });

    it('1,000 events in one request are accepted and all processed', async () => {
      const t = await loyaltyTenant();
      const customer = await createCustomer(app, t);
      await sendOk(t, { events: Array.from({ length: 1000 }, () => ({ name: 'visit', external_id: customer.external_id })) });
      expect(await countRows(t)).toBe(1000);
      const done = await settled(t, 1000);
      expect(done.every((r) => r.status === 'processed')).toBe(true);
      expect(await points(t, customer)).toEqual({ available: 10_000, lifetime: 10_000 });
    });

    it('V1 async=true events are processed by the worker: processed and credited', async () => {
      const t = await loyaltyTenant();
      const customer = await createCustomer(app, t);
      const res = await api(app, t)
        .post(`/users/${customer.id}/events?async=true`)
        .send({ events: { visit: [{ store: 'a' }, { store: 'b' }] } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
      const done = await settled(t, 2);
      expect(done.map((r) => [r.source, r.status, r.points_earned])).toEqual([
        ['v1_async', 'processed', 10],
        ['v1_async', 'processed', 10],
      ]);
      expect(await points(t, customer)).toEqual({ available: 20, lifetime: 20 });
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('rejected requests store nothing', () => {
    let tenant: TestTenant;
    let customer: Customer;

    beforeAll(async () => {
      tenant = await loyaltyTenant();
      customer = await createCustomer(app, tenant);
    });

    /** Sends `body`, expects the error and no new event row; answers the detail fields. */
    async function rejects(body: unknown, status: number, code: string): Promise<{ fields: string[]; message: string }> {
      const before = await countRows(tenant);
      const res = await send(tenant, body);
      const fields = expectError(res, status, code);
      expect(await countRows(tenant)).toBe(before);
      return { fields, message: res.body.errors.message };
    }

    const valid = () => ({ name: 'visit', user_id: customer.id });

    it('no body → 400 missing_data', async () => {
      const before = await countRows(tenant);
      expectError(await send(tenant), 400, 'missing_data');
      expect(await countRows(tenant)).toBe(before);
    });

    it.each([
      ['an empty object', {}],
      ['events null', { events: null }],
      ['an empty events array', { events: [] }],
    ])('%s → 400 missing_data saying events are missing', async (_label, body) => {
      const { message } = await rejects(body, 400, 'missing_data');
      expect(message).toMatch(/event/);
    });

    it.each<[string, string, Record<string, unknown>]>([
      ['without name', 'name', { user_id: UNKNOWN_UUID }],
      ['with an empty name', 'name', { name: '', user_id: UNKNOWN_UUID }],
      ['without user_id and external_id', 'user_id', { name: 'visit' }],
      ['with a user_id that is not a UUID', 'user_id', { name: 'visit', user_id: 'abc' }],
      ['with a numeric external_id', 'external_id', { name: 'visit', external_id: 12 }],
      ['with by not a number', 'by', { name: 'visit', user_id: UNKNOWN_UUID, by: 'three' }],
      ['with by zero', 'by', { name: 'visit', user_id: UNKNOWN_UUID, by: 0 }],
      ['with a negative by', 'by', { name: 'visit', user_id: UNKNOWN_UUID, by: -2 }],
      ['with by an object', 'by', { name: 'visit', user_id: UNKNOWN_UUID, by: { n: 1 } }],
      ['with occurred_at not a datetime', 'occurred_at', { name: 'visit', user_id: UNKNOWN_UUID, occurred_at: 'yesterday' }],
      ['with occurred_at on a date that does not exist', 'occurred_at', { name: 'visit', user_id: UNKNOWN_UUID, occurred_at: '2026-02-30T10:00:00Z' }],
      ['with occurred_at a number', 'occurred_at', { name: 'visit', user_id: UNKNOWN_UUID, occurred_at: 1767607200000 }],
      ['with a numeric transaction_id', 'transaction_id', { name: 'visit', user_id: UNKNOWN_UUID, transaction_id: 42 }],
      ['with a nested context', 'context', { name: 'visit', user_id: UNKNOWN_UUID, context: { app_name: 'web', device: { os: 'ios' } } }],
      ['with an array in context', 'context', { name: 'visit', user_id: UNKNOWN_UUID, context: { tags: ['a'] } }],
      ['with a context that is not an object', 'context', { name: 'visit', user_id: UNKNOWN_UUID, context: 'web' }],
    ])('an event %s, after a valid one → 400 missing_data naming events[1].%s, nothing stored', async (_label, field, event) => {
      const { fields, message } = await rejects({ events: [valid(), event] }, 400, 'missing_data');
      expect(fields).toEqual([`events[1].${field}`]);
      expect(message).toContain(`events[1].${field}`);
    });

    it('a missing customer id says user_id or external_id is missing', async () => {
      const { message } = await rejects({ events: { name: 'visit' } }, 400, 'missing_data');
      expect(message).toMatch(/user_id/);
      expect(message).toMatch(/external_id/);
    });

    it('a single invalid event object (not in an array) is events[0]', async () => {
      const { fields } = await rejects({ events: { name: 'visit', user_id: 'nope' } }, 400, 'missing_data');
      expect(fields).toEqual(['events[0].user_id']);
    });

    it('every invalid event is named at once', async () => {
      const { fields } = await rejects({ events: [{ user_id: customer.id }, valid(), { name: 'visit', user_id: customer.id, by: 'x' }, 'visit'] }, 400, 'missing_data');
      expect(fields).toEqual(['events[0].name', 'events[2].by', 'events[3]']);
    });

    it.each<[string, () => unknown, string[]]>([
      ['an unknown member of an event', () => ({ events: [valid(), { name: 'visit', user_id: UNKNOWN_UUID, points: 5 }] }), ['events[1].points']],
      ['an unknown top-level member', () => ({ events: [valid()], user_id: UNKNOWN_UUID }), ['user_id']],
    ])('%s → 400 argument_error naming it, nothing stored', async (_label, body, expected) => {
      const { fields } = await rejects(body(), 400, 'argument_error');
      expect(fields).toEqual(expected);
    });

    it('1,001 events → 413 payload_too_large, nothing stored', async () => {
      const { message } = await rejects({ events: Array.from({ length: 1001 }, () => valid()) }, 413, 'payload_too_large');
      expect(message).toMatch(/1,?000/);
    });

    it('malformed JSON → 400 invalid_json, nothing stored', async () => {
      const before = await countRows(tenant);
      const res = await send(tenant).set('Content-Type', 'application/json').send('{"events": [');
      expectError(res, 400, 'invalid_json');
      expect(await countRows(tenant)).toBe(before);
    });

    it('wrong credentials → 401 unauthorized, nothing stored', async () => {
      const before = await countRows(tenant);
      const res = await request(app.getHttpServer())
        .post(`/priv/v2/apps/${tenant.apiKey}/events`)
        .auth(tenant.apiKey, 'wrong-secret')
        .send({ events: [valid()] });
      expectError(res, 401, 'unauthorized');
      expect(await countRows(tenant)).toBe(before);
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('transaction_id', () => {
    it('repeated in one batch: accepted, stored and processed once', async () => {
      const t = await loyaltyTenant();
      const customer = await createCustomer(app, t);
      const id = uniq('tx');
      await sendOk(t, {
        events: [
          { name: 'visit', user_id: customer.id, transaction_id: id },
          { name: 'visit', user_id: customer.id, transaction_id: id },
          { name: 'visit', external_id: customer.external_id, transaction_id: id },
          { name: 'visit', user_id: customer.id, transaction_id: uniq('tx') },
        ],
      });
      const done = await settled(t, 2);
      expect(done.filter((r) => r.transaction_id === id)).toHaveLength(1);
      expect(done.every((r) => r.status === 'processed')).toBe(true);
      expect(await points(t, customer)).toEqual({ available: 20, lifetime: 20 });
    });

    it('repeated across batches under one api key: accepted and ignored (points once)', async () => {
      const t = await loyaltyTenant();
      const customer = await createCustomer(app, t);
      const id = uniq('tx');
      await sendOk(t, { events: { name: 'visit', user_id: customer.id, transaction_id: id } });
      await settled(t, 1);
      expect(await points(t, customer)).toEqual({ available: 10, lifetime: 10 });

      await sendOk(t, { events: [{ name: 'visit', user_id: customer.id, transaction_id: id }] });
      await sendOk(t, { events: [{ name: 'visit', external_id: customer.external_id, transaction_id: id }] });
      expect(await countRows(t)).toBe(1);
      // A marker event sent afterwards: once it is processed, any stray processing of the repeats would show.
      await sendOk(t, { events: { name: 'visit', user_id: customer.id, transaction_id: uniq('marker') } });
      const done = await settled(t, 2);
      expect(done.filter((r) => r.transaction_id === id)).toHaveLength(1);
      expect(await points(t, customer)).toEqual({ available: 20, lifetime: 20 });
    });

    it('a transaction_id used by V1 under the same api key is ignored in V2', async () => {
      const t = await loyaltyTenant();
      const customer = await createCustomer(app, t);
      const id = uniq('tx');
      await api(app, t).post(`/users/${customer.id}/events`).send({ events: { visit: 1 }, transaction_id: id }).expect(200);
      await sendOk(t, { events: { name: 'visit', user_id: customer.id, transaction_id: id } });
      expect(await countRows(t)).toBe(1);
      await sendOk(t, { events: { name: 'visit', user_id: customer.id } });
      await settled(t, 2);
      expect(await points(t, customer)).toEqual({ available: 20, lifetime: 20 });
    });

    it('the same id under another api key of the organization is processed again', async () => {
      const t = await loyaltyTenant();
      const pos = await secondApiKey(t);
      const customer = await createCustomer(app, t);
      const id = uniq('tx');
      await sendOk(t, { events: { name: 'visit', user_id: customer.id, transaction_id: id } });
      await sendOk(pos, { events: { name: 'visit', user_id: customer.id, transaction_id: id } });
      const done = await settled(t, 2);
      expect(done.map((r) => [r.transaction_id, r.status])).toEqual([
        [id, 'processed'],
        [id, 'processed'],
      ]);
      expect(new Set(done.map((r) => r.api_key_id)).size).toBe(2);
      expect(await points(t, customer)).toEqual({ available: 20, lifetime: 20 });
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('unknown customers', () => {
    it('are stored, then rejected with reason customer_not_found once, never retried; known ones in the batch are processed', async () => {
      const t = await loyaltyTenant();
      const known = await createCustomer(app, t);
      const ghost = uniq('ghost');
      const stranger = await createCustomer(app, await createTenant(app)); // a customer of another organization
      await sendOk(t, {
        events: [
          { name: 'visit', external_id: ghost },
          { name: 'visit', user_id: UNKNOWN_UUID },
          { name: 'visit', user_id: known.id },
          { name: 'visit', user_id: stranger.id },
        ],
      });
      const stored = await rows(t);
      expect(stored.map((r) => [r.user_ref, r.customer_id])).toEqual([
        [ghost, null],
        [UNKNOWN_UUID, null],
        [known.id, known.id],
        [stranger.id, null],
      ]);

      const done = await settled(t, 4);
      expect(done.map((r) => [r.user_ref, r.status, r.reason])).toEqual([
        [ghost, 'rejected', 'customer_not_found'],
        [UNKNOWN_UUID, 'rejected', 'customer_not_found'],
        [known.id, 'processed', null],
        [stranger.id, 'rejected', 'customer_not_found'],
      ]);
      expect(await points(t, known)).toEqual({ available: 10, lifetime: 10 });

      // Never retried: each rejected event was attempted once and its job finished (removed on completion), neither
      // failed nor waiting for a retry.
      const queue = app.get<Queue>(getQueueToken(QueueName.Events));
      const rejected = done.filter((r) => r.status === 'rejected');
      for (const row of rejected) {
        await waitFor(async () => (await queue.getJobState(`v2-${row.id}`)) !== 'active', SETTLE_MS, `the job of event ${row.id} to finish`);
        expect(await queue.getJobState(`v2-${row.id}`)).toBe('unknown');
      }
      const again = await rows(t);
      expect(again.filter((r) => r.status === 'rejected').map((r) => r.attempts)).toEqual([1, 1, 1]);
      const failed = await queue.getFailed();
      const ids = new Set(rejected.map((r) => r.id));
      expect(failed.filter((job) => (job.data as { eventIds: string[] }).eventIds.some((id) => ids.has(id)))).toEqual([]);
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('multi-org', () => {
    let tenant: TestTenant;
    let child: number;
    let customer: Customer;

    beforeAll(async () => {
      tenant = await loyaltyTenant({ multi_org_enabled: true });
      const res = await api(app, tenant).post('/management/divisions').send({ division: { name: 'North', parent_id: tenant.rootDivisionId } });
      expect(res.status).toBe(201);
      child = res.body.division.id;
      customer = await createCustomer(app, tenant);
    });

    it.each<[string, () => Promise<string>]>([
      ['a division id that is not an id', async () => 'north'],
      ['an unknown division id', async () => '999999999'],
      ['a division of another organization', async () => String((await createTenant(app, { multi_org_enabled: true })).rootDivisionId)],
    ])('%s → 400 missing_data naming events[i].context.division_id, nothing stored', async (_label, divisionOf) => {
      const division = await divisionOf();
      const before = await countRows(tenant);
      const res = await send(tenant, {
        events: [
          { name: 'visit', user_id: customer.id, context: { division_id: String(child) } },
          { name: 'visit', user_id: customer.id, context: { division_id: division } },
        ],
      });
      expect(expectError(res, 400, 'missing_data')).toEqual(['events[1].context.division_id']);
      expect(await countRows(tenant)).toBe(before);
    });

    it('a valid division id is stored on the event (root when absent); an event outside the customer division earns nothing', async () => {
      const c = await createCustomer(app, tenant);
      await sendOk(tenant, {
        events: [
          { name: 'visit', user_id: c.id, context: { division_id: String(child), app_name: 'web' }, occurred_at: '2026-01-05T10:00:00Z' },
          { name: 'visit', user_id: c.id, context: { division_id: child }, occurred_at: '2026-01-06T10:00:00Z' },
          { name: 'visit', user_id: c.id, occurred_at: '2026-01-07T10:00:00Z' },
        ],
      });
      const stored = (await rows(tenant)).filter((r) => r.customer_id === c.id);
      expect(stored.map((r) => r.division_id)).toEqual([child, child, tenant.rootDivisionId]);
      await settled(tenant, await countRows(tenant));
      const { events } = await timeline(tenant, c);
      expect(events.map((e) => [e.occurred_at, e.division_id, e.status, e.points_earned])).toEqual([
        ['2026-01-07T10:00:00.000Z', tenant.rootDivisionId, 'processed', 10],
        ['2026-01-06T10:00:00.000Z', child, 'processed', 0],
        ['2026-01-05T10:00:00.000Z', child, 'processed', 0],
      ]);
      expect(await points(tenant, c)).toEqual({ available: 10, lifetime: 10 });
    });

    it('with multi-org disabled, division_id is ignored: accepted, credited, no division stored', async () => {
      const t = await loyaltyTenant();
      const c = await createCustomer(app, t);
      await sendOk(t, { events: { name: 'visit', user_id: c.id, context: { division_id: '999999999' } } });
      const done = await settled(t, 1);
      expect(done.map((r) => [r.status, r.division_id])).toEqual([['processed', null]]);
      expect(await points(t, c)).toEqual({ available: 10, lifetime: 10 });
    });
  });
});
