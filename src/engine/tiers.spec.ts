import { behavior, campaign, customer, event, goal, group, MINUTE, rules, Session, T0 } from './spec-fixtures.js';
import type { CustomerSnapshot, OutcomeRule, TierRules } from './types.js';

const SILVER = 1;
const GOLD = 2;
const BRONZE = 3;

// Deliberately not in rank order: tiers rank by min_points.
const TIERS = [
  { id: GOLD, name: 'Gold', minPoints: 500 },
  { id: BRONZE, name: 'Bronze', minPoints: 0 },
  { id: SILVER, name: 'Silver', minPoints: 100 },
];

/** Behaviors: purchase (+10 points), earn (+600 points), vip (tier Gold outcome), silver (tier Silver outcome). */
function session(start: CustomerSnapshot, extraOutcomes: OutcomeRule[] = [], tierRules?: TierRules) {
  const listen = (name: string) => [group([goal({ name })])];
  const compiled = rules({
    campaigns: [
      campaign({
        id: 10,
        behaviors: [
          behavior({ id: 1, name: 'Purchase', points: 10, groups: listen('purchase') }),
          behavior({ id: 2, name: 'Big spender', points: 600, groups: listen('earn') }),
          behavior({ id: 3, name: 'VIP', groups: listen('vip'), outcomes: [{ kind: 'tier', args: { name: 'Gold' } }] }),
          behavior({ id: 4, name: 'Silver club', groups: listen('silver'), outcomes: [{ kind: 'tier', args: { name: 'Silver' } }, ...extraOutcomes] }),
        ],
      }),
    ],
    tiers: TIERS,
    ...(tierRules ? { tierRules } : {}),
  });
  const s = new Session(compiled, start);
  let minute = 0;
  const send = (name: string) => s.send(event(name, { occurredAt: T0 + (minute += 1) * MINUTE }));
  return { s, send };
}

