import { behavior, campaign, customer, DAY, event, goal, group, HOUR, rules, T0 } from '../../engine/spec-fixtures.js';
import { experimentGroup, type BudgetLeft } from '../../engine/index.js';
import { HistoryReplay } from '../evaluation/history-replay.js';
import { SimulationTally } from './simulation-results.js';

const CAMPAIGN = 10;

/**
 * A campaign whose 'Buyer' completes on every 2 purchases (10 points, at most 2 times) and 'Visitor' on each visit (3);
 * the organization's Silver tier starts at 12 points.
 */
function compiled(budget: { maxCompletions: number | null; maxPoints: number | null } | null = null) {
  return rules({
    tiers: [{ id: 1, name: 'Silver', minPoints: 12 }],
    campaigns: [
      campaign({
        id: CAMPAIGN,
        budget,
        behaviors: [
          behavior({ id: 1, name: 'Buyer', points: 10, maxTimesAchievable: 2, groups: [group([goal({ id: 11, name: 'purchase', eventCount: 2 })])] }),
          behavior({ id: 2, name: 'Visitor', points: 3, groups: [group([goal({ id: 21, name: 'visit', eventCount: 1 })])] }),
        ],
      }),
    ],
  });
}

/** Replays each customer's events (customer by customer) and answers the tally's results. */
function replay(events: Record<string, Array<{ name: string; at: number }>>, budget: Parameters<typeof compiled>[0] = null, timeZone = 'UTC') {
  const r = compiled(budget);
  const budgets: Record<number, BudgetLeft> = budget ? { [CAMPAIGN]: { completions: budget.maxCompletions, points: budget.maxPoints } } : {};
  const history = new HistoryReplay(r, false, budgets, false);
  const tally = new SimulationTally(r, timeZone);
  for (const [id, list] of Object.entries(events)) {
    const state = { ...HistoryReplay.start(customer({ id })), achieved: new Set<number>() };
    for (const e of list) tally.add(history.next(state, { instance: event(e.name, { occurredAt: e.at }), qualify: false }), state.achieved);
    tally.reached(state.snapshot.tierId);
  }
  return tally.results();
}

describe('a replay tallied (contract §15 results)', () => {
  it('adds points, achievements and achievers by behavior, carrying each customer’s progress from event to event', () => {
    const results = replay({
      a: [
        { name: 'purchase', at: T0 },
        { name: 'purchase', at: T0 + HOUR },
        { name: 'visit', at: T0 + 2 * HOUR },
      ],
      b: [{ name: 'purchase', at: T0 }],
    });
    expect(results).toEqual({
      points: 13,
      achievements: 2,
      customers_achieved: 1,
      behaviors: { Buyer: { achievements: 1, customers_achieved: 1, points: 10 }, Visitor: { achievements: 1, customers_achieved: 1, points: 3 } },
      by_day: [{ day: '2026-01-05', achievements: 2, points: 13 }],
      states: { qualified: 4 },
      effects: {},
      tiers: { Silver: 1, none: 1 },
    });
  });

  it('applies caps as live evaluation does: past max_times_achievable the state is reached_frequency_cap', () => {
    const purchases = Array.from({ length: 6 }, (_, i) => ({ name: 'purchase', at: T0 + i * HOUR }));
    const results = replay({ a: purchases });
    expect(results.behaviors.Buyer).toEqual({ achievements: 2, customers_achieved: 1, points: 20 });
    expect(results.states).toEqual({ qualified: 4, reached_frequency_cap: 2 });
  });

  it('counts days in the organization’s time zone and leaves out days with no achievement', () => {
    // 23:30 UTC on Jan 5 is Jan 6 in Tokyo; Jan 7 has a purchase but no completion.
    const late = Date.UTC(2026, 0, 5, 23, 30);
    const results = replay({ a: [{ name: 'visit', at: late }, { name: 'visit', at: late + DAY }, { name: 'purchase', at: late + 2 * DAY }] }, null, 'Asia/Tokyo');
    expect(results.by_day).toEqual([
      { day: '2026-01-06', achievements: 1, points: 3 },
      { day: '2026-01-07', achievements: 1, points: 3 },
    ]);
  });

  it('shares the budget across customers: completions past it are budget_exhausted and credit nothing', () => {
    const results = replay(
      {
        a: [{ name: 'visit', at: T0 }],
        b: [{ name: 'visit', at: T0 + HOUR }],
        c: [{ name: 'visit', at: T0 + 2 * HOUR }],
      },
      { maxCompletions: 2, maxPoints: null },
    );
    expect(results).toEqual(expect.objectContaining({ points: 6, achievements: 2, customers_achieved: 2, states: { qualified: 2, budget_exhausted: 1 } }));
  });

  it('counts a customer once among those who achieved, however many behaviors and times', () => {
    const results = replay({ a: [{ name: 'visit', at: T0 }, { name: 'visit', at: T0 + HOUR }, { name: 'purchase', at: T0 }, { name: 'purchase', at: T0 + HOUR }] });
    expect(results.customers_achieved).toBe(1);
    expect(results.behaviors.Visitor).toEqual({ achievements: 2, customers_achieved: 1, points: 6 });
  });

  it('changes the customer’s profile as evaluations do: points carried to the next event', () => {
    const r = compiled();
    const history = new HistoryReplay(r, false, {}, false);
    const state = HistoryReplay.start(customer({ id: 'a', availablePoints: 5 }));
    history.next(state, { instance: event('visit', { occurredAt: T0 }), qualify: false });
    history.next(state, { instance: event('visit', { occurredAt: T0 + HOUR }), qualify: false });
    expect(state.snapshot.availablePoints).toBe(11);
    expect(state.progress[2].achieved).toBe(2);
  });
});

describe('a replay of a campaign with an experiment (contract §20)', () => {
  const experiment = { holdoutPercent: 50, variants: [{ name: 'A', weight: 1 }], metric: { event: 'visit', attribute: null }, endedAt: null, winner: null };
  const r = rules({
    campaigns: [campaign({ id: CAMPAIGN, experiment, behaviors: [behavior({ id: 2, name: 'Visitor', points: 3, groups: [group([goal({ id: 21, name: 'visit', eventCount: 1 })])] })] })],
  });

  it('counts each group’s customers and what the campaign did for them, by the live assignment', () => {
    const history = new HistoryReplay(r, false, {}, false);
    const tally = new SimulationTally(r, 'UTC');
    const ids = Array.from({ length: 40 }, (_, i) => `customer-${i}`);
    for (const id of ids) {
      const state = { ...HistoryReplay.start(customer({ id })), achieved: new Set<number>() };
      for (const at of [T0, T0 + HOUR]) tally.add(history.next(state, { instance: event('visit', { occurredAt: at }), qualify: false }), state.achieved);
    }
    const results = tally.results();
    // Each customer's group as live evaluation assigns it (the engine's deterministic rule).
    const held = ids.filter((id) => experimentGroup(r.campaigns.get(CAMPAIGN)!.rule, customer({ id })) === 'holdout').length;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(40);
    expect(results.groups).toEqual({
      holdout: { customers: held, achievements: 0, points: 0 },
      A: { customers: 40 - held, achievements: 2 * (40 - held), points: 6 * (40 - held) },
    });
    expect(results.points).toBe(6 * (40 - held));
  });

  it('has no groups without an experiment', () => {
    expect(replay({ a: [{ name: 'visit', at: T0 }] }).groups).toBeUndefined();
  });
});
