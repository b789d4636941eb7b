import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { PERSONAL_DATA } from '../src/database/personal-data.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createBehaviors } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createTriggeredCreative } from './factories/creative.factory.js';

/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 60_000;
jest.setTimeout(3 * SETTLE_MS);

const DAY = 86_400_000;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Tables the erasure deletes the customer's rows from, with the column that names the customer. */
const ERASED_TABLES = Object.entries(PERSONAL_DATA)
  .filter(([, t]) => t.handling === 'erased' && t.columns.includes('customer_id'))
  .map(([name]) => name);

/**
 * Contract §21 end to end: a customer with events of several months, points, an offer, notifications, a tier, an
 * experiment group, webhook deliveries, a simulation's explanations and an audience file is exported whole, then
 * erased: answered 404 everywhere at once, their external id free, and, once the worker has finished, nothing of
 * theirs left in any table or file, while what names no one (counts, budgets, totals) stays.
 */
describe('customer data rights (contract §21)', () => {
  const prefix = ownQueuePrefix('data-rights');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let db: DataSource;
  let storageDir: string;
  let tenant: TestTenant;
  let campaignId: number;
  let creativeId: number;
  let customer: Json;
  let other: Json;
  let simulationId: number;
  let audienceJobId: number;

  const v1 = (userId: string, body: Json) => api(app, tenant).post(`/users/${userId}/events`).send(body);
  const count = async (sql: string, values: unknown[]) => Number((await db.query(sql, values))[0].n);

  beforeAll(async () => {
    // Its own database: the erasure worker of every other file would otherwise take this file's erasures (and look
    // for audience files in its own storage directory).
    await useOwnDatabase('data_rights');
    storageDir = await mkdtemp(join(tmpdir(), 'data-rights-'));
    app = await createTestApp({ queuePrefix: prefix, storageDir });
    worker = await startTestWorker({ queuePrefix: prefix, storageDir, workerQueues: ['events', 'simulations', 'audience-jobs'] });
    db = app.get(DataSource);
    tenant = await createTenant(app);
    await api(app, tenant).post('/management/tiers').send({ tier: { name: 'Silver', min_points: 10 } }).expect(201);
    const offer = (await api(app, tenant).post('/management/offers').send({ offer: { name: 'Free coffee', points: 0 } }).expect(201)).body.offer;
    // Webhooks are not delivered here (no webhooks worker): every delivery stays pending until the erasure cancels it.
    await api(app, tenant).post('/management/webhooks').send({ webhook: { url: 'https://hooks.example.com/loyalty', event_types: ['points.credited', 'notification.created', 'user.erased'] } }).expect(201);
    const campaign = await createCampaign(app, tenant, { experiment: { holdout_percent: 0, variants: [{ name: 'A', weight: 1 }], metric: { event: 'visit' } } });
    campaignId = campaign.id;
    const [visit] = await createBehaviors(app, tenant, campaign.id, [
      { name: 'Visit', event: 'visit', points: 10, data: { max_times_repeatable: 1_000 }, outcomes: [{ deal: { id: offer.id } }] },
    ]);
    await createTriggeredCreative(app, tenant, campaign.id, visit.id, { message: 'Thanks for the visit' });
    // A V2 event sent before the customer existed: stored rejected (customer_not_found) under their external id.
    await request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret)
      .send({ events: { name: 'visit', external_id: 'erase-me', context: { app_name: 'kiosk' } } }).expect(200);
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM events WHERE user_ref = 'erase-me' AND status = 'rejected'`, [])) === 1, SETTLE_MS, 'the rejection');
    customer = await createCustomer(app, tenant, { external_id: 'erase-me', tags: ['vip'], attributes: { email_hash: 'abc123' } });
    other = await createCustomer(app, tenant, { external_id: 'keep-me' });
    // Events of three months (the log's partitions), one with a transaction id.
    for (const [i, daysAgo] of [40, 10, 0].entries()) {
      const occurred_on = new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
      await v1(customer.id, { events: { visit: { store_id: `s-${i}`, occurred_on, context: { app_name: 'kiosk' } } } }).expect(200);
    }
    await v1(customer.id, { events: { visit: 1 }, transaction_id: 'till-1' }).expect(200);
    await v1(other.id, { events: { visit: 1 } }).expect(200);

    // A simulation that explains the customer's events, and an audience file that holds them.
    const window = { from: new Date(Date.now() - 60 * DAY).toISOString(), to: new Date(Date.now() + DAY).toISOString() };
    simulationId = (await api(app, tenant).post(`/management/campaigns/${campaignId}/simulations`).send({ simulation: { ...window, customer_ids: [customer.id, other.id], explain: true } }).expect(202)).body.simulation.id;
    creativeId = await audienceFile(new Date(Date.now() + 1_000).toISOString());
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM simulations WHERE id = $1 AND status = 'completed'`, [simulationId])) === 1, SETTLE_MS, 'the simulation');
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM audience_jobs WHERE organization_id = $1 AND status = 'completed'`, [tenant.organizationId])) === 1, SETTLE_MS, 'the audience file');
    [{ id: audienceJobId }] = await db.query(`SELECT id FROM audience_jobs WHERE organization_id = $1`, [tenant.organizationId]);
  });

  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
    if (storageDir) await rm(storageDir, { recursive: true, force: true });
  });

  /** A live campaign, line item, creative group and scheduled audience CSV creative: the file is built at `at`. */
  async function audienceFile(at: string): Promise<number> {
    const { id: campaignId } = await createCampaign(app, tenant);
    const window = { starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
    const lineItem = (await api(app, tenant).post(`/management/campaigns/${campaignId}/line_items`).send({ line_item: { name: 'Files', status: 'live', ...window } }).expect(201)).body;
    const group = (await api(app, tenant).post(`/management/line_items/${lineItem.line_items[0].id}/creative_groups`).send({ creative_group: { name: 'All', status: 'live', ...window } }).expect(201)).body;
    const [application] = await db.query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [tenant.organizationId]);
    const creative = {
      name: 'Weekly file',
      status: 'live',
      ad_type: 'issue_audience_csv',
      creative_type: 'issue-audience-csv',
      application_id: application.id,
      issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: at },
    };
    return (await api(app, tenant).post(`/management/creative_groups/${group.creative_groups[0].id}/creatives`).send({ creative }).expect(201)).body.creatives[0].id;
  }

  const download = async () => (await api(app, tenant).get(`/management/creatives/${creativeId}/audience_jobs/${audienceJobId}/download`).expect(200)).text;

  describe('export', () => {
    it('answers everything stored about the customer, by user_id and by external_id alike', async () => {
      const res = await api(app, tenant).get(`/users/${customer.id}/export`).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const { status, export: exported } = res.body;
      expect(status).toBe('ok');
      expect(exported.user).toEqual((await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user);
      expect(exported.events).toHaveLength(4);
      expect(exported.events[exported.events.length - 1]).toEqual({
        id: expect.stringMatching(/^\d+$/),
        name: 'visit',
        occurred_at: expect.any(String),
        count: 1,
        attributes: { store_id: 's-0', occurred_on: expect.any(String) },
        context: { app_name: 'kiosk' },
        status: 'processed',
      });
      // Newest first, across months.
      const times = exported.events.map((e: Json) => Date.parse(e.occurred_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(exported.points).toHaveLength(4);
      expect(exported.points[0]).toEqual(expect.objectContaining({ amount: 10, reason: 'behavior', campaign_id: campaignId, behavior_name: 'Visit' }));
      expect(exported.behaviors.Visit).toEqual(expect.objectContaining({ event_name: 'visit' }));
      expect(exported.notifications).toHaveLength(4);
      expect(exported.notifications[0]).toEqual(expect.objectContaining({ type: 'push_message', campaign_id: campaignId, behavior_name: 'Visit' }));
      expect(exported.offers).toHaveLength(4);
      expect(exported.offers[0]).toEqual(expect.objectContaining({ name: 'Free coffee', campaign_id: campaignId, event_id: expect.stringMatching(/^\d+$/) }));
      expect(exported.tier_history).toEqual([expect.objectContaining({ from: null, to: { id: expect.any(Number), name: 'Silver' }, reason: 'points' })]);
      expect(exported.experiments).toEqual([expect.objectContaining({ campaign_id: campaignId, group: 'A' })]);
      expect(exported.webhook_deliveries.map((d: Json) => d.event_type).sort()).toEqual([...Array(4).fill('notification.created'), ...Array(4).fill('points.credited')]);
      expect(exported.webhook_deliveries[0]).toEqual({ id: expect.stringMatching(/^\d+$/), event_type: expect.any(String), created_at: expect.any(String), status: 'pending' });

      const byExternal = await api(app, tenant).get('/external/users/erase-me/export').expect(200);
      expect(byExternal.body).toEqual(res.body);
    });

    it('an unknown customer, a malformed id and another organization\'s customer answer not_found', async () => {
      const stranger = await createTenant(app);
      expectError(await api(app, tenant).get('/users/00000000-0000-4000-8000-000000000000/export'), 404, 'not_found');
      expectError(await api(app, tenant).get('/users/nope/export'), 404, 'not_found');
      expectError(await api(app, stranger).get(`/users/${customer.id}/export`), 404, 'not_found');
      expectError(await api(app, stranger).get('/external/users/erase-me/export'), 404, 'not_found');
      expectError(await api(app, stranger).delete(`/users/${customer.id}`), 404, 'not_found');
    });
  });

  describe('erasure', () => {
    let analyticsBefore: Json;
    let experimentBefore: Json;
    let budgetBefore: Json;
    let erasure: Json;

    beforeAll(async () => {
      analyticsBefore = (await api(app, tenant).get(`/management/campaigns/${campaignId}/analytics`).expect(200)).body;
      experimentBefore = (await api(app, tenant).get(`/management/campaigns/${campaignId}/experiment`).expect(200)).body.experiment;
      [budgetBefore] = await db.query(`SELECT budget_completions, budget_points FROM campaigns WHERE id = $1`, [campaignId]);
      expect(await download()).toContain(customer.id);
      const res = await api(app, tenant).delete(`/users/${customer.id}`).expect(200);
      erasure = res.body;
      // Deliveries about them not made yet are cancelled by the answer itself.
      expect(await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE payload #>> '{data,user_id}' = $1 AND status = 'pending' AND type <> 'user.erased'`, [customer.id])).toBe(0);
    });

    it('answers the erasure', () => {
      expect(erasure).toEqual({ status: 'ok', erasure: { user_id: customer.id, erased_at: expect.any(String) } });
      expect(Math.abs(Date.parse(erasure.erasure.erased_at) - Date.now())).toBeLessThan(SETTLE_MS);
    });

    it('from the answer on, every route about the customer answers not_found, a second erasure too', async () => {
      for (const path of ['', '/timeline', '/notifications', '/tier', '/tier/history', '/points', '/export', '/events']) {
        expectError(await api(app, tenant).get(`/users/${customer.id}${path}`), 404, 'not_found');
      }
      for (const path of ['', '/export']) expectError(await api(app, tenant).get(`/external/users/erase-me${path}`), 404, 'not_found');
      expectError(await v1(customer.id, { events: { visit: 1 } }), 404, 'not_found');
      expectError(await api(app, tenant).post(`/users/${customer.id}/points/debits`).send({ debit: { points: 1 } }), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/users/${customer.id}`), 404, 'not_found');
      expectError(await api(app, tenant).delete('/external/users/erase-me'), 404, 'not_found');
    });

    it('frees the external id: a new customer takes it and starts from nothing, but the transaction ids used stay used', async () => {
      const again = await createCustomer(app, tenant, { external_id: 'erase-me' });
      expect(again.id).not.toBe(customer.id);
      const read = (await api(app, tenant).get('/external/users/erase-me').expect(200)).body.user;
      expect(read).toEqual(expect.objectContaining({ id: again.id, tags: [], attributes: {}, available_points: 0, lifetime_points: 0, tier: null, experiments: [] }));
      expect((await api(app, tenant).get(`/users/${again.id}/timeline`).expect(200)).body.total).toBe(0);
      expectError(await v1(again.id, { events: { visit: 1 }, transaction_id: 'till-1' }), 409, 'duplicate_transaction');
    });

    it('records the erasure in the audit log by internal id alone, and sends user.erased', async () => {
      const audit = (await api(app, tenant).get('/management/audit_log').expect(200)).body.audit_log as Json[];
      expect(audit.filter((a) => a.object_type === 'user')).toEqual([expect.objectContaining({ action: 'delete', object_id: customer.id, before: null, after: null })]);
      const [delivery] = await db.query(`SELECT payload FROM webhook_deliveries WHERE organization_id = $1 AND type = 'user.erased'`, [tenant.organizationId]);
      expect(delivery.payload).toEqual({ id: expect.any(String), type: 'user.erased', created_at: erasure.erasure.erased_at, data: { user_id: customer.id, erased_at: erasure.erasure.erased_at } });
    });

    it('leaves nothing of the customer once the worker has finished, and keeps what names no one', async () => {
      await waitFor(async () => (await count(`SELECT count(*) AS n FROM erasures WHERE customer_id = $1 AND done_at IS NOT NULL`, [customer.id])) === 1, SETTLE_MS, 'the erasure');
      for (const table of [...ERASED_TABLES, 'customers', 'campaign_participants', 'campaign_achievers', 'campaign_goal_customers', 'event_reversals']) {
        const column = table === 'customers' ? 'id' : 'customer_id';
        expect({ table, rows: await count(`SELECT count(*) AS n FROM ${table} WHERE ${column} = $1`, [customer.id]) }).toEqual({ table, rows: 0 });
      }
      // Deliveries about them: none left to make, none keeps its data (user.erased names the internal id alone).
      const deliveries: Json[] = await db.query(`SELECT type, status, payload FROM webhook_deliveries WHERE organization_id = $1 AND type <> 'user.erased' AND payload::text LIKE '%' || $2 || '%'`, [
        tenant.organizationId,
        customer.id,
      ]);
      expect(deliveries).toEqual([]);
      // The event rejected under their external id before they existed is gone too.
      expect(await count(`SELECT count(*) AS n FROM events WHERE organization_id = $1 AND customer_id IS NULL`, [tenant.organizationId])).toBe(0);
      expect(await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE organization_id = $1 AND status = 'cancelled'`, [tenant.organizationId])).toBe(8);
      // The simulation keeps its totals, without the customer; the audience file keeps every other line.
      const simulation = (await api(app, tenant).get(`/management/simulations/${simulationId}`).expect(200)).body.simulation;
      expect(Object.keys(simulation.explanations)).toEqual([other.id]);
      expect(await db.query(`SELECT customer_ids FROM simulations WHERE id = $1`, [simulationId])).toEqual([{ customer_ids: [other.id] }]);
      expect(simulation.customers).toBe(2);
      const csv = await download();
      expect(csv).not.toContain(customer.id);
      expect(csv).toContain(other.id);
      // Counts name no one: analytics, the experiment's results and the budget used are as they were.
      expect((await api(app, tenant).get(`/management/campaigns/${campaignId}/analytics`).expect(200)).body).toEqual(analyticsBefore);
      expect((await api(app, tenant).get(`/management/campaigns/${campaignId}/experiment`).expect(200)).body.experiment).toEqual(experimentBefore);
      expect(await db.query(`SELECT budget_completions, budget_points FROM campaigns WHERE id = $1`, [campaignId])).toEqual([budgetBefore]);
      // The other customer is untouched.
      expect((await api(app, tenant).get(`/users/${other.id}`).expect(200)).body.user.lifetime_points).toBe(10);
    });
  });

  it('drops the events of an erased customer still waiting in the queue', async () => {
    const waiting = await createCustomer(app, tenant, { external_id: 'queued' });
    // Stored pending as the async route does, then erased before any worker reaches them.
    await db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, occurred_at, status)
       SELECT $1, id, $2, 'queued', 'v1_async', 'visit', 1, now(), 'pending' FROM api_keys WHERE key = $3`,
      [tenant.organizationId, waiting.id, tenant.apiKey],
    );
    await api(app, tenant).delete('/external/users/queued').expect(200);
    expect(await count(`SELECT count(*) AS n FROM events WHERE customer_id = $1`, [waiting.id])).toBe(0);
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM customers WHERE id = $1`, [waiting.id])) === 0, SETTLE_MS, 'the erasure');
  });
});
