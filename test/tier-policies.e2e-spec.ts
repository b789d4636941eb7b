import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SettableClock } from '../src/common/clock.js';
import { LOGGER, type Logger } from '../src/common/logging/logger.js';
import { APP_CONFIG } from '../src/config/config.module.js';
import type { AppConfig } from '../src/config/config.js';
import { RulesCacheService } from '../src/modules/campaigns/rules/rules-cache.service.js';
import { TierReviewSweeper } from '../src/modules/evaluation/tier-review.sweeper.js';
import { AfterCommit } from '../src/modules/evaluation/after-commit.js';
import { TierReviewsRepository } from '../src/modules/customers-state/tiers/tier-reviews.repository.js';
import { CustomerTransactions } from '../src/modules/evaluation/customer-transactions.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { expectErrorSorted as expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const at = (iso: string) => new Date(iso).getTime();
const YEARLY = { basis: 'period', period_months: 12, downgrade: 'one_level', grace_days: 0 };

/**
 * Contract §17 over HTTP: tier policies in the settings and at bootstrap, qualification periods, upgrades at once,
 * reviews (one_level, to_qualified, grace days) answered by reads before the review sweeper writes them, late and
 * back-dated events, reversals, tier outcomes, the policy-change floor, the history and `tier.changed`. The service's
 * clock is set by the spec; the sweeper is the workers' own, run on that clock.
 */
