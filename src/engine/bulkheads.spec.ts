import { ExtensionFailure } from './bulkheads.js';
import type { CompiledRules } from './compiled.js';
import type { OperatorDefinition, Reward } from './definitions.js';
import { checkEligibility } from './eligibility.js';
import { evaluate, evaluateStepwise, type EvaluateInput } from './evaluate.js';
import { CORE_OPERATORS, criteriaOperators } from './operators.js';
import { perform } from './perform.js';
import { CORE_REWARDS, defineReward, rewards } from './rewards.js';
import { behavior, campaign, creative, customer, event, goal, group, rules, T0 } from './spec-fixtures.js';
import type { BehaviorRule, CampaignRule, Criterion, CriterionOp } from './types.js';

/** An extension operator that holds when the value is the expected one, and throws on `boom`. */
const fragile: OperatorDefinition = {
  name: 'fragile_eq',
  source: 'FragileModule',
  description: 'Equal, unless the value is boom',
  test: (actual, expected) => {
    if (actual === 'boom') throw new TypeError('fragile_eq cannot compare boom');
    return actual === expected;
  },
};
const operators = criteriaOperators([...CORE_OPERATORS.values(), fragile]);
const FRAGILE = 'fragile_eq' as CriterionOp;

/** An extension reward that credits its points, then throws when asked to. */
const creditThenThrow = defineReward<{ points: number; fail: boolean }>({
  name: 'flaky_points',
  source: 'FlakyModule',
  description: 'Points, unless it fails',
  apply: (ctx, args) => {
    ctx.credit(args.points);
    ctx.raise('stamp', 1);
    if (args.fail) throw new Error('flaky_points failed after crediting');
  },
  points: (args) => args.points,
  raises: () => ['stamp'],
});
const raisesThrow = defineReward<Record<string, never>>({
  name: 'broken_raises',
  source: 'BrokenModule',
  description: 'Cannot even say what it raises',
  apply: () => undefined,
  raises: () => {
    throw new Error('raises is broken');
  },
});
const pointsThrow: Reward = defineReward<Record<string, never>>({
  name: 'broken_points',
  source: 'BrokenModule',
  description: 'Cannot count its points',
  apply: () => undefined,
  points: () => {
    throw new Error('points is broken');
  },
});
const registry = rewards([...CORE_REWARDS.values(), creditThenThrow, raisesThrow, pointsThrow]);

const fragileOn = (field: string): Criterion[] => [{ field, op: FRAGILE, value: 'ok' }];
const visitBehavior = (id: number, p: Partial<BehaviorRule> = {}) => behavior({ id, name: `B${id}`, points: 10, groups: [group([goal({ id: id * 10, name: 'visit' })])], ...p });

function compiled(campaigns: CampaignRule[], extra: Parameters<typeof rules>[0] = { campaigns: [] }): CompiledRules {
  return rules({ ...extra, campaigns }, { operators, rewards: registry });
}

function input(r: CompiledRules, events = [event('visit', { attributes: { kind: 'boom' } })], p: Partial<EvaluateInput> = {}): EvaluateInput {
  return { rules: r, customer: customer(), progress: {}, events, now: T0, multiOrgEnabled: false, ...p };
}

/** Campaign 1 (goal criteria on an extension operator) and campaign 2 (plain) both listen to `visit`. */
const twoCampaigns = (one: Partial<BehaviorRule> = {}, c1: Partial<CampaignRule> = {}) =>
  compiled([
    campaign({ id: 1, behaviors: [visitBehavior(1, { groups: [group([goal({ id: 10, name: 'visit', criteria: fragileOn('kind') })])], ...one })], ...c1 }),
    campaign({ id: 2, behaviors: [visitBehavior(2)] }),
  ]);

