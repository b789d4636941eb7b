import { evaluationOrder, modelInputs, type ModelStep } from './books-model.js';
import { Books, INVARIANTS } from './books-tally.js';
import { CustomerModel, dayIn, modelRules, simulate, simulationDifferences, type CampaignDefinition } from './model.js';
import type { Sent } from './record.js';
import { SOAK_CAMPAIGNS } from './setup.js';

const goal = (name: string, event_count = 1) => ({ goals: [{ achievement: { name, event_count } }] });
const rules = modelRules(SOAK_CAMPAIGNS);
const HOUR = 3_600_000;

describe("the soak's model: its rules", () => {
  it('reads the campaigns the setup creates', () => {
    expect(rules.behaviors.map((b) => `${b.campaign}/${b.name}:${b.points}:${b.maxTimes ?? '-'}${b.budgeted ? ':budget' : ''}`)).toEqual([
      'Everyday/Visit:1:-',
      'Everyday/Five visits:10:100',
      'Everyday/Purchase:5:-',
      'Everyday/Share:3:-',
      'Everyday/Login:1:-',
      'Everyday/Welcome:100:-',
      'Budget/Budget purchase:50:-:budget',
      'Perform/Performed:20:-',
    ]);
    expect(rules.campaigns.get('Budget')!.budget).toEqual({ maxCompletions: 150, maxPoints: null });
  });

  it.each([
    ['criteria', { name: 'B', points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit', criteria: [] } }] }] }, /goal member criteria/],
    ['a unique goal', { name: 'B', points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit', type: 'unique' } }] }] }, /type unique/],
    ['a period cap', { name: 'B', points: 1, data: { period: 60, max_times_achievable_per_period: 1 }, goal_groups: [goal('visit')] }, /data.period/],
    ['outcomes', { name: 'B', points: 1, data: {}, goal_groups: [goal('visit')], outcome_config: [{ points: 5 }] }, /member outcome_config/],
    ['two groups', { name: 'B', points: 1, data: {}, goal_groups: [goal('visit'), goal('login')] }, /2 goal groups/],
  ])('refuses what it does not model: %s', (_, behavior, message) => {
    expect(() => modelRules([{ name: 'C', behaviors: [behavior] } as CampaignDefinition])).toThrow(message);
  });
});

describe("the soak's model: a customer", () => {
  it('counts visits: each completes Visit, every fifth Five visits; progress resets after a completion', () => {
    const c = new CustomerModel(rules);
    for (let i = 0; i < 7; i += 1) c.event(`v${i}`, 'visit');
    expect(c.behaviors.get('Visit')).toMatchObject({ achieved: 7, made: 7, credited: 7, goals: { visit: 0 } });
    expect(c.behaviors.get('Five visits')).toMatchObject({ achieved: 1, made: 1, credited: 10, goals: { visit: 2 } });
    expect(c.event('p', 'purchase').completions).toEqual(['Purchase']); // the budget did not grant it: refused there
    expect([c.credits, c.lifetime]).toEqual([7 + 10 + 5, 22]);
  });

  it('takes no progress at a total cap; a reversal frees room, progress then resumes', () => {
    const capped = modelRules([{ name: 'C', behaviors: [{ name: 'Two of three', points: 4, data: { max_times_achievable: 2 }, goal_groups: [goal('visit', 3)] }] }]);
    const c = new CustomerModel(capped);
    for (let i = 1; i <= 7; i += 1) c.event(`v${i}`, 'visit');
    expect(c.behaviors.get('Two of three')).toMatchObject({ achieved: 2, made: 2, goals: { visit: 0 } }); // v7 took no progress
    expect(c.atCap('C', 'visit')).toBe(true);
    expect(c.reverse(['v6'])).toEqual({ points: 4, completions: ['Two of three'] });
    expect(c.behaviors.get('Two of three')).toMatchObject({ achieved: 1, made: 2, credited: 8, reversed: 4 });
    for (let i = 8; i <= 10; i += 1) c.event(`v${i}`, 'visit');
    expect(c.behaviors.get('Two of three')).toMatchObject({ achieved: 2, made: 3, credited: 12, reversed: 4, goals: { visit: 0 } });
    expect(c.lifetime).toBe(8);
  });

  it('reverses what a submission completed, once; goal progress is not rewound; a reversal ahead of its event waits for it', () => {
    const c = new CustomerModel(rules);
    for (let i = 1; i <= 6; i += 1) c.event(`v${i}`, 'visit');
    expect(c.reverse(['v5'])).toEqual({ points: 11, completions: ['Visit', 'Five visits'] });
    expect(c.reverse(['v5'])).toEqual({ points: 0, completions: [] });
    expect(c.behaviors.get('Five visits')).toMatchObject({ achieved: 0, made: 1, goals: { visit: 1 } });
    expect(c.reverse(['later'])).toEqual({ points: 0, completions: [] });
    c.event('later', 'share');
    expect(c.behaviors.get('Share')).toMatchObject({ achieved: 0, made: 1, credited: 3, reversed: 3 });
    expect(c.isReversed('later')).toBe(true);
    expect([c.credits, c.lifetime]).toEqual([6 + 10 + 3, 6 + 10 + 3 - 11 - 3]);
  });

  it('a budgeted completion happens only when granted; a grant the rules do not make is reported', () => {
    const c = new CustomerModel(rules);
    const refused = c.event('p1', 'purchase');
    expect(refused).toMatchObject({ completions: ['Purchase'], budgetRefused: ['Budget purchase'], grantedWithout: [] });
    expect(c.behaviors.get('Budget purchase')).toMatchObject({ achieved: 0, goals: { purchase: 0 } }); // as before the event
    expect(c.event('p2', 'purchase', new Set(['Budget purchase']))).toMatchObject({ completions: ['Purchase', 'Budget purchase'], points: 55 });
    expect(c.event('s', 'share', new Set(['Budget purchase'])).grantedWithout).toEqual(['Budget purchase']);
  });

  it('perform completes the campaign once; a second is refused', () => {
    const c = new CustomerModel(rules);
    expect(c.perform('x1', 'Perform')).toMatchObject({ completions: ['Performed'], points: 20 });
    expect(c.completedCampaigns.has('Perform')).toBe(true);
    expect(c.perform('x2', 'Perform')).toBeNull();
    expect(c.behaviors.get('Performed')).toMatchObject({ achieved: 1, credited: 20 });
  });

  it('a campaign whose behaviors all have a total cap is completed when all reach it', () => {
    const capped = modelRules([{ name: 'C', behaviors: [{ name: 'Once', points: 1, data: { max_times_achievable: 1 }, goal_groups: [goal('login')] }] }]);
    const c = new CustomerModel(capped);
    c.event('l1', 'login');
    expect(c.completedCampaigns.has('C')).toBe(true);
    expect(c.perform('x', 'C')).toBeNull();
  });
});

describe("the soak's model: simulations", () => {
  const T = Date.UTC(2026, 10, 27, 22, 30); // 23:30 in Paris: an hour later is the next day there
  const events = [
    ...Array.from({ length: 5 }, (_, i) => ({ customerId: 'a', name: 'visit', occurredMs: T + i * 20 * 60_000, order: i })),
    { customerId: 'a', name: 'welcome', occurredMs: T - HOUR, order: 10 },
    { customerId: 'b', name: 'share', occurredMs: T + 2 * HOUR, order: 11 },
    { customerId: 'c', name: 'purchase', occurredMs: T, order: 12 },
  ];

  it('replays each customer from nothing, in occurred_at order, and adds up by behavior and day', () => {
    const out = simulate(rules, 'Everyday', events, 'Europe/Paris');
    expect(out).toEqual({
      customers: 3,
      events_replayed: 8,
      points: 5 + 10 + 100 + 3 + 5,
      achievements: 5 + 1 + 1 + 1 + 1,
      customers_achieved: 3,
      behaviors: {
        Welcome: { achievements: 1, customers_achieved: 1, points: 100 },
        Visit: { achievements: 5, customers_achieved: 1, points: 5 },
        'Five visits': { achievements: 1, customers_achieved: 1, points: 10 },
        Purchase: { achievements: 1, customers_achieved: 1, points: 5 },
        Share: { achievements: 1, customers_achieved: 1, points: 3 },
      },
      // Paris: 22:30 and 22:50 UTC on the 27th, the rest (the fifth visit at 23:50 UTC) on the 28th.
      by_day: [
        { day: '2026-11-27', achievements: 1 + 2 + 1, points: 100 + 2 + 5 },
        { day: '2026-11-28', achievements: 3 + 1 + 1, points: 3 + 10 + 3 },
      ],
      states: { qualified: 8 },
    });
    expect(dayIn(T, 'Europe/Paris')).toBe('2026-11-27');
    expect(dayIn(T + HOUR, 'Europe/Paris')).toBe('2026-11-28');
  });

  it('counts an event as reached_frequency_cap when every behavior listening is at its total cap', () => {
    const capped = modelRules([{ name: 'C', behaviors: [{ name: 'Once', points: 1, data: { max_times_achievable: 1 }, goal_groups: [goal('login')] }] }]);
    const out = simulate(capped, 'C', [1, 2, 3].map((i) => ({ customerId: 'a', name: 'login', occurredMs: T + i, order: i })), 'UTC');
    expect(out.states).toEqual({ qualified: 1, reached_frequency_cap: 2 });
    expect(() => simulate(rules, 'Budget', [], 'UTC')).toThrow(/budget/);
  });

  it('compares with the stored results: members the model does not give, and behaviors with nothing, left out', () => {
    const expected = simulate(rules, 'Everyday', events, 'Europe/Paris');
    const stored = { ...expected, behaviors: { ...expected.behaviors, Login: { achievements: 0, customers_achieved: 0, points: 0 } }, effects: { tag: 1 }, tiers: { none: 3 } };
    expect(simulationDifferences(expected, stored)).toEqual([]);
    const wrong = { ...stored, points: expected.points + 10, behaviors: { ...expected.behaviors, 'Five visits': { achievements: 2, customers_achieved: 1, points: 20 } } };
    expect(simulationDifferences(expected, wrong)).toEqual([
      `points ${expected.points + 10}, model ${expected.points}`,
      expect.stringMatching(/^behaviors .*"Five visits":\{"achievements":2.*, model .*"Five visits":\{"achievements":1/),
    ]);
  });
});

describe("the soak's model: its inputs", () => {
  const log = (id: number, marker: string | null, customer: string, name: string, extra: Partial<{ source: string; transaction_id: string; processed_ms: number; completed: number[] }> = {}) => ({
    id: String(id),
    customer_id: customer,
    marker,
    name,
    source: extra.source ?? 'v1',
    transaction_id: extra.transaction_id ?? null,
    status: 'processed',
    occurred_ms: 1000 + id,
    processed_ms: extra.processed_ms ?? 2000 + id,
    created_ms: 1000 + id,
    completed: extra.completed ?? [],
  });
  const sent = (kind: Sent['kind'], status: number, more: Partial<Sent>): Sent => ({ kind, status, at: 500, ms: 10, api: 0, ...more });

  it('feeds what was answered 2xx, and what had no answer only when the log holds it; checks the rows are what was sent', () => {
    const books = new Books();
    const { steps, reversals } = modelInputs(
      [
        sent('v1', 200, { marker: 'm1', customerId: 'a', events: [{ name: 'visit', customerId: 'a' }], transactionId: 'tx1' }),
        sent('v1', 0, { marker: 'm2', customerId: 'a', events: [{ name: 'share', customerId: 'a' }] }), // stored
        sent('v1', 503, { marker: 'm3', customerId: 'a', events: [{ name: 'login', customerId: 'a' }] }), // not stored
        sent('v1', 200, { marker: 'm4', customerId: 'b', events: [{ name: 'visit', customerId: 'b' }] }), // answered, not stored
        sent('v1', 409, { marker: 'm5', customerId: 'a', events: [{ name: 'visit', customerId: 'a' }], transactionId: 'tx1', repeat: true }),
        sent('v2', 200, { marker: 'm6', events: [{ name: 'visit', customerId: 'a' }, { name: 'purchase', customerId: 'b' }] }),
        sent('reversal', 200, { customerId: 'a', transactionId: 'tx1' }),
        sent('reversal', 0, { customerId: 'a', transactionId: 'tx9' }), // not stored
        sent('perform', 0, { customerId: 'b', transactionId: 'p1' }),
      ],
      { welcomed: [{ id: 'a', externalId: 'soak-0' }] },
      [
        log(1, 'setup', 'a', 'welcome', { source: 'v2' }),
        log(2, 'm1', 'a', 'visit', { transaction_id: 'tx1' }),
        log(3, 'm2', 'a', 'share'),
        log(4, 'm6', 'a', 'visit', { source: 'v2' }),
        log(5, 'm6', 'b', 'login', { source: 'v2' }), // sent as a purchase
        log(6, null, 'b', 'complete_campaign', { source: 'perform', transaction_id: 'p1' }),
      ],
      new Map([['tx1', 3000]]),
      books,
    );
    expect(steps.map((s) => `${s.key} ${s.kind} ${s.customerId} ${s.name}`)).toEqual([
      '1 event a welcome',
      '2 event a visit',
      '3 event a share',
      'missing-1 event b visit',
      '4 event a visit',
      'missing-2 event b purchase',
      '6 perform b complete_campaign',
    ]);
    expect(reversals).toEqual([{ customerId: 'a', transactionId: 'tx1', atMs: 3000, keys: ['2'] }]);
    const report = books.report();
    expect(report.checked.find((c) => c.invariant === INVARIANTS.modelInput)).toEqual({ invariant: INVARIANTS.modelInput, items: 5, violations: 1 });
    expect(report.violations[0].detail).toMatch(/^v2 submission m6 \(answered 200\): 2 events sent, 2 stored; 1 sent without .*, 1 stored that were not sent \(login of b\)/);
  });

  it('orders a customer by processed_at, V1 sync and perform rows among themselves by id, missing ones last', () => {
    const step = (key: string, source: string, processedMs: number | null, logId: number | null): ModelStep => ({
      key,
      kind: 'event',
      customerId: 'a',
      name: 'visit',
      source,
      transactionId: null,
      occurredMs: 0,
      processedMs,
      createdMs: null,
      logId,
      completed: [],
      via: key,
    });
    const order = evaluationOrder([step('m', 'v1', null, null), step('w', 'v2', 5, 1), step('s1', 'v1', 30, 3), step('s2', 'v1', 20, 4), step('q', 'v1_async', 25, 2)]);
    expect(order.map((s) => s.key)).toEqual(['w', 's1', 'q', 's2', 'm']);
  });
});
