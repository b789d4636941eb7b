import { DEFAULT_LIMITS, useLimits } from '../../../config/limits.js';
import { objectCheck, useExtensionChecks } from '../../../common/validation/extension-checks.js';
import { PROTOTYPE_KEY_MESSAGE } from '../../../common/validation/reserved-names.js';
import { CORE_REWARDS, defineReward, rewards } from '../../../engine/index.js';
import {
  behaviorsPerCampaignProblem,
  completionPoints,
  completionPointsProblem,
  goalsPerBehaviorProblem,
  liveGoalsProblem,
  outcomePoints,
  uniqueEventCountProblem,
} from './behavior-limits.js';
import { checkBehavior } from './behavior-validation.js';

const MAX_INT = 2_147_483_647;

type Json = Record<string, unknown>;

const goal = (achievement: Json = {}) => ({ achievement: { name: 'visit', ...achievement } });
const goals = (count: number, extra: Json = {}) => Array.from({ length: count }, (_, i) => goal({ name: `g${i}`, internal_event_name: 'visit', ...extra }));
const behavior = (extra: Json = {}): Json => ({ name: 'Visits', data: {}, goal_groups: [{ goals: [goal()] }], ...extra });
const errorsOf = (raw: Json) => checkBehavior(raw).errors;

afterEach(() => useLimits({ ...DEFAULT_LIMITS }));

describe('behaviorsPerCampaignProblem', () => {
  it('accepts a campaign reaching the limit, and names the limit past it', () => {
    expect(behaviorsPerCampaignProblem(150, 50)).toBeNull();
    expect(behaviorsPerCampaignProblem(150, 51)).toBe(
      'a campaign may hold at most 200 behaviors (LIMIT_BEHAVIORS_PER_CAMPAIGN): it holds 150 and the batch adds 51',
    );
  });

  it('reads the limit of this process', () => {
    useLimits({ ...DEFAULT_LIMITS, behaviorsPerCampaign: 3 });
    expect(behaviorsPerCampaignProblem(0, 3)).toBeNull();
    expect(behaviorsPerCampaignProblem(2, 2)).toMatch(/^a campaign may hold at most 3 behaviors \(LIMIT_BEHAVIORS_PER_CAMPAIGN\)/);
  });
});

describe('liveGoalsProblem', () => {
  it('accepts reaching the limit, and names the limit past it', () => {
    expect(liveGoalsProblem(4_990, 10)).toBeNull();
    expect(liveGoalsProblem(4_990, 11)).toBe(
      'the live campaigns of an organization may hold at most 5000 goals (LIMIT_LIVE_GOALS_PER_ORGANIZATION): they hold 4990 and this write adds 11',
    );
  });

  it('never refuses a write that adds no goals, even over a limit lowered since', () => {
    expect(liveGoalsProblem(6_000, 0)).toBeNull();
    expect(liveGoalsProblem(6_000, -5)).toBeNull();
  });
});

describe('goalsPerBehaviorProblem, uniqueEventCountProblem', () => {
  it('name their limits past them', () => {
    expect(goalsPerBehaviorProblem(100)).toBeNull();
    expect(goalsPerBehaviorProblem(101)).toBe('hold 101 goals: a behavior may hold at most 100 goals over all its goal groups (LIMIT_GOALS_PER_BEHAVIOR)');
    expect(uniqueEventCountProblem(10_000)).toBeNull();
    expect(uniqueEventCountProblem(10_001)).toBe("is 10001: a unique goal's event_count may be at most 10000 (LIMIT_UNIQUE_GOAL_EVENT_COUNT)");
  });
});