describe('tier policies (contract §17)', () => {
  const clock = new SettableClock(at('2026-06-15T12:00:00Z'));
  let app: INestApplication;
  let db: DataSource;
  let sweeper: TierReviewSweeper;
  let other: TestTenant;

  beforeAll(async () => {
    // A database of its own: the sweeps here run on the spec's clock and would review other files' customers, and the
    // workers other files start sweep the shared database with the real clock, holding the review sweep's lock.
    await useOwnDatabase('tier_policies');
    app = await createTestApp({}, [], clock);
    db = app.get(DataSource);
    sweeper = new TierReviewSweeper(db, app.get(CustomerTransactions), app.get(RulesCacheService), app.get(AfterCommit), app.get(TierReviewsRepository), app.get<Logger>(LOGGER), clock, app.get<AppConfig>(APP_CONFIG));
    other = await createTenant(app);
  });
  afterAll(() => app.close());
  beforeEach(() => clock.set(at('2026-06-15T12:00:00Z')));

  /**
   * An organization with Silver (100, keeps on 50), Gold (500, keeps on 300) and Platinum (1000): a purchase is worth
   * 100 points, a big order 400, and a vip event gives Gold (a tier outcome).
   */
  async function program(policy: Record<string, unknown> | null, organization: Record<string, unknown> = {}) {
    const tenant = await createTenant(app, organization);
    const tiers: Record<string, number> = {};
    for (const [name, min_points, retain_points] of [['Silver', 100, 50], ['Gold', 500, 300], ['Platinum', 1000, 1000]] as const) {
      tiers[name] = (await api(app, tenant).post('/management/tiers').send({ tier: { name, min_points, retain_points } }).expect(201)).body.tier.id;
    }
    const campaign = await createCampaign(app, tenant, { starts_at: '2024-01-01T00:00:00.000Z', ends_at: '2030-01-01T00:00:00.000Z' });
    await createBehavior(app, tenant, campaign.id, { name: 'Buy', event: 'purchase', event_count: 1, points: 100 });
    await createBehavior(app, tenant, campaign.id, { name: 'Big order', event: 'big', event_count: 1, points: 400 });
    await createBehavior(app, tenant, campaign.id, { name: 'VIP', event: 'vip', event_count: 1, points: 0, outcomes: [{ tier: { name: 'Gold' } }] });
    await api(app, tenant).post('/management/webhooks').send({ webhook: { url: 'https://hooks.example.com/tiers', event_types: ['tier.changed'] } }).expect(201);
    if (policy) await api(app, tenant).put('/management/settings').send({ settings: { tier_policy: policy } }).expect(200);
    const customer = await createCustomer(app, tenant);
    const send = (event: string, date: string, extra: Record<string, unknown> = {}) =>
      api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { [event]: 1 }, date, ...extra }).expect(200);
    /** `n` purchases, a minute apart from `date`. */
    const buy = async (n: number, date: string) => {
      for (let i = 0; i < n; i += 1) await send('purchase', new Date(at(date) + i * 60_000).toISOString());
    };
    /** The tier route's answer less its status (contract §17: the standing's members at the top level). */
    const standing = async () => {
      const { status, ...rest } = (await api(app, tenant).get(`/users/${customer.id}/tier`).expect(200)).body;
      expect(status).toBe('ok');
      return rest;
    };
    const userTier = async () => (await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user.tier as string | null;
    const history = async () => (await api(app, tenant).get(`/users/${customer.id}/tier/history?limit=100`).expect(200)).body.history;
    const stored = async () => (await db.query(`SELECT tier_id FROM customers WHERE id = $1`, [customer.id]))[0].tier_id as number | null;
    const webhooks = async () =>
      ((await db.query(`SELECT payload FROM webhook_deliveries WHERE organization_id = $1 AND type = 'tier.changed' ORDER BY id`, [tenant.organizationId])) as Array<{ payload: { data: Record<string, unknown> } }>).map(
        (r) => r.payload.data,
      );
    return { tenant, tiers, customer, send, buy, standing, userTier, history, stored, webhooks };
  }

  describe('the setting', () => {
    it('is lifetime by default, takes a period policy (grace_days 0 by default) and answers it', async () => {
      const tenant = await createTenant(app);
      expect((await api(app, tenant).get('/management/settings').expect(200)).body.settings.tier_policy).toEqual({ basis: 'lifetime' });
      const res = await api(app, tenant).put('/management/settings').send({ settings: { tier_policy: { basis: 'period', period_months: 3, downgrade: 'to_qualified' } } }).expect(200);
      expect(res.body.settings).toEqual({ points_expire_after_days: null, tier_policy: { basis: 'period', period_months: 3, downgrade: 'to_qualified', grace_days: 0 } });
      expect((await api(app, tenant).get('/management/settings').expect(200)).body.settings.tier_policy.period_months).toBe(3);
    });

    it.each([
      ['a period of 5 months', { basis: 'period', period_months: 5, downgrade: 'one_level' }, 'validation', 'settings.tier_policy.period_months'],
      ['an unknown downgrade', { basis: 'period', period_months: 12, downgrade: 'two_levels' }, 'validation', 'settings.tier_policy.downgrade'],
      ['366 grace days', { basis: 'period', period_months: 12, downgrade: 'one_level', grace_days: 366 }, 'validation', 'settings.tier_policy.grace_days'],
      ['negative grace days', { basis: 'period', period_months: 12, downgrade: 'one_level', grace_days: -1 }, 'validation', 'settings.tier_policy.grace_days'],
      ['an unknown basis', { basis: 'weekly' }, 'validation', 'settings.tier_policy.basis'],
      ['period members under lifetime', { basis: 'lifetime', period_months: 12 }, 'validation', 'settings.tier_policy.period_months'],
      ['a period without its length', { basis: 'period', downgrade: 'one_level' }, 'missing_data', 'settings.tier_policy.period_months'],
      ['a policy that is not an object', 'period', 'validation', 'settings.tier_policy'],
    ])('refuses %s with 400 naming the member, and keeps the policy', async (_label, policy, code, member) => {
      const tenant = await createTenant(app);
      expect(expectError(await api(app, tenant).put('/management/settings').send({ settings: { tier_policy: policy } }), 400, code)).toEqual([member]);
      expect((await api(app, tenant).get('/management/settings').expect(200)).body.settings.tier_policy).toEqual({ basis: 'lifetime' });
    });

    it('is taken at bootstrap, and validated there too', async () => {
      const tenant = await createTenant(app, { tier_policy: YEARLY });
      expect((await api(app, tenant).get('/management/settings').expect(200)).body.settings.tier_policy).toEqual(YEARLY);
      const res = await app.get(DataSource).query(`SELECT tier_policy FROM organizations WHERE id = $1`, [tenant.organizationId]);
      expect(res[0].tier_policy).toEqual(YEARLY);
      await expect(createTenant(app, { tier_policy: { basis: 'period', period_months: 7, downgrade: 'one_level' } })).rejects.toThrow(/400/);
    });
  });

  describe('under a yearly policy, one level down', () => {
    it('moves up at once on the period\'s points, answers the standing, and reviews the year: read before written, written once', async () => {
      const p = await program(YEARLY);
      await p.buy(1, '2026-02-10T10:00:00Z');
      await p.buy(4, '2026-03-10T10:00:00Z');
      expect(await p.standing()).toEqual({
        tier: { id: p.tiers.Gold, name: 'Gold' },
        basis: 'period',
        period: { starts_at: '2026-01-01T00:00:00.000Z', ends_at: '2027-01-01T00:00:00.000Z' },
        qualifying_points: 500,
        retain_points: 300,
        next_tier: { id: p.tiers.Platinum, name: 'Platinum', min_points: 1000, points_needed: 500 },
        review_at: '2027-01-01T00:00:00.000Z',
        tier_after_review: { id: p.tiers.Gold, name: 'Gold' },
      });
      expect(await p.history()).toEqual([
        { from: { id: p.tiers.Silver, name: 'Silver' }, to: { id: p.tiers.Gold, name: 'Gold' }, reason: 'points', at: expect.any(String) },
        { from: null, to: { id: p.tiers.Silver, name: 'Silver' }, reason: 'points', at: expect.any(String) },
      ]);

      // 2026's 500 points keep Gold at its review; 2027 has none so far, so its review would give Silver.
      clock.set(at('2027-01-05T00:00:00Z'));
      expect(await p.standing()).toEqual(
        expect.objectContaining({ tier: { id: p.tiers.Gold, name: 'Gold' }, qualifying_points: 0, review_at: '2028-01-01T00:00:00.000Z', tier_after_review: { id: p.tiers.Silver, name: 'Silver' } }),
      );
      await sweeper.sweep();
      expect(await p.stored()).toBe(p.tiers.Gold);
      expect(await p.history()).toHaveLength(2);

      // 2027 ends without a point: Gold is not kept, one level down. Reads say so before the sweeper runs.
      clock.set(at('2028-01-05T00:00:00Z'));
      expect(await p.userTier()).toBe('Silver');
      expect(await p.standing()).toEqual(
        expect.objectContaining({ tier: { id: p.tiers.Silver, name: 'Silver' }, qualifying_points: 0, review_at: '2029-01-01T00:00:00.000Z', tier_after_review: null }),
      );
      expect(await p.stored()).toBe(p.tiers.Gold);

      expect(await sweeper.sweep()).toBeGreaterThanOrEqual(1);
      expect(await p.stored()).toBe(p.tiers.Silver);
      expect((await p.history())[0]).toEqual({ from: { id: p.tiers.Gold, name: 'Gold' }, to: { id: p.tiers.Silver, name: 'Silver' }, reason: 'review', at: '2028-01-01T00:00:00.000Z' });
      const down = (await p.webhooks()).filter((w) => w.direction === 'down');
      expect(down).toEqual([expect.objectContaining({ user_id: p.customer.id, from_tier: { id: p.tiers.Gold, name: 'Gold' }, to_tier: { id: p.tiers.Silver, name: 'Silver' }, reason: 'review' })]);

      // Applied once: a second sweep finds nothing due for this customer, and writes nothing more.
      await sweeper.sweep();
      expect((await p.history()).length).toBe(3);
      expect((await p.webhooks()).filter((w) => w.direction === 'down')).toHaveLength(1);

      // Another year without activity: a level down again, to no tier.
      clock.set(at('2029-01-02T00:00:00Z'));
      expect(await p.userTier()).toBeNull();
      await sweeper.sweep();
      expect(await p.stored()).toBeNull();
      expect((await p.history())[0]).toEqual({ from: { id: p.tiers.Silver, name: 'Silver' }, to: null, reason: 'review', at: '2029-01-01T00:00:00.000Z' });
    });

    it('keeps a tier whose retain points the ended year reached, and a tier outcome qualifies for its tier in its year', async () => {
      const p = await program(YEARLY);
      await p.send('vip', '2026-04-01T10:00:00Z');
      expect((await p.standing()).tier).toEqual({ id: p.tiers.Gold, name: 'Gold' });
      clock.set(at('2027-03-01T00:00:00Z'));
      // 2026 qualified for Gold by its outcome: Gold is kept at the review, with no point.
      expect((await p.standing()).tier).toEqual({ id: p.tiers.Gold, name: 'Gold' });
      await p.buy(3, '2027-02-01T10:00:00Z');
      clock.set(at('2028-01-10T00:00:00Z'));
      // 2027: 300 points, Gold's retain points: kept again.
      expect((await p.standing()).tier).toEqual({ id: p.tiers.Gold, name: 'Gold' });
    });

    it('lowers the tier the reversed credits had earned, at once, and the sweeper writes it with its webhook', async () => {
      const p = await program(YEARLY);
      await p.buy(1, '2026-03-01T10:00:00Z');
      await p.send('big', '2026-03-02T10:00:00Z', { transaction_id: 'order-9' });
      expect((await p.standing()).tier?.name).toBe('Gold');
      const reversal = await api(app, p.tenant).post(`/users/${p.customer.id}/events/reversals`).send({ reversal: { transaction_id: 'order-9' } }).expect(200);
      expect(reversal.body.user.tier).toBe('Silver');
      expect(await p.standing()).toEqual(expect.objectContaining({ tier: { id: p.tiers.Silver, name: 'Silver' }, qualifying_points: 100 }));
      await sweeper.sweep();
      expect(await p.stored()).toBe(p.tiers.Silver);
      expect((await p.history())[0]).toEqual(expect.objectContaining({ from: { id: p.tiers.Gold, name: 'Gold' }, to: { id: p.tiers.Silver, name: 'Silver' }, reason: 'points' }));
      expect((await p.webhooks()).at(-1)).toEqual(expect.objectContaining({ direction: 'down', reason: 'points' }));
    });
  });

  describe('late and back-dated events', () => {
    it('count in the period they occurred in: during the grace days an event of the ended year lifts the tier, and the review keeps it', async () => {
      const p = await program({ basis: 'period', period_months: 12, downgrade: 'to_qualified', grace_days: 30 });
      await p.buy(2, '2026-05-01T10:00:00Z');
      clock.set(at('2027-01-10T00:00:00Z'));
      expect(await p.standing()).toEqual(
        expect.objectContaining({ tier: { id: p.tiers.Silver, name: 'Silver' }, review_at: '2027-01-31T00:00:00.000Z', tier_after_review: { id: p.tiers.Silver, name: 'Silver' } }),
      );
      await p.buy(3, '2026-12-20T10:00:00Z');
      expect(await p.standing()).toEqual(expect.objectContaining({ tier: { id: p.tiers.Gold, name: 'Gold' }, tier_after_review: { id: p.tiers.Gold, name: 'Gold' } }));
      clock.set(at('2027-02-01T00:00:00Z'));
      await sweeper.sweep();
      expect(await p.standing()).toEqual(expect.objectContaining({ tier: { id: p.tiers.Gold, name: 'Gold' }, review_at: '2028-01-31T00:00:00.000Z', tier_after_review: null }));
      expect(await p.stored()).toBe(p.tiers.Gold);
    });

    it('of earlier years are reviewed as those years went: Gold of 2024 kept in 2025, a level down in 2026', async () => {
      const p = await program(YEARLY);
      await p.buy(5, '2024-06-01T10:00:00Z');
      expect(await p.standing()).toEqual(expect.objectContaining({ tier: { id: p.tiers.Silver, name: 'Silver' }, qualifying_points: 0 }));
      expect(await p.userTier()).toBe('Silver');
      // The path the rules imply, each move with its own reason and time: Gold at the fifth purchase, a level down at
      // the review of 2026 (the first four purchases' Silver went by that review, so nothing of it was written).
      expect(await p.history()).toEqual([
        { from: { id: p.tiers.Gold, name: 'Gold' }, to: { id: p.tiers.Silver, name: 'Silver' }, reason: 'review', at: '2026-01-01T00:00:00.000Z' },
        { from: null, to: { id: p.tiers.Gold, name: 'Gold' }, reason: 'points', at: '2024-06-01T10:04:00.000Z' },
      ]);
      // One tier.changed per move, in order.
      const gold = { id: p.tiers.Gold, name: 'Gold' };
      const sent = [
        expect.objectContaining({ from_tier: null, to_tier: gold, direction: 'up', reason: 'points' }),
        expect.objectContaining({ from_tier: gold, to_tier: { id: p.tiers.Silver, name: 'Silver' }, direction: 'down', reason: 'review' }),
      ];
      expect(await p.webhooks()).toEqual(sent);
      // The review sweeper finds it written: nothing again.
      await sweeper.sweep();
      expect(await p.history()).toHaveLength(2);
      expect(await p.webhooks()).toEqual(sent);
    });

    it('write the reviews due but not yet written before the moves they add, each at its time, and once', async () => {
      const p = await program(YEARLY);
      await p.buy(5, '2026-03-10T10:00:00Z');
      // Two years on, before the workers wrote anything: 2026 kept Gold at the review of 2027, 2027 without a point
      // lowered it at the review of 2028, 2028 likewise at that of 2029. A purchase of this January gives Silver again.
      clock.set(at('2029-02-01T00:00:00Z'));
      expect(await p.stored()).toBe(p.tiers.Gold);
      await p.send('purchase', '2029-01-15T10:00:00Z');
      const [gold, silver] = [{ id: p.tiers.Gold, name: 'Gold' }, { id: p.tiers.Silver, name: 'Silver' }];
      expect(await p.stored()).toBe(p.tiers.Silver);
      expect((await p.history()).slice(0, 3)).toEqual([
        { from: null, to: silver, reason: 'points', at: '2029-01-15T10:00:00.000Z' },
        { from: silver, to: null, reason: 'review', at: '2029-01-01T00:00:00.000Z' },
        { from: gold, to: silver, reason: 'review', at: '2028-01-01T00:00:00.000Z' },
      ]);
      expect((await p.webhooks()).slice(2)).toEqual([
        expect.objectContaining({ from_tier: gold, to_tier: silver, direction: 'down', reason: 'review' }),
        expect.objectContaining({ from_tier: silver, to_tier: null, direction: 'down', reason: 'review' }),
        expect.objectContaining({ from_tier: null, to_tier: silver, direction: 'up', reason: 'points' }),
      ]);
      await sweeper.sweep();
      expect(await p.history()).toHaveLength(5);
      expect(await p.webhooks()).toHaveLength(5);
    });
  });

  describe('a request passing through two tiers', () => {
    it('writes both moves and sends a tier.changed for each, under lifetime too', async () => {
      const p = await program(null);
      await api(app, p.tenant).post(`/users/${p.customer.id}/events`).send({ events: { purchase: 1, big: 1 } }).expect(200);
      const [gold, silver] = [{ id: p.tiers.Gold, name: 'Gold' }, { id: p.tiers.Silver, name: 'Silver' }];
      expect(await p.history()).toEqual([
        { from: silver, to: gold, reason: 'points', at: '2026-06-15T12:00:00.000Z' },
        { from: null, to: silver, reason: 'points', at: '2026-06-15T12:00:00.000Z' },
      ]);
      expect(await p.webhooks()).toEqual([
        expect.objectContaining({ from_tier: null, to_tier: silver, direction: 'up', reason: 'points', lifetime_points: 500 }),
        expect.objectContaining({ from_tier: silver, to_tier: gold, direction: 'up', reason: 'points', lifetime_points: 500 }),
      ]);
    });
  });

  describe('a policy change', () => {
    it('never lowers a tier by itself: the tier is kept until the first review after the change', async () => {
      const p = await program(null);
      await p.buy(6, '2025-06-01T10:00:00Z');
      expect(await p.userTier()).toBe('Gold');
      await api(app, p.tenant).put('/management/settings').send({ settings: { tier_policy: YEARLY } }).expect(200);
      // 2026 has no qualifying point, yet Gold stays until the review of 2026.
      expect(await p.standing()).toEqual(expect.objectContaining({ tier: { id: p.tiers.Gold, name: 'Gold' }, qualifying_points: 0, review_at: '2027-01-01T00:00:00.000Z' }));
      await p.buy(1, '2026-06-15T10:00:00Z');
      expect(await p.stored()).toBe(p.tiers.Gold);
      clock.set(at('2027-01-02T00:00:00Z'));
      expect(await p.userTier()).toBe('Silver');
      await sweeper.sweep();
      expect(await p.stored()).toBe(p.tiers.Silver);
    });
  });

  describe('the tier history', () => {
    it('answers by external id too, pages, and is 404 for another organization', async () => {
      const p = await program(YEARLY);
      await p.send('big', '2026-03-01T10:00:00Z');
      await p.buy(1, '2026-03-02T10:00:00Z');
      const external = await api(app, p.tenant).get(`/external/users/${encodeURIComponent(p.customer.external_id)}/tier/history?limit=1&page=1`).expect(200);
      expect(external.body).toEqual({ status: 'ok', history: [expect.objectContaining({ to: { id: p.tiers.Gold, name: 'Gold' }, reason: 'points' })], page: 1, limit: 1, total: 2 });
      expect(expectError(await api(app, other).get(`/users/${p.customer.id}/tier/history`), 404, 'not_found')).toEqual([]);
      expect(expectError(await api(app, p.tenant).get(`/users/${p.customer.id}/tier/history?limit=101`), 400, 'validation')).toEqual(['limit']);
    });
  });
});
