import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectErrorSorted as expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';

type Customer = Awaited<ReturnType<typeof createCustomer>>;
let seq = 0;
const tx = () => `order-${++seq}-${Date.now().toString(36)}`;

describe('reversals (contract §13)', () => {
  const prefix = ownQueuePrefix('reversals');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let db: DataSource;

  /** A tenant whose behavior `Buyer` credits 50 points per purchase (capped at `cap` completions when given). */
  async function buyingTenant(cap: number | null = null) {
    const tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Buyer', event: 'purchase', event_count: 1, points: 50, data: cap === null ? {} : { max_times_achievable: cap } });
    return tenant;
  }
  const purchase = (tenant: TestTenant, customer: Customer, transactionId?: string, events: unknown = { purchase: 1 }) =>
    api(app, tenant).post(`/users/${customer.id}/events`).send({ events, ...(transactionId ? { transaction_id: transactionId } : {}) });
  const reverse = (tenant: TestTenant, customer: Customer, reversal: Record<string, unknown>) => api(app, tenant).post(`/users/${customer.id}/events/reversals`).send({ reversal });
  const achieved = async (tenant: TestTenant, customer: Customer) => (await api(app, tenant).get(`/users/${customer.id}/events`).expect(200)).body.behaviors.Buyer.achieved;
  const points = async (tenant: TestTenant, customer: Customer) => (await api(app, tenant).get(`/users/${customer.id}/points?limit=100`).expect(200)).body;

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix, webhookAllowPrivateNetworks: true });
    worker = await startTestWorker({ queuePrefix: prefix, webhookAllowPrivateNetworks: true, workerQueues: ['events', 'webhooks'] });
    db = app.get(DataSource);
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  it('takes back the points of every instance of a V1 submission and undoes its completions, in one answer', async () => {
    const tenant = await buyingTenant();
    const customer = await createCustomer(app, tenant);
    const order = tx();
    await purchase(tenant, customer, order, { purchase: [{}, {}] }).expect(200);
    await purchase(tenant, customer, tx()).expect(200);
    expect(await achieved(tenant, customer)).toBe(3);

    const res = await reverse(tenant, customer, { transaction_id: order, reason: 'Refund' }).expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      reversal: { id: expect.any(String), transaction_id: order, events: 2, points: 100, achievements: 2 },
      user: { available_points: 50, lifetime_points: 50, tier: null },
    });
    expect(await achieved(tenant, customer)).toBe(1);
    const ledger = await points(tenant, customer);
    expect(ledger.entries[0]).toEqual(expect.objectContaining({ amount: -100, reason: 'reversal', event_id: null }));
    expect(ledger).toEqual(expect.objectContaining({ available_points: 50, lifetime_points: 50, total: 4 }));
    // By external_id too; a second reversal is refused.
    const again = await api(app, tenant).post(`/external/users/${customer.external_id}/events/reversals`).send({ reversal: { transaction_id: order } });
    expectError(again, 409, 'already_reversed');
  });

  it('frees room under the total cap: the behavior completes again after its completion is reversed', async () => {
    const tenant = await buyingTenant(1);
    const customer = await createCustomer(app, tenant);
    const first = tx();
    await purchase(tenant, customer, first).expect(200);
    const capped = await purchase(tenant, customer, tx()).expect(200);
    expect(capped.body.state).toBe('reached_frequency_cap');
    await reverse(tenant, customer, { transaction_id: first }).expect(200);
    const again = await purchase(tenant, customer, tx()).expect(200);
    expect(again.body.state).toBe('qualified');
    expect((await points(tenant, customer)).available_points).toBe(50);
    expect(await achieved(tenant, customer)).toBe(1);
  });

  it('takes back no more than is available when points were spent, and lifetime_points by what was credited', async () => {
    const tenant = await buyingTenant();
    const customer = await createCustomer(app, tenant);
    const order = tx();
    await purchase(tenant, customer, order).expect(200);
    await api(app, tenant).post(`/users/${customer.id}/points/debits`).send({ debit: { points: 40 } }).expect(201);
    const res = await reverse(tenant, customer, { transaction_id: order }).expect(200);
    expect(res.body.reversal).toEqual(expect.objectContaining({ points: 10, achievements: 1 }));
    expect(res.body.user).toEqual({ available_points: 0, lifetime_points: 0, tier: null });
  });

  it('answers 404 not_found for an unknown transaction_id, one of another customer, and one of another organization', async () => {
    const tenant = await buyingTenant();
    const customer = await createCustomer(app, tenant);
    const other = await createCustomer(app, tenant);
    const order = tx();
    await purchase(tenant, customer, order).expect(200);
    expectError(await reverse(tenant, customer, { transaction_id: 'never-sent' }), 404, 'not_found');
    expectError(await reverse(tenant, other, { transaction_id: order }), 404, 'not_found');
    const stranger = await createTenant(app);
    const theirs = await createCustomer(app, stranger);
    expectError(await reverse(stranger, theirs, { transaction_id: order }), 404, 'not_found');
    expectError(await api(app, stranger).post(`/users/${customer.id}/events/reversals`).send({ reversal: { transaction_id: order } }), 404, 'not_found');
    expectError(await reverse(tenant, customer, {}), 400, 'missing_data');
    expectError(await reverse(tenant, customer, { transaction_id: order, refund: true }), 400, 'argument_error');
    expect((await points(tenant, customer)).available_points).toBe(50);
  });

  it('reverses a V2 event once the worker has processed it, and answers 409 not_processed_yet while it waits', async () => {
    const tenant = await buyingTenant();
    const customer = await createCustomer(app, tenant);
    const order = tx();
    await request(app.getHttpServer())
      .post(`/priv/v2/apps/${tenant.apiKey}/events`)
      .auth(tenant.apiKey, tenant.apiSecret)
      .send({ events: [{ name: 'purchase', user_id: customer.id, transaction_id: order }] })
      .expect(200);
    await waitFor(async () => (await points(tenant, customer)).available_points === 50, 30_000, 'the V2 event processed');
    const res = await reverse(tenant, customer, { transaction_id: order }).expect(200);
    expect(res.body.reversal).toEqual(expect.objectContaining({ events: 1, points: 50, achievements: 1 }));

    // An app whose queue no worker reads: its async submission stays pending.
    const idlePrefix = ownQueuePrefix('reversals-idle');
    const idle = await createTestApp({ queuePrefix: idlePrefix });
    try {
      const waiting = tx();
      await request(idle.getHttpServer())
        .post(`/priv/v1/apps/${tenant.apiKey}/users/${customer.id}/events?async=true`)
        .auth(tenant.apiKey, tenant.apiSecret)
        .send({ events: { purchase: 1 }, transaction_id: waiting })
        .expect(200);
      expectError(await reverse(tenant, customer, { transaction_id: waiting }), 409, 'not_processed_yet');
    } finally {
      await idle.close();
      await deleteQueueKeys(idlePrefix);
    }
  });

  it('undoes the points and completions of the event outcomes a submission raised', async () => {
    const tenant = await buyingTenant();
    const campaign = await createCampaign(app, tenant);
    const behavior = (name: string, event: string, pointsEach: number, outcome?: string) => ({
      name,
      points: pointsEach,
      data: {},
      goal_groups: [{ goals: [{ achievement: { name: event } }] }],
      ...(outcome ? { outcome_config: [{ event: { name: outcome } }] } : {}),
    });
    const behaviors = [behavior('Reviewer', 'review', 10, 'bonus'), behavior('Bonus', 'bonus', 5)];
    await api(app, tenant).post(`/management/campaigns/${campaign.id}/behaviors/_batch`).send({ behaviors }).expect(201);
    const customer = await createCustomer(app, tenant);
    const order = tx();
    const earned = await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { review: 1 }, transaction_id: order }).expect(200);
    expect(earned.body.available_points).toBe(15);
    const res = await reverse(tenant, customer, { transaction_id: order }).expect(200);
    expect(res.body.reversal).toEqual(expect.objectContaining({ events: 1, points: 15, achievements: 2 }));
    const after = (await api(app, tenant).get(`/users/${customer.id}/events`).expect(200)).body.behaviors;
    expect([after.Reviewer.achieved, after.Bonus.achieved]).toEqual([0, 0]);
  });

  it('writes a points.debited and a points.reversed webhook delivery with the customer, the points and the balances', async () => {
    const tenant = await buyingTenant();
    await api(app, tenant).post('/management/webhooks').send({ webhook: { url: 'http://127.0.0.1:9/hook', event_types: ['points.debited', 'points.reversed'] } }).expect(201);
    const customer = await createCustomer(app, tenant);
    const order = tx();
    await purchase(tenant, customer, order).expect(200);
    await api(app, tenant).post(`/users/${customer.id}/points/debits`).send({ debit: { points: 20, reason: 'Coffee' } }).expect(201);
    await reverse(tenant, customer, { transaction_id: order, reason: 'Refund' }).expect(200);
    const rows = await db.query(`SELECT type, payload FROM webhook_deliveries WHERE organization_id = $1 ORDER BY id`, [tenant.organizationId]);
    const who = { user_id: customer.id, external_id: customer.external_id };
    expect(rows.map((r: { type: string; payload: { data: unknown } }) => [r.type, r.payload.data])).toEqual([
      ['points.debited', expect.objectContaining({ ...who, points: 20, reason: 'debit', description: 'Coffee', available_points: 30, lifetime_points: 50 })],
      ['points.reversed', expect.objectContaining({ ...who, points: 30, reason: 'reversal', transaction_id: order, description: 'Refund', achievements: 1, available_points: 0, lifetime_points: 0 })],
    ]);
  });

  it('serializes with evaluations of the same customer: a reversal racing new purchases loses nothing', async () => {
    const tenant = await buyingTenant();
    const customer = await createCustomer(app, tenant);
    const order = tx();
    await purchase(tenant, customer, order).expect(200);
    const answers = await Promise.all([reverse(tenant, customer, { transaction_id: order }), ...Array.from({ length: 4 }, () => purchase(tenant, customer, tx()))]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const ledger = await points(tenant, customer);
    expect(ledger).toEqual(expect.objectContaining({ available_points: 200, lifetime_points: 200 }));
    expect(await achieved(tenant, customer)).toBe(4);
  });
});