describe('Tiers', () => {
  it('Silver at 120, Gold by outcome, still Gold at 130 (semantics.md example)', () => {
    const { send } = session(customer({ lifetimePoints: 110, availablePoints: 110, tierId: BRONZE }));
    // The purchase at T0 + 1 minute: +10 points, 120 lifetime reach Silver's 100 (not Gold's 500).
    const silver = send('purchase');
    expect(silver.customer).toEqual(customer({ lifetimePoints: 120, availablePoints: 120, tierId: SILVER }));
    const toSilver = { fromTierId: BRONZE, toTierId: SILVER, reason: 'points', at: T0 + MINUTE };
    expect(silver.tierChange).toEqual({ ...toSilver, toTierName: 'Silver', direction: 'up', steps: [toSilver] });

    // The VIP event at T0 + 2 minutes: no points, its tier outcome lifts Silver to Gold.
    const gold = send('vip');
    expect(gold.customer).toEqual(customer({ lifetimePoints: 120, availablePoints: 120, tierId: GOLD }));
    const toGold = { fromTierId: SILVER, toTierId: GOLD, reason: 'outcome', at: T0 + 2 * MINUTE };
    expect(gold.tierChange).toEqual({ ...toGold, toTierName: 'Gold', direction: 'up', steps: [toGold] });

    // 130 lifetime points rank Silver, below the Gold the outcome gave: Gold stays.
    const later = send('purchase');
    expect(later.customer).toEqual(customer({ lifetimePoints: 130, availablePoints: 130, tierId: GOLD }));
    expect(later.tierChange).toBeNull();
  });

  it('records each tier a request lifts the customer through, one step each, with its own reason', () => {
    const { s } = session(customer({ lifetimePoints: 95, availablePoints: 95, tierId: BRONZE }));
    const result = s.send([event('purchase', { occurredAt: T0 + MINUTE }), event('vip', { occurredAt: T0 + 2 * MINUTE })]);
    // The request's time is its last event's: the points' move takes it, the outcome's its event's (the same here).
    expect(result.tierChange).toEqual({
      fromTierId: BRONZE,
      toTierId: GOLD,
      toTierName: 'Gold',
      direction: 'up',
      reason: 'outcome',
      at: T0 + 2 * MINUTE,
      steps: [
        { fromTierId: BRONZE, toTierId: SILVER, reason: 'points', at: T0 + 2 * MINUTE },
        { fromTierId: SILVER, toTierId: GOLD, reason: 'outcome', at: T0 + 2 * MINUTE },
      ],
    });
  });

  it('gives the highest tier whose min_points the lifetime points reach', () => {
    const { send } = session(customer({ lifetimePoints: 0 }));
    const result = send('earn');
    expect(result.customer.tierId).toBe(GOLD);
    // No tier yet: 0 lifetime points reach Bronze's 0 as the evaluation starts, then the 600 points Gold's 500.
    expect(result.tierChange).toEqual({
      fromTierId: null,
      toTierId: GOLD,
      toTierName: 'Gold',
      direction: 'up',
      reason: 'points',
      at: T0 + MINUTE,
      steps: [
        { fromTierId: null, toTierId: BRONZE, reason: 'points', at: T0 + MINUTE },
        { fromTierId: BRONZE, toTierId: GOLD, reason: 'points', at: T0 + MINUTE },
      ],
    });
  });

  it('ranks by lifetime points, not available points', () => {
    const { send } = session(customer({ lifetimePoints: 495, availablePoints: 0, tierId: SILVER }));
    const result = send('purchase');
    expect(result.customer).toEqual(customer({ availablePoints: 10, lifetimePoints: 505, tierId: GOLD }));
  });

  // The Silver club's outcomes at T0 + 1 minute: tier Silver, then 600 points, which reach Gold. A customer with no tier
  // is first given Bronze (0 lifetime points reach its min_points 0) as the evaluation starts.
  const toBronze = { fromTierId: null, toTierId: BRONZE, reason: 'points', at: T0 + MINUTE };
  const toSilver = { fromTierId: BRONZE, toTierId: SILVER, reason: 'outcome', at: T0 + MINUTE };
  const toGold = { fromTierId: SILVER, toTierId: GOLD, reason: 'points', at: T0 + MINUTE };
  it.each([
    ['no tier', null, [toBronze, toSilver, toGold]],
    ['Bronze', BRONZE, [toSilver, toGold]],
  ])('reports the change from the tier the request started with (%s) when the tier moves twice', (_label, startTier, steps) => {
    const { send } = session(customer({ lifetimePoints: 0, tierId: startTier }), [{ kind: 'points', args: 600 }]);
    const result = send('silver');
    expect(result.customer.tierId).toBe(GOLD);
    expect(result.tierChange).toEqual({ fromTierId: startTier, toTierId: GOLD, toTierName: 'Gold', direction: 'up', reason: 'points', at: T0 + MINUTE, steps });
  });

  it('never lowers a tier when lifetime points are below it', () => {
    const { send } = session(customer({ lifetimePoints: 0, tierId: GOLD }));
    const result = send('purchase');
    expect(result.customer.tierId).toBe(GOLD);
    expect(result.tierChange).toBeNull();
  });

  it('never lowers a tier when a tier outcome names a lower tier', () => {
    const { send } = session(customer({ lifetimePoints: 0, tierId: GOLD }));
    const result = send('silver');
    expect(result.customer.tierId).toBe(GOLD);
    expect(result.tierChange).toBeNull();
  });

  it('reports no tier change when the customer stays in the same tier', () => {
    const { send } = session(customer({ lifetimePoints: 200, tierId: SILVER }));
    const result = send('purchase');
    expect(result.customer.tierId).toBe(SILVER);
    expect(result.tierChange).toBeNull();
  });
});

