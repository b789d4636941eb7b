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
const tx = () => `budget-order-${++seq}-${Date.now().toString(36)}`;

describe('campaign budgets (contract §14)', () => {
  const prefix = ownQueuePrefix('budgets');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let db: DataSource;

  /** A tenant with a live campaign of this budget whose behavior `Buyer` credits 50 points per purchase. */
  async function budgeted(budget: unknown) {
    const tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant, { budget });
    await createBehavior(app, tenant, campaign.id, { name: 'Buyer', event: 'purchase', event_count: 1, points: 50 });
    return { tenant, campaign };
  }
  const customers = async (tenant: TestTenant, n: number) => Promise.all(Array.from({ length: n }, () => createCustomer(app, tenant)));
  const purchase = (tenant: TestTenant, customer: Customer, transactionId?: string) =>
    api(app, tenant).post(`/users/${customer.id}/events?explain=true`).send({ events: { purchase: 1 }, ...(transactionId ? { transaction_id: transactionId } : {}) });
  const campaignOf = async (tenant: TestTenant, id: number) => (await api(app, tenant).get(`/management/campaigns/${id}`).expect(200)).body.campaign;
  const earned = async (tenant: TestTenant) =>
    (await db.query(`SELECT count(*)::int AS customers, coalesce(sum(available_points), 0)::int AS points FROM customers WHERE organization_id = $1 AND available_points > 0`, [tenant.organizationId]))[0];

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

  describe('management', () => {
    it('creates, shows, changes and removes a budget; budget_used starts at zero', async () => {
      const { tenant, campaign } = await budgeted({ max_completions: 10, max_points: null });
      expect(campaign).toEqual(expect.objectContaining({ budget: { max_completions: 10, max_points: null }, budget_used: { completions: 0, points: 0 } }));
      const body = { name: campaign.name, status: 'live', starts_at: campaign.starts_at, ends_at: campaign.ends_at };
      const put = await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send({ campaign: { ...body, budget: { max_points: 500 } } }).expect(200);
      expect(put.body.campaign.budget).toEqual({ max_completions: null, max_points: 500 });
      // Absent keeps it; null removes it.
      await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send({ campaign: body }).expect(200);
      expect((await campaignOf(tenant, campaign.id)).budget).toEqual({ max_completions: null, max_points: 500 });
      await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send({ campaign: { ...body, budget: null } }).expect(200);
      expect(await campaignOf(tenant, campaign.id)).toEqual(expect.objectContaining({ budget: null, budget_used: { completions: 0, points: 0 } }));
      const plain = await createCampaign(app, tenant);
      expect(plain).toEqual(expect.objectContaining({ budget: null, budget_used: { completions: 0, points: 0 } }));
    });

    it('refuses a negative or fractional limit, an unknown member and a budget that is not an object', async () => {
      const { tenant } = await budgeted(null);
      const post = (budget: unknown) => api(app, tenant).post('/management/campaigns').send({ campaign: { name: `B ${tx()}`, starts_at: '2026-01-01T00:00:00Z', ends_at: '2027-01-01T00:00:00Z', budget } });
      expect(expectError(await post({ max_completions: -1 }), 400, 'validation')).toEqual(['campaign.budget.max_completions']);
      expectError(await post({ max_points: 1.5 }), 400, 'validation');
      expectError(await post({ max_spend: 3 }), 400, 'argument_error');
      expectError(await post([]), 400, 'validation');
    });
  });

  describe('completions', () => {
    it('completes up to max_completions; past it the state is budget_exhausted, nothing is credited, the explanation names the budget', async () => {
      const { tenant, campaign } = await budgeted({ max_completions: 2, max_points: null });
      const [a, b, c] = await customers(tenant, 3);
      expect((await purchase(tenant, a).expect(200)).body.state).toBe('qualified');
      expect((await purchase(tenant, b).expect(200)).body.state).toBe('qualified');
      const refused = await purchase(tenant, c).expect(200);
      expect(refused.body).toEqual(expect.objectContaining({ state: 'budget_exhausted', available_points: 0 }));
      expect(JSON.stringify(refused.body.explanation)).toContain('the campaign budget of 2 completion(s) is used up');
      const retrieved = (await api(app, tenant).get(`/users/${c.id}/events`).expect(200)).body;
      expect(retrieved.behaviors.Buyer.achieved).toBe(0);
      expect((await campaignOf(tenant, campaign.id)).budget_used).toEqual({ completions: 2, points: 100 });
    });

    it('200 parallel completions by 200 customers against max_completions 50 give exactly 50', async () => {
      const { tenant, campaign } = await budgeted({ max_completions: 50 });
      const many = await customers(tenant, 200);
      const answers = await Promise.all(many.map((c) => purchase(tenant, c)));
      expect(answers.every((r) => r.status === 200)).toBe(true);
      expect(answers.filter((r) => r.body.state === 'qualified')).toHaveLength(50);
      expect(answers.filter((r) => r.body.state === 'budget_exhausted')).toHaveLength(150);
      expect(await earned(tenant)).toEqual({ customers: 50, points: 2500 });
      expect((await campaignOf(tenant, campaign.id)).budget_used).toEqual({ completions: 50, points: 2500 });
    });

    it('60 parallel completions against max_points 1000 credit exactly 1000 points', async () => {
      const { tenant, campaign } = await budgeted({ max_points: 1000 });
      const many = await customers(tenant, 60);
      await Promise.all(many.map((c) => purchase(tenant, c).expect(200)));
      expect(await earned(tenant)).toEqual({ customers: 20, points: 1000 });
      expect((await campaignOf(tenant, campaign.id)).budget_used).toEqual({ completions: 20, points: 1000 });
    });

    it('holds in the worker too: a V2 batch for 30 customers against max_completions 5 completes exactly 5', async () => {
      const { tenant, campaign } = await budgeted({ max_completions: 5 });
      const many = await customers(tenant, 30);
      await request(app.getHttpServer())
        .post(`/priv/v2/apps/${tenant.apiKey}/events`)
        .auth(tenant.apiKey, tenant.apiSecret)
        .send({ events: many.map((c) => ({ name: 'purchase', user_id: c.id })) })
        .expect(200);
      await waitFor(
        async () => Number((await db.query(`SELECT count(*) AS n FROM events WHERE organization_id = $1 AND status = 'pending'`, [tenant.organizationId]))[0].n) === 0,
        30_000,
        'the batch processed',
      );
      expect(await earned(tenant)).toEqual({ customers: 5, points: 250 });
      expect((await campaignOf(tenant, campaign.id)).budget_used).toEqual({ completions: 5, points: 250 });
    });

    it('a reversal gives its completion and points back: the next customer completes', async () => {
      const { tenant, campaign } = await budgeted({ max_completions: 1 });
      const [a, b] = await customers(tenant, 2);
      const order = tx();
      await purchase(tenant, a, order).expect(200);
      expect((await purchase(tenant, b).expect(200)).body.state).toBe('budget_exhausted');
      await api(app, tenant).post(`/users/${a.id}/events/reversals`).send({ reversal: { transaction_id: order } }).expect(200);
      expect((await campaignOf(tenant, campaign.id)).budget_used).toEqual({ completions: 0, points: 0 });
      expect((await purchase(tenant, b).expect(200)).body.state).toBe('qualified');
      expect((await campaignOf(tenant, campaign.id)).budget_used).toEqual({ completions: 1, points: 50 });
    });

    it('writes one campaign.budget_exhausted webhook delivery, when the budget is first reached', async () => {
      const { tenant, campaign } = await budgeted({ max_completions: 2 });
      await api(app, tenant).post('/management/webhooks').send({ webhook: { url: 'http://127.0.0.1:9/hook', event_types: ['campaign.budget_exhausted'] } }).expect(201);
      const list = await customers(tenant, 4);
      for (const c of list) await purchase(tenant, c).expect(200);
      const rows = await db.query(`SELECT payload FROM webhook_deliveries WHERE organization_id = $1 AND type = 'campaign.budget_exhausted'`, [tenant.organizationId]);
      expect(rows).toHaveLength(1);
      expect(rows[0].payload.data).toEqual({
        campaign_id: campaign.id,
        campaign_name: campaign.name,
        budget: { max_completions: 2, max_points: null },
        budget_used: { completions: 2, points: 100 },
      });
    });
  });
});