describe('bulkheads: an extension that throws fails its campaign for the evaluation, nothing else', () => {
  it("a goal criterion's operator throws: that campaign is skipped as extension_failed, the other's credits stay", () => {
    const result = evaluate(input(twoCampaigns()));
    expect(result.credits.map((c) => [c.campaignId, c.amount])).toEqual([[2, 10]]);
    expect(result.campaignStates).toEqual({ 1: 'extension_failed', 2: 'qualified' });
    expect(result.state).toBe('qualified');
    expect(result.progress[1]).toBeUndefined();
    expect(result.extensionFailures).toEqual([
      expect.objectContaining({ campaignId: 1, eventIndex: 0, kind: 'criteria_operator', extension: 'fragile_eq', source: 'FragileModule', call: 'test', at: 'goal 10' }),
    ]);
    expect(result.extensionFailures[0].message).toBe('TypeError: fragile_eq cannot compare boom');
    expect(result.extensionFailures[0].error).toBeInstanceOf(TypeError);
    const entry = result.explanation[0].campaigns.find((c) => c.campaign_id === 1)!;
    expect(entry).toEqual({
      campaign_id: 1,
      campaign_name: 'Campaign 1',
      state: 'extension_failed',
      skipped: true,
      reason: 'extension_failed',
      behaviors: [],
      detail: 'criteria operator "fragile_eq" of FragileModule threw at goal 10: TypeError: fragile_eq cannot compare boom; the campaign is skipped for this event',
    });
  });

  it('the state is extension_failed, not another campaign\'s failure, when nothing qualified', () => {
    const r = compiled([
      campaign({ id: 2, targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }], behaviors: [visitBehavior(2)] }),
      campaign({ id: 1, behaviors: [visitBehavior(1, { groups: [group([goal({ id: 10, name: 'visit', criteria: fragileOn('kind') })])] })] }),
    ]);
    const result = evaluate(input(r));
    expect(result.campaignStates).toEqual({ 2: 'not_targeted_to_campaign', 1: 'extension_failed' });
    expect(result.state).toBe('extension_failed');
  });

  it('the same operator that does not throw decides as before, and the explanation names it whether it holds or not', () => {
    const holds = evaluate(input(twoCampaigns(), [event('visit', { attributes: { kind: 'ok' } })]));
    expect(holds.extensionFailures).toEqual([]);
    expect(holds.credits.map((c) => c.campaignId)).toEqual([1, 2]);
    const goalDetail = (r: typeof holds) => r.explanation[0].campaigns[0].behaviors[0].goals[0].detail;
    expect(goalDetail(holds)).toBe('count +1: 1/1, goal complete; criteria: kind fragile_eq held, operator of FragileModule');
    const fails = evaluate(input(twoCampaigns(), [event('visit', { attributes: { kind: 'no' } })]));
    expect(goalDetail(fails)).toBe('criteria not met: kind fragile_eq "ok" failed (actual: "no", operator of FragileModule)');
  });

  it('a reward that credits, raises and then throws leaves nothing of its campaign: no credit, no tag, no raised event, no progress', () => {
    const stamps = behavior({ id: 3, name: 'Stamps', groups: [group([goal({ id: 30, name: 'stamp', eventCount: 5 })])] });
    const r = compiled([
      campaign({ id: 1, behaviors: [visitBehavior(1, { tags: ['flaky'], outcomes: [{ kind: 'flaky_points', args: { points: 5, fail: true } }] }), stamps] }),
      campaign({ id: 2, behaviors: [visitBehavior(2)] }),
    ]);
    const result = evaluate(input(r, [event('visit')]));
    expect(result.credits.map((c) => c.campaignId)).toEqual([2]);
    expect(result.customer.tags).toEqual([]);
    expect(result.customer.availablePoints).toBe(10);
    expect(Object.keys(result.progress)).toEqual(['2']);
    expect(result.completions.map((c) => c.campaignId)).toEqual([2]);
    expect(result.extensionFailures.map((f) => [f.kind, f.extension, f.call, f.at])).toEqual([['reward_kind', 'flaky_points', 'apply', 'behavior 1 outcome 1']]);
  });

  it('the same reward that does not throw awards as before', () => {
    const r = compiled([campaign({ id: 1, behaviors: [visitBehavior(1, { outcomes: [{ kind: 'flaky_points', args: { points: 5, fail: false } }] })] })]);
    const result = evaluate(input(r, [event('visit')]));
    expect(result.extensionFailures).toEqual([]);
    expect(result.credits.map((c) => c.amount)).toEqual([10, 5]);
  });

  it("an event raised into another campaign whose targeting throws fails that campaign alone: the raising one's completion stays", () => {
    const r = compiled([
      campaign({ id: 1, behaviors: [visitBehavior(1, { outcomes: [{ kind: 'event', args: { name: 'bonus' } }] })] }),
      campaign({
        id: 2,
        targeting: [{ field: 'user.attributes.kind', op: FRAGILE, value: 'ok' }],
        behaviors: [behavior({ id: 2, points: 7, groups: [group([goal({ id: 20, name: 'bonus' })])] })],
      }),
    ]);
    const result = evaluate(input(r, [event('visit')], { customer: customer({ attributes: { kind: 'boom' } }) }));
    expect(result.credits.map((c) => [c.campaignId, c.amount])).toEqual([[1, 10]]);
    expect(result.extensionFailures.map((f) => [f.campaignId, f.at])).toEqual([[2, 'campaign 2 targeting']]);
    expect(result.explanation.map((e) => [e.depth, e.campaigns.map((c) => c.state)])).toEqual([
      [0, ['qualified']],
      [1, ['extension_failed']],
    ]);
    // Skipped below depth 0, it answers no state of its own: the request's is the campaign that was evaluated.
    expect(result.campaignStates).toEqual({ 1: 'qualified' });
  });

  it("a creative group's targeting throwing fails the campaign whose completion would have delivered it", () => {
    const r = compiled(
      [campaign({ id: 10, behaviors: [visitBehavior(1)] }), campaign({ id: 2, behaviors: [visitBehavior(2)] })],
      { campaigns: [], creatives: [creative({ id: 40, campaignId: 10, behaviorId: 1, targeting: [{ field: 'user.attributes.kind', op: FRAGILE, value: 'ok' }] })] },
    );
    const result = evaluate(input(r, [event('visit')], { customer: customer({ attributes: { kind: 'boom' } }) }));
    expect(result.notifications).toEqual([]);
    expect(result.credits.map((c) => c.campaignId)).toEqual([2]);
    expect(result.extensionFailures.map((f) => [f.campaignId, f.at])).toEqual([[10, 'creative 40 targeting']]);
  });

  it("a budgeted campaign whose extension reward's points throw is skipped before anything is spent", () => {
    const r = compiled([
      campaign({ id: 1, budget: { maxCompletions: null, maxPoints: 100 }, behaviors: [visitBehavior(1, { outcomes: [{ kind: 'broken_points', args: {} }] })] }),
      campaign({ id: 2, behaviors: [visitBehavior(2)] }),
    ]);
    const result = evaluate(input(r, [event('visit')], { budgets: { 1: { completions: null, points: 100 } } }));
    expect(result.budgetUse).toEqual({});
    expect(result.extensionFailures.map((f) => [f.campaignId, f.call])).toEqual([[1, 'points']]);
  });

  it('a reward whose raises() throws compiles (the rules of every other campaign still run) and fails its campaign when it completes', () => {
    const r = compiled([campaign({ id: 1, behaviors: [visitBehavior(1, { outcomes: [{ kind: 'broken_raises', args: {} }] })] }), campaign({ id: 2, behaviors: [visitBehavior(2)] })]);
    expect(r.behaviors.get(1)!.raises).toEqual([]);
    const result = evaluate(input(r, [event('visit')]));
    expect(result.credits.map((c) => c.campaignId)).toEqual([2]);
    expect(result.extensionFailures.map((f) => [f.campaignId, f.call, f.at])).toEqual([[1, 'raises', 'behavior 1 outcome 1']]);
  });

  it("an experiment's campaign whose targeting throws assigns nobody, and the others assign as before", () => {
    const experiment = { holdoutPercent: 0, variants: [{ name: 'control', weight: 1 }], metric: { event: 'visit', attribute: null }, endedAt: null, winner: null };
    const r = compiled([
      campaign({ id: 1, experiment, targeting: [{ field: 'user.attributes.kind', op: FRAGILE, value: 'ok' }], behaviors: [visitBehavior(1)] }),
      campaign({ id: 2, experiment, behaviors: [visitBehavior(2)] }),
    ]);
    const result = evaluate(input(r, [event('visit')], { customer: customer({ attributes: { kind: 'boom' } }) }));
    expect(Object.keys(result.customer.experiments ?? {})).toEqual(['2']);
    expect(result.extensionFailures.map((f) => f.campaignId)).toEqual([1]);
  });

  it("a built-in's error is not an extension's: it fails the evaluation as before", () => {
    const r = compiled([campaign({ id: 1, behaviors: [visitBehavior(1)] })]);
    const broken = { ...input(r, [event('visit')]), customer: null as never };
    expect(() => evaluate(broken)).toThrow(TypeError);
    expect(() => evaluate(broken)).not.toThrow(ExtensionFailure);
  });

  it('three failing campaigns take four runs and are all reported, in the order they failed; stepwise answers the same', () => {
    const failing = [1, 2, 3].map((id) => campaign({ id, behaviors: [visitBehavior(id, { groups: [group([goal({ id: id * 10, name: 'visit', criteria: fragileOn('kind') })])] })] }));
    const r = compiled([...failing, campaign({ id: 4, behaviors: [visitBehavior(4)] })]);
    let calls = 0;
    const counting: OperatorDefinition = { ...fragile, test: (a, e) => (calls++, fragile.test(a, e)) };
    const counted = rules({ campaigns: [...failing, campaign({ id: 4, behaviors: [visitBehavior(4)] })] }, { operators: criteriaOperators([...CORE_OPERATORS.values(), counting]), rewards: registry });
    const result = evaluate(input(counted));
    // Run 1 meets campaign 1's throw, run 2 campaign 2's, run 3 campaign 3's, run 4 completes: a skipped campaign calls nothing.
    expect(calls).toBe(1 + 1 + 1);
    expect(result.extensionFailures.map((f) => f.campaignId)).toEqual([1, 2, 3]);
    expect(result.credits.map((c) => c.campaignId)).toEqual([4]);
    const steps = evaluateStepwise(input(r));
    let step = steps.next();
    while (!step.done) step = steps.next();
    expect({ ...step.value, extensionFailures: step.value.extensionFailures.map((f) => f.campaignId) }).toEqual({ ...evaluate(input(r)), extensionFailures: [1, 2, 3] });
  });

  it('a skip lasts the evaluation: a later instance of the request is not evaluated by the failed campaign either', () => {
    const events = [event('visit', { attributes: { kind: 'ok' } }), event('visit', { attributes: { kind: 'boom' } })];
    const result = evaluate(input(twoCampaigns({ maxTimesAchievable: null }), events));
    expect(result.credits.map((c) => [c.eventIndex, c.campaignId])).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(result.extensionFailures.map((f) => [f.campaignId, f.eventIndex])).toEqual([[1, 1]]);
  });

  it("perform of a campaign whose reward throws fails as extension_failed, naming it; nothing is completed", () => {
    const r = compiled([campaign({ id: 1, behaviors: [visitBehavior(1, { outcomes: [{ kind: 'flaky_points', args: { points: 5, fail: true } }] })] })]);
    const result = perform({ rules: r, customer: customer(), progress: {}, campaignId: 1, now: T0, multiOrgEnabled: false });
    expect(result.failure).toEqual({ reason: 'extension_failed', detail: expect.stringContaining('reward kind "flaky_points" of FlakyModule threw at behavior 1 outcome 1') });
    expect(result.credits).toEqual([]);
    expect(result.completedCampaignIds).toEqual([]);
    expect(result.extensionFailures.map((f) => f.campaignId)).toEqual([1]);
  });

  it('perform completes its campaign when an event it raises reaches a campaign whose operator throws: that one alone is skipped', () => {
    const r = compiled([
      campaign({ id: 1, behaviors: [visitBehavior(1, { outcomes: [{ kind: 'event', args: { name: 'bonus' } }] })] }),
      campaign({ id: 2, targeting: [{ field: 'user.attributes.kind', op: FRAGILE, value: 'ok' }], behaviors: [behavior({ id: 2, points: 7, groups: [group([goal({ id: 20, name: 'bonus' })])] })] }),
    ]);
    const result = perform({ rules: r, customer: customer({ attributes: { kind: 'boom' } }), progress: {}, campaignId: 1, now: T0, multiOrgEnabled: false });
    expect(result.failure).toBeNull();
    expect(result.completedCampaignIds).toEqual([1]);
    expect(result.credits.map((c) => c.campaignId)).toEqual([1]);
    expect(result.extensionFailures.map((f) => f.campaignId)).toEqual([2]);
  });

  it('the eligibility check answers extension_failed for the campaign whose targeting throws, and checks the others', () => {
    const r = compiled([
      campaign({ id: 1, targeting: [{ field: 'user.attributes.kind', op: FRAGILE, value: 'ok' }], behaviors: [visitBehavior(1)] }),
      campaign({ id: 2, behaviors: [visitBehavior(2)] }),
    ]);
    const check = checkEligibility(input(r, [event('visit')], { customer: customer({ attributes: { kind: 'boom' } }) }));
    expect(check.campaigns.map((c) => [c.campaignId, c.state])).toEqual([
      [1, 'extension_failed'],
      [2, 'qualified'],
    ]);
    expect(check.state).toBe('qualified');
    expect(check.extensionFailures.map((f) => [f.campaignId, f.at])).toEqual([[1, 'campaign 1 targeting']]);
  });
});
