import type { INestApplication } from '@nestjs/common';
import { createTestApp } from './support/app.js';
import { expectErrorSorted as expectError } from './support/errors.js';
import { api, addApplication, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY = 86_400_000;
/** The default tier policy (contract §17), answered with the settings. */
const LIFETIME = { basis: 'lifetime' };

type Customer = Awaited<ReturnType<typeof createCustomer>>;

describe('points: ledger, settings and debits (contract §13)', () => {
  let app: INestApplication;

  /** A tenant with a live campaign whose behavior `earn` credits 50 points per `purchase`. */
  async function earningTenant(organization: Parameters<typeof createTenant>[1] = {}) {
    const tenant = await createTenant(app, organization);
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Buy anything', event: 'purchase', event_count: 1, points: 50 });
    return { tenant, campaign };
  }

  const purchase = (tenant: TestTenant, customer: Customer, body: Record<string, unknown> = {}) =>
    api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { purchase: 1 }, ...body }).expect(200);
  const ledger = async (tenant: TestTenant, customer: Customer, query = '') => (await api(app, tenant).get(`/users/${customer.id}/points${query}`).expect(200)).body;
  const debit = (tenant: TestTenant, customer: Customer, debit: Record<string, unknown>) => api(app, tenant).post(`/users/${customer.id}/points/debits`).send({ debit });

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  describe('GET users/:user_id/points', () => {
    it('answers the balances and every credit, newest first, with its event, campaign, behavior and no expiry by default', async () => {
      const { tenant, campaign } = await earningTenant();
      const customer = await createCustomer(app, tenant);
      await purchase(tenant, customer);
      await purchase(tenant, customer);
      const body = await ledger(tenant, customer);
      expect(body).toEqual({
        status: 'ok',
        available_points: 100,
        lifetime_points: 100,
        expiring: [],
        entries: [
          { id: expect.any(String), amount: 50, reason: 'behavior', event_id: expect.any(String), campaign_id: campaign.id, behavior_name: 'Buy anything', expires_at: null, created_at: expect.stringMatching(ISO_UTC_MS) },
          { id: expect.any(String), amount: 50, reason: 'behavior', event_id: expect.any(String), campaign_id: campaign.id, behavior_name: 'Buy anything', expires_at: null, created_at: expect.stringMatching(ISO_UTC_MS) },
        ],
        page: 1,
        limit: 10,
        total: 2,
      });
      expect(BigInt(body.entries[0].id)).toBeGreaterThan(BigInt(body.entries[1].id));
      const { events } = (await api(app, tenant).get(`/users/${customer.id}/timeline`).expect(200)).body;
      expect(body.entries.map((e: { event_id: string }) => e.event_id)).toEqual(events.map((e: { id: string }) => String(e.id)));
    });

    it('pages the ledger and answers the same by external_id', async () => {
      const { tenant } = await earningTenant();
      const customer = await createCustomer(app, tenant);
      for (let i = 0; i < 3; i++) await purchase(tenant, customer);
      const all = await ledger(tenant, customer);
      const second = await ledger(tenant, customer, '?limit=2&page=2');
      expect(second).toEqual(expect.objectContaining({ page: 2, limit: 2, total: 3, entries: [all.entries[2]] }));
      const external = (await api(app, tenant).get(`/external/users/${customer.external_id}/points`).expect(200)).body;
      expect(external).toEqual(all);
    });

    it('answers 404 not_found for an unknown customer and for a customer of another organization, 400 validation for limit 101', async () => {
      const { tenant } = await earningTenant();
      const other = await createTenant(app);
      const theirs = await createCustomer(app, other);
      expectError(await api(app, tenant).get(`/users/${theirs.id}/points`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/external/users/${theirs.external_id}/points`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/users/00000000-0000-4000-8000-000000000000/points`), 404, 'not_found');
      const mine = await createCustomer(app, tenant);
      expectError(await api(app, tenant).get(`/users/${mine.id}/points?limit=101`), 400, 'validation');
    });
  });

  describe('settings: points_expire_after_days', () => {
    it('is given at bootstrap, read and changed with management/settings, and validated', async () => {
      const { tenant } = await earningTenant({ points_expire_after_days: 30 });
      expect((await api(app, tenant).get('/management/settings').expect(200)).body).toEqual({ status: 'ok', settings: { points_expire_after_days: 30, tier_policy: LIFETIME } });
      const put = await api(app, tenant).put('/management/settings').send({ settings: { points_expire_after_days: 365 } }).expect(200);
      expect(put.body).toEqual({ status: 'ok', settings: { points_expire_after_days: 365, tier_policy: LIFETIME } });
      expect((await api(app, tenant).get('/management/settings').expect(200)).body.settings).toEqual({ points_expire_after_days: 365, tier_policy: LIFETIME });
      await api(app, tenant).put('/management/settings').send({ settings: { points_expire_after_days: null } }).expect(200);
      expect((await api(app, tenant).get('/management/settings').expect(200)).body.settings).toEqual({ points_expire_after_days: null, tier_policy: LIFETIME });

      expect(expectError(await api(app, tenant).put('/management/settings').send({ settings: { points_expire_after_days: 0 } }), 400, 'validation')).toEqual([
        'settings.points_expire_after_days',
      ]);
      expectError(await api(app, tenant).put('/management/settings').send({ settings: { points_expire_after_days: '30' } }), 400, 'validation');
      expectError(await api(app, tenant).put('/management/settings').send({ settings: { currency: 'EUR' } }), 400, 'argument_error');
      expectError(await api(app, tenant).put('/management/settings').send({}), 400, 'missing_data');
    });

    it('defaults to null at bootstrap, and the change is in the audit log', async () => {
      const { tenant } = await earningTenant();
      expect((await api(app, tenant).get('/management/settings').expect(200)).body.settings).toEqual({ points_expire_after_days: null, tier_policy: LIFETIME });
      await api(app, tenant).put('/management/settings').send({ settings: { points_expire_after_days: 90 } }).expect(200);
      const audit = (await api(app, tenant).get('/management/audit_log').expect(200)).body;
      expect(JSON.stringify(audit)).toContain('"points_expire_after_days":90');
    });

    it("fixes each credit's expires_at when it is earned: the event's occurred_at plus the days; a later change moves no credit", async () => {
      const { tenant } = await earningTenant({ points_expire_after_days: 30 });
      const customer = await createCustomer(app, tenant);
      const occurred = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
      await purchase(tenant, customer, { date: occurred.toISOString() });
      await api(app, tenant).put('/management/settings').send({ settings: { points_expire_after_days: 10 } }).expect(200);
      await purchase(tenant, customer, { date: occurred.toISOString() });
      const body = await ledger(tenant, customer);
      const in30 = new Date(occurred.getTime() + 30 * DAY).toISOString();
      const in10 = new Date(occurred.getTime() + 10 * DAY).toISOString();
      expect(body.entries.map((e: { expires_at: string }) => e.expires_at)).toEqual([in10, in30]);
      expect(body.expiring).toEqual([
        { points: 50, expires_at: in10 },
        { points: 50, expires_at: in30 },
      ]);
    });
  });

  describe('POST users/:user_id/points/debits', () => {
    it('spends points: 201 with the debit and the customer after it; the ledger holds a negative debit entry; lifetime stays', async () => {
      const { tenant } = await earningTenant();
      const customer = await createCustomer(app, tenant);
      await purchase(tenant, customer);
      await purchase(tenant, customer);
      const res = await debit(tenant, customer, { points: 30, reason: 'Free coffee' }).expect(201);
      expect(res.body).toEqual({
        status: 'ok',
        debit: { id: expect.any(String), points: 30, reason: 'Free coffee', created_at: expect.stringMatching(ISO_UTC_MS) },
        user: { available_points: 70, lifetime_points: 100, tier: null },
      });
      const body = await ledger(tenant, customer);
      expect(body).toEqual(expect.objectContaining({ available_points: 70, lifetime_points: 100, total: 3 }));
      expect(body.entries[0]).toEqual({
        id: res.body.debit.id,
        amount: -30,
        reason: 'debit',
        event_id: null,
        campaign_id: null,
        behavior_name: null,
        expires_at: null,
        created_at: res.body.debit.created_at,
      });
      const user = (await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user;
      expect(user).toEqual(expect.objectContaining({ available_points: 70, lifetime_points: 100 }));
    });

    it('answers 422 insufficient_points for more than available, and nothing changes', async () => {
      const { tenant } = await earningTenant();
      const customer = await createCustomer(app, tenant);
      await purchase(tenant, customer);
      expect(expectError(await debit(tenant, customer, { points: 51 }), 422, 'insufficient_points')).toEqual(['debit.points']);
      expect(await ledger(tenant, customer)).toEqual(expect.objectContaining({ available_points: 50, total: 1 }));
      await debit(tenant, customer, { points: 50 }).expect(201);
      expectError(await debit(tenant, customer, { points: 1 }), 422, 'insufficient_points');
    });

    it('is idempotent with transaction_id: a repeat under the same api key is 409 duplicate_transaction, another api key may use it', async () => {
      const { tenant } = await earningTenant();
      const customer = await createCustomer(app, tenant);
      await purchase(tenant, customer);
      await debit(tenant, customer, { points: 10, transaction_id: 'redeem-1' }).expect(201);
      const again = await debit(tenant, customer, { points: 10, transaction_id: 'redeem-1' });
      expectError(again, 409, 'duplicate_transaction');
      expect(again.body.errors.message).toBe('transaction_id redeem-1 has already been processed');
      // Checked before the balance: a retried debit that would now be more than available is still a duplicate.
      expectError(await debit(tenant, customer, { points: 1000, transaction_id: 'redeem-1' }), 409, 'duplicate_transaction');
      const second = await addApplication(app, tenant);
      await debit(second, customer, { points: 10, transaction_id: 'redeem-1' }).expect(201);
      expect((await ledger(tenant, customer)).available_points).toBe(30);
    });

    it('consumes the credits that expire soonest first, credits that never expire last', async () => {
      const { tenant } = await earningTenant();
      const customer = await createCustomer(app, tenant);
      await purchase(tenant, customer); // never expires
      await api(app, tenant).put('/management/settings').send({ settings: { points_expire_after_days: 60 } }).expect(200);
      await purchase(tenant, customer);
      await api(app, tenant).put('/management/settings').send({ settings: { points_expire_after_days: 20 } }).expect(200);
      await purchase(tenant, customer);
      const before = (await ledger(tenant, customer)).expiring;
      expect(before.map((e: { points: number }) => e.points)).toEqual([50, 50]);
      await debit(tenant, customer, { points: 70 }).expect(201);
      expect((await ledger(tenant, customer)).expiring).toEqual([{ points: 30, expires_at: before[1].expires_at }]);
      await debit(tenant, customer, { points: 60 }).expect(201);
      expect(await ledger(tenant, customer)).toEqual(expect.objectContaining({ available_points: 20, expiring: [] }));
    });

    it('answers the same by external_id; 404 for a customer of another organization; 400 for a bad body', async () => {
      const { tenant } = await earningTenant();
      const customer = await createCustomer(app, tenant);
      await purchase(tenant, customer);
      const res = await api(app, tenant).post(`/external/users/${customer.external_id}/points/debits`).send({ debit: { points: 5 } }).expect(201);
      expect(res.body.user.available_points).toBe(45);
      const other = await createTenant(app);
      expectError(await api(app, other).post(`/users/${customer.id}/points/debits`).send({ debit: { points: 5 } }), 404, 'not_found');
      expectError(await debit(tenant, customer, { points: 0 }), 400, 'validation');
      expectError(await debit(tenant, customer, { points: 1.5 }), 400, 'validation');
      expectError(await debit(tenant, customer, { points: 5, note: 'x' }), 400, 'argument_error');
      expectError(await debit(tenant, customer, {}), 400, 'missing_data');
      expectError(await api(app, tenant).post(`/users/${customer.id}/points/debits`).send({}), 400, 'missing_data');
    });

    it('serializes with events of the same customer: parallel debits and events never take the balance below zero and lose nothing', async () => {
      const { tenant } = await earningTenant();
      const customer = await createCustomer(app, tenant);
      for (let i = 0; i < 2; i++) await purchase(tenant, customer);
      const debits = Array.from({ length: 12 }, () => debit(tenant, customer, { points: 30 }));
      const events = Array.from({ length: 4 }, () => api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { purchase: 1 } }));
      const answers = await Promise.all([...debits, ...events]);
      const debited = answers.slice(0, 12).filter((r) => r.status === 201).length;
      expect(answers.slice(0, 12).every((r) => r.status === 201 || (r.status === 422 && r.body.errors.code === 'insufficient_points'))).toBe(true);
      expect(answers.slice(12).map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const body = await ledger(tenant, customer, '?limit=100');
      expect(body.lifetime_points).toBe(300);
      expect(body.available_points).toBe(300 - 30 * debited);
      expect(body.available_points).toBeGreaterThanOrEqual(0);
      expect(body.available_points).toBeLessThan(30 + 50 * 4);
      expect(body.total).toBe(6 + debited);
    });
  });
});