describe('checkBehavior and the limits', () => {
  it('counts the goals of all groups together', () => {
    const atLimit = behavior({ goal_groups: [{ goals: goals(50) }, { goals: goals(50).map((g, i) => goal({ ...g.achievement, name: `h${i}` })) }] });
    expect(errorsOf(atLimit)).toEqual({});
    const over = behavior({ goal_groups: [{ goals: goals(50) }, { goals: goals(50).map((g, i) => goal({ ...g.achievement, name: `h${i}` })) }, { goals: [goal()] }] });
    expect(errorsOf(over)).toEqual({ goal_groups: 'hold 101 goals: a behavior may hold at most 100 goals over all its goal groups (LIMIT_GOALS_PER_BEHAVIOR)' });
  });

  it("bounds a unique goal's event_count, and not a count goal's", () => {
    useLimits({ ...DEFAULT_LIMITS, uniqueGoalEventCount: 5 });
    const unique = (eventCount: number) => behavior({ goal_groups: [{ goals: [goal({ type: 'unique', unique_attribute: 'store_id', event_count: eventCount })] }] });
    expect(errorsOf(unique(5))).toEqual({});
    expect(errorsOf(unique(6))).toEqual({
      'goal_groups.0.goals.0.achievement.event_count': "is 6: a unique goal's event_count may be at most 5 (LIMIT_UNIQUE_GOAL_EVENT_COUNT)",
    });
    expect(errorsOf(behavior({ goal_groups: [{ goals: [goal({ event_count: 6 })] }] }))).toEqual({});
  });

  it('sums the points of one completion: the behavior, every goal and the points outcomes', () => {
    const raw = behavior({
      points: 1,
      goal_groups: [{ goals: [goal({ name: 'a', points: 2 }), goal({ name: 'b', points: 3 })] }, { goals: [goal({ name: 'c', points: 4 })] }],
      outcome_config: [{ points: 5 }, { deal: { id: 1 } }, { points: 6 }],
    });
    expect(completionPoints(checkBehavior(raw).input)).toBe(21);
    useLimits({ ...DEFAULT_LIMITS, completionPoints: 21 });
    expect(completionPointsProblem(checkBehavior(raw).input)).toBeNull();
    useLimits({ ...DEFAULT_LIMITS, completionPoints: 20 });
    expect(errorsOf(raw)).toEqual({
      points: "with its goals' points and its points outcomes make 21 points for one completion: a completion may award at most 20 points (LIMIT_COMPLETION_POINTS)",
    });
  });

  describe("an extension reward's declared points", () => {
    const ext = (name: string, points?: (args: never, rules: never) => number) =>
      defineReward<never>({ name, source: 'SpecModule', description: name, apply: () => undefined, ...(points ? { points } : {}) });
    beforeEach(() => {
      const kinds = ['bonus', 'double', 'offer_twice', 'strict_offer', 'negative', 'nothing'];
      useExtensionChecks({
        rewards: new Map(kinds.map((kind) => [kind, objectCheck(undefined)])),
        operators: new Map(),
        rewardKinds: rewards([
          ...CORE_REWARDS.values(),
          ext('bonus', (args: { points: number }) => args.points),
          ext('double', (args: { points: number }) => args.points * 2),
          // Points that depend on the organization's rules (an offer's, as deal's): not known when the behavior is written.
          ext('offer_twice', (args: { id: number }, rules: { offers: Map<number, { points: number }> }) => 2 * (rules.offers.get(args.id)?.points ?? 0)),
          ext('strict_offer', (args: { id: number }, rules: { offers: Map<number, { points: number }> }) => rules.offers.get(args.id)!.points),
          ext('negative', () => -50),
          ext('nothing'),
        ]),
      });
    });
    afterEach(() => useExtensionChecks({ rewards: new Map(), operators: new Map() }));

    it('are counted as the kind declares them, with the built-ins', () => {
      const raw = behavior({ points: 1, goal_groups: [{ goals: [goal({ points: 2 })] }], outcome_config: [{ points: 3 }, { bonus: { points: 10 } }, { double: { points: 20 } }] });
      expect(completionPoints(checkBehavior(raw).input)).toBe(1 + 2 + 3 + 10 + 40);
      useLimits({ ...DEFAULT_LIMITS, completionPoints: 56 });
      expect(errorsOf(raw)).toEqual({});
      useLimits({ ...DEFAULT_LIMITS, completionPoints: 55 });
      expect(errorsOf(raw)).toEqual({
        points: "with its goals' points and its points outcomes make 56 points for one completion: a completion may award at most 55 points (LIMIT_COMPLETION_POINTS)",
      });
    });

    it('refuses an extension reward alone past the limit, and sums a reward given twice', () => {
      useLimits({ ...DEFAULT_LIMITS, completionPoints: 100 });
      expect(errorsOf(behavior({ outcome_config: [{ bonus: { points: 101 } }] }))).toEqual({ points: expect.stringContaining('make 101 points for one completion') });
      expect(errorsOf(behavior({ outcome_config: [{ bonus: { points: 50 } }, { bonus: { points: 51 } }] }))).toEqual({ points: expect.stringContaining('make 101 points') });
      expect(errorsOf(behavior({ outcome_config: [{ bonus: { points: 100 } }] }))).toEqual({});
    });

    it("counts what can be known when the behavior is written: points that depend on the organization's rules as with none", () => {
      expect(outcomePoints('deal', { id: 1 })).toBe(0);
      expect(outcomePoints('offer_twice', { id: 1 })).toBe(0);
      // A kind that cannot answer without the organization's offers counts 0, rather than failing the write.
      expect(outcomePoints('strict_offer', { id: 1 })).toBe(0);
      expect(outcomePoints('negative', {})).toBe(0);
      expect(outcomePoints('nothing', {})).toBe(0);
      expect(outcomePoints('not_loaded', { points: 5 })).toBe(0);
      expect(outcomePoints('points', 7)).toBe(7);
      const raw = behavior({ points: 5, outcome_config: [{ negative: {} }, { nothing: {} }, { offer_twice: { id: 1 } }] });
      expect(completionPoints(checkBehavior(raw).input)).toBe(5);
    });

    it('counts an overflow of declared points as past any limit', () => {
      const raw = behavior({ points: MAX_INT, outcome_config: [{ bonus: { points: MAX_INT } }] });
      expect(errorsOf(raw)).toEqual({ points: expect.stringContaining(`make ${2 * MAX_INT} points for one completion: a completion may award at most ${MAX_INT} points`) });
    });
  });

  // Found by a probe: each member was accepted alone, and the sum overflowed a PostgreSQL integer when V1 credited it (500).
  it('refuses points of 2^31-1 on the behavior, a goal and a points outcome together', () => {
    const raw = behavior({ points: MAX_INT, goal_groups: [{ goals: [goal({ points: MAX_INT })] }], outcome_config: [{ points: MAX_INT }] });
    expect(errorsOf(raw)).toEqual({ points: expect.stringContaining(`make ${3 * MAX_INT} points for one completion: a completion may award at most ${MAX_INT} points (LIMIT_COMPLETION_POINTS)`) });
    expect(errorsOf(behavior({ points: MAX_INT }))).toEqual({});
  });

  it('refuses prototype keys as names of the behavior, its goals, the events and attributes they name', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const raw = behavior({
        name,
        goal_groups: [
          {
            goals: [
              goal({ name, criteria: [{ field: 'context.app_name', op: 'eq', value: name }, { field: `context.${name}`, op: 'exists' }] }),
              goal({ name: 'b', internal_event_name: name, type: 'unique', unique_attribute: name, criteria: [{ field: name, op: 'exists' }] }),
            ],
          },
        ],
        outcome_config: [{ event: { name } }],
      });
      expect(errorsOf(raw)).toEqual({
        name: PROTOTYPE_KEY_MESSAGE,
        'goal_groups.0.goals.0.achievement.name': PROTOTYPE_KEY_MESSAGE,
        'goal_groups.0.goals.0.achievement.criteria.1.field': `names context.${name}: an attribute name ${PROTOTYPE_KEY_MESSAGE}`,
        'goal_groups.0.goals.1.achievement.internal_event_name': PROTOTYPE_KEY_MESSAGE,
        'goal_groups.0.goals.1.achievement.unique_attribute': PROTOTYPE_KEY_MESSAGE,
        'goal_groups.0.goals.1.achievement.criteria.0.field': `names ${name}: an attribute name ${PROTOTYPE_KEY_MESSAGE}`,
        'outcome_config.0.event.name': PROTOTYPE_KEY_MESSAGE,
      });
    }
  });

  it('accepts names that only resemble prototype keys', () => {
    const raw = behavior({ name: 'Constructor', goal_groups: [{ goals: [goal({ name: 'proto', criteria: [{ field: 'context.constructors', op: 'exists' }] })] }] });
    expect(errorsOf(raw)).toEqual({});
  });
});