describe('Tiers under a period policy (contract §17)', () => {
  const YEARLY: TierRules = { policy: { basis: 'period', periodMonths: 12, downgrade: 'one_level', graceDays: 0 }, timeZone: 'UTC', policyChangedAt: null };
  const YEAR = 365 * 24 * 60 * MINUTE;

  it("moves up at once on the period's points, and the explanation names the period, the points and the rule", () => {
    const { send } = session(customer({ lifetimePoints: 0, tierFacts: [{ at: T0 - 4 * 24 * 60 * MINUTE, points: 95 }] }), [], YEARLY);
    const result = send('purchase');
    expect(result.customer.tierId).toBe(SILVER);
    // The stored facts' 95 points already give Bronze, the stored tier is none: the move is one step from it, rebased.
    const step = { fromTierId: null, toTierId: SILVER, reason: 'points', at: T0 + MINUTE };
    expect(result.tierChange).toEqual({ ...step, toTierName: 'Silver', direction: 'up', steps: [step] });
    expect(result.explanation[0].detail).toContain(
      'tier Bronze → Silver: 105 qualifying point(s) in the period 2026-01-01T00:00:00.000Z to 2027-01-01T00:00:00.000Z (period policy of 12 month(s), one_level, 0 grace day(s))',
    );
    // The next evaluation of a batch starts from the facts with this one's credit.
    expect(result.customer.tierFacts).toEqual([{ at: T0 - 4 * 24 * 60 * MINUTE, points: 95 }, { at: T0 + MINUTE, points: 10 }]);
    expect(result.customer.tierReviewAt).toBe(Date.UTC(2027, 0, 1));
  });

  it('lowers a tier whose review is due, from the stored tier, before the event counts', () => {
    // Gold from 2025's 600 points; 2026 went by without one: at its review in 2027, one level down (Silver).
    const start = customer({ lifetimePoints: 600, tierId: GOLD, tierFacts: [{ at: T0 - YEAR, points: 600 }] });
    const s = new Session(session(start, [], YEARLY).s.compiled, start);
    const result = s.send(event('purchase', { occurredAt: T0 + YEAR + MINUTE }));
    expect(result.customer.tierId).toBe(SILVER);
    const step = { fromTierId: GOLD, toTierId: SILVER, reason: 'review', at: Date.UTC(2027, 0, 1) };
    expect(result.tierChange).toEqual({ ...step, toTierName: 'Silver', direction: 'down', steps: [step] });
    expect(result.explanation[0].detail).toMatch(/^tier Gold → Silver: review of the period 2026-01-01T00:00:00.000Z to 2027-01-01T00:00:00.000Z, 0 qualifying point\(s\)/);
  });

  it('counts a tier outcome for its tier in its period instead of lifting for good', () => {
    const { send } = session(customer({ lifetimePoints: 0, tierFacts: [] }), [], YEARLY);
    const result = send('vip');
    expect(result.customer.tierId).toBe(GOLD);
    // The event's moment counts its points first (none: 0 reach Bronze's min_points 0), then its tier outcome.
    expect(result.tierChange).toEqual({
      fromTierId: null,
      toTierId: GOLD,
      toTierName: 'Gold',
      direction: 'up',
      reason: 'outcome',
      at: T0 + MINUTE,
      steps: [
        { fromTierId: null, toTierId: BRONZE, reason: 'points', at: T0 + MINUTE },
        { fromTierId: BRONZE, toTierId: GOLD, reason: 'outcome', at: T0 + MINUTE },
      ],
    });
    expect(result.tierOutcomes).toEqual([{ eventIndex: 0, tierId: GOLD, at: T0 + MINUTE }]);
  });

  it("keeps the tier held at a policy change until the first review after it, whatever the period's points", () => {
    const changed: TierRules = { ...YEARLY, policyChangedAt: T0 - MINUTE };
    const { send } = session(customer({ lifetimePoints: 600, tierId: GOLD, tierFloorId: GOLD, tierFacts: [] }), [], changed);
    const result = send('purchase');
    expect(result.customer.tierId).toBe(GOLD);
    expect(result.tierChange).toBeNull();
  });

  it('gives a back-dated event every move its credits imply, in order, with their own reasons and times', () => {
    // 600 points two years back: Gold at the event's time; 2024's points keep it at the review of 1 January 2025; 2025
    // went by without one: one level down at the review of 1 January 2026.
    const { s } = session(customer({ lifetimePoints: 0, tierFacts: [] }), [], YEARLY);
    const occurredAt = Date.UTC(2024, 0, 5, 10);
    const result = s.send(event('earn', { occurredAt }), { now: T0 });
    expect(result.customer.tierId).toBe(SILVER);
    expect(result.tierChange).toEqual({
      fromTierId: null,
      toTierId: SILVER,
      toTierName: 'Silver',
      direction: 'up',
      reason: 'review',
      at: Date.UTC(2026, 0, 1),
      steps: [
        { fromTierId: null, toTierId: GOLD, reason: 'points', at: occurredAt },
        { fromTierId: GOLD, toTierId: SILVER, reason: 'review', at: Date.UTC(2026, 0, 1) },
      ],
    });
  });

  it('rebases a path that parts from the stored one years back on the stored tier', () => {
    // Silver in June 2024 (100 points), kept at the 2025 review, one level down to Bronze at the 2026 one: the stored
    // tier. 600 more points that June give Gold then, kept in 2025, one level down to Silver in 2026.
    const june = Date.UTC(2024, 5, 1, 10);
    const { s } = session(customer({ lifetimePoints: 100, tierId: BRONZE, tierFacts: [{ at: june, points: 100 }] }), [], YEARLY);
    const result = s.send(event('earn', { occurredAt: june + MINUTE }), { now: T0 });
    expect(result.customer.tierId).toBe(SILVER);
    expect(result.tierChange?.steps).toEqual([
      { fromTierId: BRONZE, toTierId: GOLD, reason: 'points', at: june + MINUTE },
      { fromTierId: GOLD, toTierId: SILVER, reason: 'review', at: Date.UTC(2026, 0, 1) },
    ]);
  });

  it('writes the reviews due but not yet written before the moves the event adds, each at its time', () => {
    // Gold from 2025's 600 points, kept at the review of 2026 (written: the next one stored is 2027's). The reviews of
    // 2027 to 2029 are due, unwritten, when an event of 4 January 2027 earns 600 points: 2027's review lowered Gold to
    // Silver, the event gave Gold back, 2028's review kept it (2027 qualified), and 2029's lowered it to Silver.
    const start = customer({ lifetimePoints: 600, tierId: GOLD, tierReviewAt: Date.UTC(2027, 0, 1), tierFacts: [{ at: Date.UTC(2025, 5, 1), points: 600 }] });
    const earn = behavior({ id: 2, name: 'Big spender', points: 600, groups: [group([goal({ name: 'earn' })])] });
    const s = new Session(rules({ campaigns: [campaign({ id: 10, endsAt: Date.UTC(2030, 0, 1), behaviors: [earn] })], tiers: TIERS, tierRules: YEARLY }), start);
    const occurredAt = Date.UTC(2027, 0, 4, 10);
    const result = s.send(event('earn', { occurredAt }), { now: Date.UTC(2029, 2, 1) });
    expect(result.customer.tierId).toBe(SILVER);
    expect(result.tierChange?.steps).toEqual([
      { fromTierId: GOLD, toTierId: SILVER, reason: 'review', at: Date.UTC(2027, 0, 1) },
      { fromTierId: SILVER, toTierId: GOLD, reason: 'points', at: occurredAt },
      { fromTierId: GOLD, toTierId: SILVER, reason: 'review', at: Date.UTC(2029, 0, 1) },
    ]);
    expect(result.customer.tierReviewAt).toBe(Date.UTC(2030, 0, 1));
  });

  it('records each tier a request passes through, and adds only the moves of the new facts to a stored path', () => {
    const { s, send } = session(customer({ lifetimePoints: 0, tierFacts: [] }), [], YEARLY);
    // Ten purchases a second apart: Bronze (min_points 0) at the first, Silver (100) at the tenth.
    const silver = s.send(Array.from({ length: 10 }, (_, i) => event('purchase', { occurredAt: T0 + i * 1000 })));
    // The request's time is its last purchase's.
    expect(silver.tierChange).toEqual({
      fromTierId: null,
      toTierId: SILVER,
      toTierName: 'Silver',
      direction: 'up',
      reason: 'points',
      at: T0 + 9000,
      steps: [
        { fromTierId: null, toTierId: BRONZE, reason: 'points', at: T0 },
        { fromTierId: BRONZE, toTierId: SILVER, reason: 'points', at: T0 + 9000 },
      ],
    });
    const gold = send('earn');
    expect(gold.tierChange?.steps).toEqual([{ fromTierId: SILVER, toTierId: GOLD, reason: 'points', at: T0 + MINUTE }]);
  });
});
