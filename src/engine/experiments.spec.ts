import { bucketOf, BUCKETS, experimentGroup, groupOfBucket, HOLDOUT } from './experiments.js';
import type { ExperimentRule } from './types.js';
import { perform } from './perform.js';
import { behavior, campaign, customer, DAY, event, goal, group, HOUR, rules, Session, T0 } from './spec-fixtures.js';

const experiment = (p: Partial<ExperimentRule> = {}): ExperimentRule => ({
  holdoutPercent: 10,
  variants: [
    { name: 'A', weight: 1 },
    { name: 'B', weight: 1 },
  ],
  metric: { event: 'purchase', attribute: 'amount' },
  endedAt: null,
  winner: null,
  ...p,
});

/** Version-4 UUIDs from a seeded generator (mulberry32): the same million customers on every run. */
function uuids(seed: number): () => string {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0).toString(16).padStart(8, '0');
  };
  return () => {
    const h = next() + next() + next() + next();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16], 16) & 3]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };
}

/** A customer of campaign 10 whose hash lands in `wanted`. */
function customerIn(wanted: string, e: ExperimentRule = experiment()): string {
  for (let i = 0; ; i += 1) if (groupOfBucket(e, bucketOf(10, `c-${i}`)) === wanted) return `c-${i}`;
}

describe('experiment assignment', () => {
  it('puts the same customer in the same bucket every time, and different campaigns apart', () => {
    expect(bucketOf(10, 'c1')).toBe(bucketOf(10, 'c1'));
    const buckets = Array.from({ length: 50 }, (_, i) => [bucketOf(10, `c${i}`), bucketOf(11, `c${i}`)]);
    expect(buckets.every(([a, b]) => a >= 0 && a < BUCKETS && b >= 0 && b < BUCKETS)).toBe(true);
    expect(buckets.filter(([a, b]) => a === b).length).toBeLessThan(3);
  });

  it('gives whole buckets: holdout first, then each variant by its weight', () => {
    const e = experiment({ holdoutPercent: 10, variants: [{ name: 'A', weight: 1 }, { name: 'B', weight: 3 }] });
    expect(groupOfBucket(e, 0)).toBe(HOLDOUT);
    expect(groupOfBucket(e, 999)).toBe(HOLDOUT);
    expect(groupOfBucket(e, 1000)).toBe('A');
    expect(groupOfBucket(e, 3249)).toBe('A');
    expect(groupOfBucket(e, 3250)).toBe('B');
    expect(groupOfBucket(e, 9999)).toBe('B');
    expect(groupOfBucket(experiment({ holdoutPercent: 0 }), 0)).toBe('A');
  });

  describe('over 1,000,000 random customers', () => {
    // Each customer's bucket once; a setting's group counts are then its buckets' counts summed.
    const n = 1_000_000;
    const perBucket = new Array<number>(BUCKETS).fill(0);
    const randomUUID = uuids(20_261_129);
    for (let i = 0; i < n; i += 1) perBucket[bucketOf(77, randomUUID())] += 1;

    it.each([
      [10, [1, 1]],
      [0, [1, 2, 3]],
      [25, [5, 1, 1, 1, 100]],
      [90, [1]],
    ])('shares follow holdout %i%% and weights %j within 4 standard deviations', (holdoutPercent, weights) => {
      const e = experiment({ holdoutPercent, variants: weights.map((weight, i) => ({ name: `v${i}`, weight })) });
      const counts = new Map<string, number>();
      perBucket.forEach((count, bucket) => {
        const name = groupOfBucket(e, bucket);
        counts.set(name, (counts.get(name) ?? 0) + count);
      });
      const total = weights.reduce((a, b) => a + b, 0);
      const shares: Array<[string, number]> = [[HOLDOUT, holdoutPercent / 100], ...weights.map((w, i): [string, number] => [`v${i}`, (1 - holdoutPercent / 100) * (w / total)])];
      for (const [name, share] of shares) {
        const sd = Math.sqrt(n * share * (1 - share));
        expect(Math.abs((counts.get(name) ?? 0) - n * share)).toBeLessThanOrEqual(4 * sd + 1e-9);
      }
    });
  });
});

