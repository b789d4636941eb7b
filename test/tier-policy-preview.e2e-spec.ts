import type { INestApplication } from '@nestjs/common';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { SettableClock } from '../src/common/clock.js';
import { tierStanding, type RankedTier, type TierFact, type TierPolicy } from '../src/engine/index.js';
import { MonthCalendar, monthFacts, PolicyTiers } from '../src/modules/customers-state/tiers/policy-tiers.js';
import { TierPolicyPreview } from '../src/modules/customers-state/tiers/tier-policy-preview.js';
import { AMOUNT_OFFSET, MONTH_FACTOR } from '../src/modules/customers-state/tiers/tier-policy-preview.repository.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { expectErrorSorted as expectError } from './support/errors.js';

const SEEDED_AT = Date.parse('2026-06-15T12:00:00.000Z');
const YEARLY = { basis: 'period', period_months: 12, downgrade: 'one_level' } as const;

interface Seeded {
  owner: TestTenant;
  customers: Record<'a' | 'b' | 'c' | 'd' | 'e' | 'f', string>;
}

describe('POST /management/tier_policy/preview (contract §17)', () => {
  const clock = new SettableClock(SEEDED_AT);
  let app: INestApplication;
  let db: DataSource;

  /**
   * An organization (UTC) with Silver (100) and Gold (300), a visit worth 100 points and a VIP behavior whose outcome
   * lifts to Gold, and six customers, their events dated in the past (V1 `date`), as of 2026-06-15:
   * - a: 3 visits in March 2024 (300: Gold, nothing since);  b: 1 visit in February 2026 (Silver);
   * - c: 3 visits in May 2026 (Gold);  d: nothing;
   * - e: 2 visits in March 2025 and 1 in January 2026 (300 in all: Gold under lifetime);
   * - f: the VIP outcome in May 2024 (Gold, no points).
   */
  async function seed(): Promise<Seeded> {
    clock.set(SEEDED_AT);
    const owner = await createTenant(app);
    await api(app, owner).post('/management/tiers').send({ tier: { name: 'Silver', min_points: 100 } }).expect(201);
    await api(app, owner).post('/management/tiers').send({ tier: { name: 'Gold', min_points: 300 } }).expect(201);
    const campaign = await createCampaign(app, owner, { starts_at: '2023-01-01T00:00:00Z', ends_at: '2028-01-01T00:00:00Z' });
    const goal = (name: string) => [{ goals: [{ achievement: { name, event_count: 1 } }] }];
    const behaviors = [
      { name: 'Visit', points: 100, data: {}, goal_groups: goal('visit') },
      { name: 'VIP', points: 0, data: {}, goal_groups: goal('vip'), outcome_config: [{ tier: { name: 'Gold' } }] },
    ];
    await api(app, owner).post(`/management/campaigns/${campaign.id}/behaviors/_batch`).send({ behaviors }).expect(201);
    const customers = {} as Seeded['customers'];
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f'] as const) customers[key] = (await createCustomer(app, owner)).id;
    const send = async (key: keyof Seeded['customers'], event: string, date: string, times = 1) => {
      for (let i = 0; i < times; i += 1) await api(app, owner).post(`/users/${customers[key]}/events`).send({ events: { [event]: 1 }, date }).expect(200);
    };
    await send('a', 'visit', '2024-03-10T10:00:00Z', 3);
    await send('b', 'visit', '2026-02-10T10:00:00Z');
    await send('c', 'visit', '2026-05-10T10:00:00Z', 3);
    await send('e', 'visit', '2025-03-10T10:00:00Z', 2);
    await send('e', 'visit', '2026-01-10T10:00:00Z');
    await send('f', 'vip', '2024-05-10T10:00:00Z');
    return { owner, customers };
  }

  const preview = (owner: TestTenant, body: object) => api(app, owner).post('/management/tier_policy/preview').send(body);

  /** The tiers reads answer now (GET the user), counted by name: what the preview's `now` must be. */
  async function readCounts({ owner, customers }: Seeded): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const id of Object.values(customers)) {
      const name = ((await api(app, owner).get(`/users/${id}`).expect(200)).body.user.tier as string | null) ?? 'none';
      counts[name] = (counts[name] ?? 0) + 1;
    }
    return counts;
  }

  const nowCounts = (tiers: Record<string, { now: number }>) => Object.fromEntries(Object.entries(tiers).filter(([, c]) => c.now > 0).map(([name, c]) => [name, c.now]));

  /** What the preview must leave as it was: the settings and every customer's tier columns, and the tier history. */
  async function stored(owner: TestTenant) {
    const settings = (await api(app, owner).get('/management/settings').expect(200)).body;
    const customers = await db.query(`SELECT id, tier_id, tier_floor_id, tier_review_at, lifetime_points FROM customers WHERE organization_id = $1 ORDER BY id`, [owner.organizationId]);
    const [history] = await db.query(`SELECT count(*)::int AS n FROM tier_history h JOIN customers c ON c.id = h.customer_id WHERE c.organization_id = $1`, [owner.organizationId]);
    return { settings, customers, history: history.n };
  }

  let lifetime: Seeded;

  beforeAll(async () => {
    // A database of its own: the spec moves its clock past review dates, and the workers other files start review the
    // shared database's customers with the real clock.
    await useOwnDatabase('tier_policy_preview');
    app = await createTestApp({}, [], clock);
    db = app.get(DataSource);
    lifetime = await seed();
    // Another organization's customers, with tiers and points, are never counted.
    const other = await seed();
    await preview(other.owner, { tier_policy: YEARLY }).expect(200);
  });
  afterAll(() => app.close());

  describe('under the lifetime policy (the default)', () => {
    it('answers the counts now and under a 12-month one_level policy, and the moves, as worked out by hand', async () => {
      const before = await stored(lifetime.owner);
      const res = await preview(lifetime.owner, { tier_policy: YEARLY }).expect(200);
      // a: Gold in 2024, kept by its review (300 ≥ 300), down to Silver by the review of an empty 2025; e: Silver in 2025
      // (200), kept, Silver in 2026 (100); f: Gold by the outcome of 2024, kept, down to Silver by the review of 2025.
      expect(res.body).toEqual({
        status: 'ok',
        as_of: '2026-06-15T12:00:00.000Z',
        customers: 6,
        tiers: { none: { now: 1, under_policy: 1 }, Silver: { now: 1, under_policy: 4 }, Gold: { now: 4, under_policy: 1 } },
        moves: { up: 0, down: 3, same: 3 },
      });
      expect(nowCounts(res.body.tiers)).toEqual(await readCounts(lifetime));
      expect(await stored(lifetime.owner)).toEqual(before);
    });

    it.each([
      ['to_qualified: a and f to no tier (nothing qualified in 2025), e to Silver', { ...YEARLY, downgrade: 'to_qualified' }, { none: 3, Silver: 2, Gold: 1 }, { up: 0, down: 3, same: 3 }],
      ['grace_days 200: the review of 2025 is not due before 20 July 2026 (a and f keep Gold)', { ...YEARLY, grace_days: 200 }, { none: 1, Silver: 2, Gold: 3 }, { up: 0, down: 1, same: 5 }],
      ['lifetime: the highest tier the credits and outcomes reach, as now', { basis: 'lifetime' }, { none: 1, Silver: 1, Gold: 4 }, { up: 0, down: 0, same: 6 }],
    ])('answers a policy with %s', async (_label, policy, under, moves) => {
      const res = await preview(lifetime.owner, { tier_policy: policy }).expect(200);
      expect(res.body.tiers).toEqual({
        none: { now: 1, under_policy: under.none },
        Silver: { now: 1, under_policy: under.Silver },
        Gold: { now: 4, under_policy: under.Gold },
      });
      expect(res.body.moves).toEqual(moves);
    });

    it('answers the same with the one-pass read and with the keyset batches', async () => {
      const previews = app.get(TierPolicyPreview);
      for (const policy of [YEARLY, { ...YEARLY, period_months: 1, downgrade: 'to_qualified', grace_days: 10 }, { basis: 'lifetime' }] as const) {
        const http = (await preview(lifetime.owner, { tier_policy: policy }).expect(200)).body;
        expect(await previews.preview(lifetime.owner.organizationId, policy, 'scan')).toEqual(http);
        expect(await previews.preview(lifetime.owner.organizationId, policy, 'batches')).toEqual(http);
      }
    });

    it('counts every live tier, with zeros, and a deleted tier a customer keeps under its marked name', async () => {
      const seeded = await seed();
      const bronze = (await api(app, seeded.owner).post('/management/tiers').send({ tier: { name: 'Bronze', min_points: 50 } }).expect(201)).body.tier;
      const platinum = (await api(app, seeded.owner).post('/management/tiers').send({ tier: { name: 'Platinum', min_points: 5000 } }).expect(201)).body.tier;
      // d (no points) was put on Bronze, then Bronze deleted: reads answer d's tier with the marked name (§5: kept).
      await db.query(`UPDATE customers SET tier_id = $1 WHERE id = $2`, [bronze.id, seeded.customers.d]);
      const deleted = (await api(app, seeded.owner).delete(`/management/tiers/${bronze.id}`).expect(200)).body.tier;
      const res = await preview(seeded.owner, { tier_policy: YEARLY }).expect(200);
      expect(res.body.tiers).toEqual({
        none: { now: 0, under_policy: 1 },
        Silver: { now: 1, under_policy: 4 },
        Gold: { now: 4, under_policy: 1 },
        Platinum: { now: 0, under_policy: 0 },
        [deleted.name]: { now: 1, under_policy: 0 },
      });
      expect(res.body.moves).toEqual({ up: 0, down: 4, same: 2 });
      expect(nowCounts(res.body.tiers)).toEqual(await readCounts(seeded));
      expect(platinum.name).toBe('Platinum');
    });
  });

  describe('under a period policy (the tier now with the floor of its change)', () => {
    let period: Seeded;
    const monthly = { basis: 'period', period_months: 1, downgrade: 'to_qualified' } as const;

    beforeAll(async () => {
      period = await seed();
      await api(app, period.owner).put('/management/settings').send({ settings: { tier_policy: monthly } }).expect(200);
    });
    afterAll(() => clock.set(SEEDED_AT));

    it('before the first review after the change, counts the tiers kept by it now', async () => {
      clock.set(Date.parse('2026-06-20T00:00:00.000Z'));
      const before = await stored(period.owner);
      const res = await preview(period.owner, { tier_policy: YEARLY }).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        as_of: '2026-06-20T00:00:00.000Z',
        customers: 6,
        tiers: { none: { now: 1, under_policy: 1 }, Silver: { now: 1, under_policy: 4 }, Gold: { now: 4, under_policy: 1 } },
        moves: { up: 0, down: 3, same: 3 },
      });
      expect(nowCounts(res.body.tiers)).toEqual(await readCounts(period));
      expect(await stored(period.owner)).toEqual(before);
    });

    it('after it, counts the tiers the monthly policy gives (nobody qualified in June) and the moves up', async () => {
      clock.set(Date.parse('2026-07-10T00:00:00.000Z'));
      const res = await preview(period.owner, { tier_policy: YEARLY }).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        as_of: '2026-07-10T00:00:00.000Z',
        customers: 6,
        tiers: { none: { now: 6, under_policy: 1 }, Silver: { now: 0, under_policy: 4 }, Gold: { now: 0, under_policy: 1 } },
        moves: { up: 5, down: 0, same: 1 },
      });
      expect(nowCounts(res.body.tiers)).toEqual(await readCounts(period));
      const previews = app.get(TierPolicyPreview);
      expect(await previews.preview(period.owner.organizationId, YEARLY, 'scan')).toEqual(res.body);
      expect(await previews.preview(period.owner.organizationId, YEARLY, 'batches')).toEqual(res.body);
      expect((await api(app, period.owner).get('/management/settings').expect(200)).body.settings.tier_policy).toEqual({ ...monthly, grace_days: 0 });
    });
  });

  it('answers an organization without customers or tiers with zeros', async () => {
    const empty = await createTenant(app);
    expect((await preview(empty, { tier_policy: YEARLY }).expect(200)).body).toEqual({
      status: 'ok',
      as_of: '2026-06-15T12:00:00.000Z',
      customers: 0,
      tiers: { none: { now: 0, under_policy: 0 } },
      moves: { up: 0, down: 0, same: 0 },
    });
  });

  describe('validation (as the settings tier_policy)', () => {
    it('answers 400 missing_data naming tier_policy without the wrapper', async () => {
      expect(expectError(await preview(lifetime.owner, {}), 400, 'missing_data')).toEqual(['tier_policy']);
      expect(expectError(await preview(lifetime.owner, { tier_policy: null }), 400, 'missing_data')).toEqual(['tier_policy']);
      expect(expectError(await preview(lifetime.owner, { basis: 'lifetime' }), 400, 'missing_data')).toEqual(['tier_policy']);
    });

    it('answers 400 missing_data naming the members a period policy requires', async () => {
      expect(expectError(await preview(lifetime.owner, { tier_policy: { basis: 'period' } }), 400, 'missing_data')).toEqual(['tier_policy.downgrade', 'tier_policy.period_months']);
    });

    it.each([
      ['an unknown basis', { basis: 'yearly' }, 'tier_policy.basis'],
      ['period_months not 1, 3, 6 or 12', { ...YEARLY, period_months: 2 }, 'tier_policy.period_months'],
      ['period_months as a string', { ...YEARLY, period_months: '12' }, 'tier_policy.period_months'],
      ['an unknown downgrade', { ...YEARLY, downgrade: 'two_levels' }, 'tier_policy.downgrade'],
      ['grace_days over 365', { ...YEARLY, grace_days: 366 }, 'tier_policy.grace_days'],
      ['negative grace_days', { ...YEARLY, grace_days: -1 }, 'tier_policy.grace_days'],
      ['decimal grace_days', { ...YEARLY, grace_days: 1.5 }, 'tier_policy.grace_days'],
      ['a period member under lifetime', { basis: 'lifetime', period_months: 12 }, 'tier_policy.period_months'],
    ])('answers 400 validation naming the member for %s', async (_label, policy, field) => {
      expect(expectError(await preview(lifetime.owner, { tier_policy: policy }), 400, 'validation')).toEqual([field]);
    });

    it('answers 400 argument_error for a member not listed, 401 with a wrong secret', async () => {
      expect(expectError(await preview(lifetime.owner, { tier_policy: { basis: 'lifetime', color: 'gold' } }), 400, 'argument_error')).toEqual(['tier_policy.color']);
      expect(expectError(await preview(lifetime.owner, { tier_policy: YEARLY, apply: true }), 400, 'argument_error')).toEqual(['apply']);
      expectError(await preview({ ...lifetime.owner, apiSecret: 'wrong' }, { tier_policy: YEARLY }), 401, 'unauthorized');
    });
  });
});

/**
 * The preview's computation against tierStanding itself: customers whose facts are summed per segment and share one
 * computation (the memo) get the tier tierStanding gives each of them from their months, with and without a floor,
 * under any policy, tiers and zone.
 */
describe('the preview computation (PolicyTiers) against tierStanding', () => {
  const NOW = Date.parse('2026-06-15T12:00:00.000Z');
  const NOW_MONTH = 2026 * 12 + 5;
  const policies = fc.oneof(
    fc.constant<TierPolicy>({ basis: 'lifetime' }),
    fc.record({
      basis: fc.constant('period' as const),
      periodMonths: fc.constantFrom(1 as const, 3 as const, 6 as const, 12 as const),
      downgrade: fc.constantFrom('one_level' as const, 'to_qualified' as const),
      graceDays: fc.constantFrom(0, 10, 45, 100, 200, 365),
    }),
  );
  const tiersOf = fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }).chain((mins) =>
    fc.tuple(...mins.sort((a, b) => a - b).map((m) => fc.integer({ min: 0, max: m * 100 }).map((retain) => ({ minPoints: m * 100, retainPoints: retain })))),
  );
  /** A customer: credits and outcomes in a few months, of a few amounts, so that many customers share a memo entry. */
  const customer = (tierIds: number[], months: number[]) =>
    fc.record({
      credits: fc.array(
        fc.record({
          month: fc.constantFrom(...months),
          amount: fc.oneof(
            { arbitrary: fc.constantFrom(50, 100, 150, 200, 300, 600), weight: 6 },
            { arbitrary: fc.integer({ min: 1, max: 1500 }), weight: 3 },
            // Not a credit's: the computation from the months as they are.
            { arbitrary: fc.integer({ min: -300, max: -1 }), weight: 1 },
          ),
        }),
        { maxLength: 8 },
      ),
      outcomes: fc.array(fc.record({ month: fc.constantFrom(...months), tierId: fc.constantFrom(...tierIds, 999) }), { maxLength: 1 }),
      floor: fc.option(fc.constantFrom(...tierIds), { nil: null }),
    });

  it('does not sum the facts of a period across a review of an earlier period that takes effect within it (grace days)', () => {
    // Quarters, 100 grace days: the review of Q1 2025 takes effect on 10 July, in Q3. The credit of July comes before it
    // (Q3 qualifies for nothing yet), August's after it: the review keeps Bronze (Q1's 60 reach its retain_points 50),
    // then August lifts to Silver. Summed before the review, Q3's 300 would lift to Silver first, and the review would
    // take it down to Bronze (60 under Silver's retain_points).
    const tiers: RankedTier[] = [
      { id: 1, name: 'Bronze', minPoints: 100, retainPoints: 50 },
      { id: 2, name: 'Silver', minPoints: 300, retainPoints: 300 },
    ];
    const policy: TierPolicy = { basis: 'period', periodMonths: 3, downgrade: 'one_level', graceDays: 100 };
    const now = Date.parse('2025-08-15T00:00:00Z');
    const calendar = new MonthCalendar('UTC');
    const credits: Array<[number, number]> = [
      [2025 * 12 + 1, 60],
      [2025 * 12 + 3, 100],
      [2025 * 12 + 6, 10],
      [2025 * 12 + 7, 290],
    ];
    const standing = (facts: TierFact[]) => tierStanding({ policy, tiers, facts, now, timeZone: 'UTC' }).tierId;
    const raw = credits.map(([month, points]) => ({ at: calendar.at(month), points }));
    expect(standing(raw)).toBe(2);
    const facts = monthFacts({ credits: credits.map(([month, points]) => String(month * MONTH_FACTOR + points + AMOUNT_OFFSET)).join(','), outcomes: null });
    expect(new PolicyTiers(tiers, policy, calendar, 'UTC', now, standing).tierOf(facts)).toBe(2);
  });

  it('gives each customer the tier of tierStanding from their months', () => {
    fc.assert(
      fc.property(
        policies,
        tiersOf,
        fc.constantFrom('UTC', 'Europe/Paris', 'America/Sao_Paulo', 'Asia/Kolkata'),
        fc.option(fc.integer({ min: NOW - 400 * 86_400_000, max: NOW }), { nil: null }),
        fc.uniqueArray(fc.integer({ min: NOW_MONTH - 40, max: NOW_MONTH + 1 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (policy, thresholds, timeZone, changedAt, months, seed) => {
          const tiers: RankedTier[] = thresholds.map((t, i) => ({ id: i + 1, name: `T${i}`, ...t }));
          const ids = tiers.map((t) => t.id);
          const calendar = new MonthCalendar(timeZone);
          const standing = (facts: TierFact[], floorTierId: number | null) =>
            tierStanding({ policy, tiers, facts, now: NOW, timeZone, ...(changedAt === null ? {} : { floor: { tierId: floorTierId, at: changedAt } }) }).tierId;
          const memo = new PolicyTiers(tiers, policy, calendar, timeZone, NOW, standing, changedAt !== null);
          const customers = fc.sample(customer(ids, months), { numRuns: 100, seed });
          for (const c of customers) {
            const facts = monthFacts({
              credits: c.credits.map((x) => String(x.month * MONTH_FACTOR + x.amount + AMOUNT_OFFSET)).join(',') || null,
              outcomes: c.outcomes.map((o) => `${o.month}:${o.tierId}`).join(',') || null,
            });
            const raw: TierFact[] = [
              ...c.credits.map((x) => ({ at: calendar.at(x.month), points: x.amount })),
              ...c.outcomes.map((o) => ({ at: calendar.at(o.month), tierId: o.tierId })),
            ];
            expect({ customer: c, tier: memo.tierOf(facts, c.floor) }).toEqual({ customer: c, tier: standing(raw, c.floor) });
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