describe('evaluating a campaign with an experiment', () => {
  const buy = (id: number, points: number, variant: string | null = null) =>
    behavior({ id, name: `Buyer ${id}`, points, variant, groups: [group([goal({ id: id * 10, name: 'purchase' })])] });
  const compiled = (e: ExperimentRule = experiment()) => rules({ campaigns: [campaign({ id: 10, experiment: e, behaviors: [buy(1, 5), buy(2, 50, 'A'), buy(3, 70, 'B')] })] });

  it('assigns at the first event (any name), at its time, once; measures metric events from then on', () => {
    const s = new Session(compiled(), customer({ id: customerIn('A') }));
    const first = s.send(event('visit', { occurredAt: T0 }));
    expect(first.experiments).toEqual([
      { campaignId: 10, stored: true, assignment: { group: 'A', assignedAt: T0, metricSum: 0, metricEvents: 0 }, added: { customers: 1, converted: 0, metricSum: 0, metricSumSquares: 0, achievements: 0, points: 0 } },
    ]);
    const second = s.send(event('purchase', { occurredAt: T0 + HOUR, attributes: { amount: 30 } }));
    expect(second.experiments).toEqual([
      { campaignId: 10, stored: true, assignment: { group: 'A', assignedAt: T0, metricSum: 30, metricEvents: 1 }, added: { customers: 0, converted: 1, metricSum: 30, metricSumSquares: 900, achievements: 2, points: 55 } },
    ]);
    const third = s.send(event('purchase', { occurredAt: T0 + 2 * HOUR, context: { amount: '12.5' } }));
    expect(third.experiments[0].added).toEqual({ customers: 0, converted: 0, metricSum: 12.5, metricSumSquares: 42.5 ** 2 - 900, achievements: 2, points: 55 });
    // Before the assignment: not measured, nothing changed, nothing to write.
    const early = s.send(event('visit', { occurredAt: T0 - DAY }), { now: T0 + 3 * HOUR });
    expect(early.experiments).toEqual([]);
  });

  it('counts instances when the metric has no attribute, and a missing attribute as 0', () => {
    const counted = new Session(compiled(experiment({ metric: { event: 'purchase', attribute: null } })), customer({ id: customerIn('B') }));
    counted.send([event('purchase'), event('purchase', { occurredAt: T0 + 1 })]);
    expect(counted.customer.experiments?.[10]).toEqual({ group: 'B', assignedAt: T0, metricSum: 2, metricEvents: 2 });
    const missing = new Session(compiled(), customer({ id: customerIn('B') }));
    missing.send(event('purchase'));
    expect(missing.customer.experiments?.[10]).toEqual({ group: 'B', assignedAt: T0, metricSum: 0, metricEvents: 1 });
  });

  it('does nothing for the holdout: no progress, points or states; the explanation says holdout', () => {
    const s = new Session(compiled(), customer({ id: customerIn(HOLDOUT) }));
    const result = s.send(event('purchase', { attributes: { amount: 40 } }));
    expect(result.state).toBe('not_targeted_to_campaign');
    expect(result.campaignStates).toEqual({});
    expect(result.progress).toEqual({});
    expect(result.credits).toEqual([]);
    expect(result.evaluated).toEqual([]);
    expect(result.explanation[0].campaigns).toEqual([
      { campaign_id: 10, campaign_name: 'Campaign 10', state: 'not_targeted_to_campaign', detail: "the customer is in the holdout of the campaign's experiment", behaviors: [], skipped: true, reason: 'holdout' },
    ]);
    expect(result.experiments[0].assignment).toEqual({ group: HOLDOUT, assignedAt: T0, metricSum: 40, metricEvents: 1 });
  });

  it("evaluates a variant's customers against the behaviors without a variant and their variant's only", () => {
    const s = new Session(compiled(), customer({ id: customerIn('B') }));
    const result = s.send(event('purchase', { attributes: { amount: 1 } }));
    expect(result.completions.map((c) => c.behaviorId)).toEqual([1, 3]);
    expect(result.customer.availablePoints).toBe(75);
  });

  it('does not assign customers it does not reach (not targeted, not live), and assigns them once it does', () => {
    const targeted = rules({
      campaigns: [campaign({ id: 10, experiment: experiment(), targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }], behaviors: [buy(1, 5)] })],
    });
    const s = new Session(targeted, customer({ id: customerIn('A') }));
    expect(s.send(event('visit')).experiments).toEqual([]);
    s.customer = { ...s.customer, tags: ['vip'] };
    expect(s.send(event('visit', { occurredAt: T0 + HOUR })).experiments[0].assignment.assignedAt).toBe(T0 + HOUR);
    const later = rules({ campaigns: [campaign({ id: 10, experiment: experiment(), startsAt: T0 + DAY, behaviors: [buy(1, 5)] })] });
    expect(new Session(later, customer({ id: customerIn('A') })).send(event('visit')).experiments).toEqual([]);
  });

  it('assigns nobody through an event scoped to another campaign', () => {
    const two = rules({ campaigns: [campaign({ id: 10, experiment: experiment(), behaviors: [buy(1, 5)] }), campaign({ id: 20, behaviors: [buy(4, 1)] })] });
    expect(new Session(two, customer({ id: customerIn('A') })).send(event('purchase'), { campaignId: 20 }).experiments).toEqual([]);
    expect(new Session(two, customer({ id: customerIn('A') })).send(event('purchase'), { campaignId: 10 }).experiments).toHaveLength(1);
  });

  it('once ended, evaluates everyone as the winner, the holdout included, and measures no more', () => {
    const ended = compiled(experiment({ endedAt: T0 - HOUR, winner: 'B' }));
    const s = new Session(ended, customer({ id: customerIn(HOLDOUT), experiments: { 10: { group: HOLDOUT, assignedAt: T0 - DAY, metricSum: 0, metricEvents: 0 } } }));
    const result = s.send(event('purchase', { attributes: { amount: 9 } }));
    expect(result.completions.map((c) => c.behaviorId)).toEqual([1, 3]);
    expect(result.experiments).toEqual([]);
    expect(experimentGroup(ended.campaigns.get(10)!.rule, customer({ id: 'new' }))).toBe('B');
  });

  it('perform fails for a holdout customer and completes only the variant\'s behaviors for the others', () => {
    const input = (id: string) => ({ rules: compiled(), customer: customer({ id }), progress: {}, campaignId: 10, now: T0, multiOrgEnabled: false });
    expect(perform(input(customerIn(HOLDOUT))).failure?.reason).toBe('holdout');
    const other = rules({ campaigns: [campaign({ id: 10, experiment: experiment(), behaviors: [buy(1, 5)] }), campaign({ id: 20, behaviors: [buy(4, 1)] })] });
    expect(perform({ ...input(customerIn('A')), rules: other, campaignId: 20 }).experiments).toEqual([]);
    const done = perform(input(customerIn('A')));
    expect(done.failure).toBeNull();
    expect(done.completions.map((c) => c.behaviorId)).toEqual([1, 2]);
  });
});
