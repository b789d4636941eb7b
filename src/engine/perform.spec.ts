import type { CompiledRules } from './compiled.js';
import { behaviorEligibility, perform, performBehaviorsInvolved, type PerformInput } from './perform.js';
import { behavior, campaign, creative as baseCreative, customer, DAY, event, goal, group, MINUTE, rules, Session, T0 } from './spec-fixtures.js';
import type { BehaviorRule, CampaignRule, CreativeRule, CustomerSnapshot, ProgressMap } from './types.js';

const creative = (p: Partial<CreativeRule> = {}) => baseCreative({ behaviorId: 1, message: 'Well done', payload: { screen: 'rewards' }, ...p });

/** Campaign 10: "Explorer" (id 1: two goals in one group, 3 visits + 2 distinct stores) and "Reviewer" (id 2). */
function explorer(b1: Partial<BehaviorRule> = {}, b2: Partial<BehaviorRule> = {}, c: Partial<CampaignRule> = {}, others: CampaignRule[] = []): CompiledRules {
  return rules({
    campaigns: [
      campaign({
        id: 10,
        name: 'Explore',
        ...c,
        behaviors: [
          behavior({
            id: 1,
            name: 'Explorer',
            points: 50,
            maxTimesAchievable: 1,
            groups: [group([goal({ id: 101, name: 'visit', eventCount: 3, points: 5 }), goal({ id: 102, name: 'store', type: 'unique', uniqueAttribute: 'store_id', eventCount: 2, points: 7 })])],
            ...b1,
          }),
          behavior({ id: 2, name: 'Reviewer', points: 10, maxTimesAchievable: 1, groups: [group([goal({ id: 201, name: 'review' })])], ...b2 }),
        ],
      }),
      ...others,
    ],
    offers: [{ id: 12, name: 'Free coffee', points: 20 }],
    tiers: [
      { id: 1, name: 'Silver', minPoints: 50 },
      { id: 2, name: 'Gold', minPoints: 1000 },
    ],
    creatives: [creative()],
  });
}

function run(compiled: CompiledRules, p: Partial<PerformInput> = {}) {
  return perform({ rules: compiled, customer: customer(), progress: {}, campaignId: 10, now: T0, multiOrgEnabled: false, ...p });
}

describe('perform complete_campaign', () => {
  it('completes every behavior once: all goals earned, behavior and goal points credited', () => {
    const result = run(explorer());
    expect(result.failure).toBeNull();
    expect(result.qualified).toBe(true);
    expect(result.state).toBe('qualified');
    expect(result.campaignStates).toEqual({ 10: 'qualified' });
    expect(result.completions).toEqual([
      { eventIndex: 0, campaignId: 10, behaviorId: 1, achieved: 1, at: T0 },
      { eventIndex: 0, campaignId: 10, behaviorId: 2, achieved: 1, at: T0 },
    ]);
    expect(result.credits.map((c) => [c.behaviorId, c.reason, c.goalId ?? null, c.amount])).toEqual([
      [1, 'behavior', null, 50],
      [1, 'goal', 101, 5],
      [1, 'goal', 102, 7],
      [2, 'behavior', null, 10],
    ]);
    expect(result.customer.availablePoints).toBe(72);
    expect(result.customer.lifetimePoints).toBe(72);
    expect(result.progress[1]).toMatchObject({ achieved: 1, goals: { 101: { count: 0, completed: false }, 102: { count: 0, completed: false } } });
    expect(result.progress[2].achieved).toBe(1);
    expect(result.behaviorDeltas).toEqual({ 1: { currentCount: 0, achieved: 1 }, 2: { currentCount: 0, achieved: 1 } });
    expect(result.goalDeltas).toEqual({ 101: { currentCount: 3, pivots: [] }, 102: { currentCount: 2, pivots: [] }, 201: { currentCount: 1, pivots: [] } });
    expect(result.completedCampaignIds).toEqual([10]);
    expect(result.customer.completedCampaignIds).toEqual([10]);
  });

  it('does not change its input', () => {
    const start = customer();
    const progress: ProgressMap = {};
    run(explorer(), { customer: start, progress });
    expect(start).toEqual(customer());
    expect(progress).toEqual({});
  });

  it('earns every goal of a group even when goal_count needs fewer, and credits each goal once', () => {
    const compiled = explorer({ groups: [group([goal({ id: 101, name: 'a', points: 1 }), goal({ id: 102, name: 'b', points: 2 }), goal({ id: 103, name: 'c', points: 4 })], 1)] });
    const result = run(compiled);
    expect(result.credits.filter((c) => c.reason === 'goal').map((c) => c.goalId)).toEqual([101, 102, 103]);
    expect(result.customer.availablePoints).toBe(50 + 7 + 10);
  });

  it('completes a behavior that already has progress, crediting its goals once', () => {
    const compiled = explorer();
    const s = new Session(compiled);
    s.send(event('visit', { count: 2 }));
    s.send(event('store', { attributes: { store_id: 'A' } }));
    const result = run(compiled, { customer: s.customer, progress: s.progress });
    expect(result.goalDeltas[101]).toEqual({ currentCount: 1, pivots: [] });
    expect(result.goalDeltas[102]).toEqual({ currentCount: 1, pivots: [] });
    expect(result.credits.filter((c) => c.behaviorId === 1).map((c) => c.amount)).toEqual([50, 5, 7]);
  });

  it('awards outcomes: offers with their points, points, tags and a tier outcome', () => {
    const compiled = explorer(
      { tags: ['explorer', 'vip'], outcomes: [{ kind: 'deal', args: { id: 12 } }, { kind: 'points', args: 3 }, { kind: 'tier', args: { name: 'Gold' } }] },
      { tags: ['vip', 'reviewer'] },
    );
    const result = run(compiled, { customer: customer({ tags: ['vip'] }) });
    expect(result.offersIssued).toEqual([{ eventIndex: 0, offerId: 12, campaignId: 10, behaviorId: 1, at: T0 }]);
    expect(result.credits.filter((c) => c.reason === 'offer' || c.reason === 'outcome').map((c) => [c.reason, c.amount])).toEqual([
      ['offer', 20],
      ['outcome', 3],
    ]);
    expect(result.customer.availablePoints).toBe(50 + 5 + 7 + 20 + 3 + 10);
    expect(result.tagsAdded).toEqual(['explorer', 'reviewer']);
    expect(result.customer.tags).toEqual(['vip', 'explorer', 'reviewer']);
    expect(result.tierChange).toMatchObject({ fromTierId: null, toTierId: 2, toTierName: 'Gold', direction: 'up', reason: 'outcome' });
    expect(result.customer.tierId).toBe(2);
  });

  it('recomputes the tier from the lifetime points it credits', () => {
    const result = run(explorer());
    expect(result.tierChange).toMatchObject({ fromTierId: null, toTierId: 1, toTierName: 'Silver', direction: 'up', reason: 'points' });
  });

  it('notifies for the triggered creatives of the completed behaviors, subject to their targeting and statuses', () => {
    expect(run(explorer()).notifications).toEqual([
      {
        eventIndex: 0,
        creativeId: 40,
        campaignId: 10,
        behaviorId: 1,
        behaviorName: 'Explorer',
        type: 'push',
        data: { action_type: 'open_url', url: 'https://example.com/reward', message: 'Well done', payload: { screen: 'rewards' } },
      },
    ]);
    const targeted = rules({
      campaigns: [campaign({ id: 10, behaviors: [behavior({ id: 1, maxTimesAchievable: 1 })] })],
      creatives: [creative({ targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }] }), creative({ id: 41, statuses: ['live', 'paused', 'live'] })],
    });
    expect(run(targeted).notifications).toEqual([]);
    expect(run(targeted, { customer: customer({ tags: ['vip'] }) }).notifications.map((n) => n.creativeId)).toEqual([40]);
  });

  it('evaluates events raised by outcomes after every behavior is complete, reaching other campaigns', () => {
    const other = campaign({ id: 20, behaviors: [behavior({ id: 3, name: 'Welcomed', points: 4, groups: [group([goal({ id: 301, name: 'welcome' })])] })] });
    const compiled = explorer({ outcomes: [{ kind: 'event', args: { name: 'welcome', by: 1 } }] }, { outcomes: [{ kind: 'event', args: { name: 'review', by: 1 } }] }, {}, [other]);
    const result = run(compiled);
    // behavior 2 listens to "review" but is at its total cap by then: completed once only.
    expect(result.completions.map((c) => c.behaviorId)).toEqual([1, 2, 3]);
    expect(result.customer.availablePoints).toBe(72 + 4);
    expect(result.explanation.map((e) => [e.event, e.depth])).toEqual([
      ['complete_campaign', 0],
      ['welcome', 1],
      ['review', 1],
    ]);
    expect(performBehaviorsInvolved(compiled, 10)).toEqual([1, 2, 3]);
  });

  it('does not opt the customer into another opt-in campaign its raised events reach', () => {
    const other = campaign({ id: 20, optInRequired: true, behaviors: [behavior({ id: 3, name: 'Welcomed', points: 4, groups: [group([goal({ id: 301, name: 'welcome' })])] })] });
    const result = run(explorer({ outcomes: [{ kind: 'event', args: { name: 'welcome', by: 1 } }] }, {}, {}, [other]));
    expect(result.completions.map((c) => c.behaviorId)).toEqual([1, 2]);
    expect(result.customer.qualifiedCampaignIds).toEqual([]);
    expect(result.progress[3]).toBeUndefined();
    expect(result.customer.availablePoints).toBe(72);
  });

  it('completes a behavior without caps once, and the campaign is completed for the customer', () => {
    const result = run(explorer({ maxTimesAchievable: null }, { maxTimesAchievable: null }));
    expect(result.completions.map((c) => c.achieved)).toEqual([1, 1]);
    expect(result.completedCampaignIds).toEqual([10]);
  });

  it('qualifies the customer for an opt-in campaign', () => {
    const result = run(explorer({}, {}, { optInRequired: true }));
    expect(result.failure).toBeNull();
    expect(result.qualifiedCampaignIds).toEqual([10]);
    expect(result.customer.qualifiedCampaignIds).toEqual([10]);
    expect(result.qualified).toBe(true);
  });

  it('forces a customer the campaign does not target through, answering qualified: false', () => {
    const result = run(explorer({}, {}, { targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }], prerequisiteCampaignIds: [99] }));
    expect(result.failure).toBeNull();
    expect(result.qualified).toBe(false);
    expect(result.completions).toHaveLength(2);
  });

  describe('caps, as the engine respects them', () => {
    it('leaves a behavior at its total cap as it is and completes the others', () => {
      const compiled = explorer({ maxTimesAchievable: 1 }, { maxTimesAchievable: 2 });
      const s = new Session(compiled);
      s.send(event('visit', { count: 3 }));
      s.send(event('store', { attributes: { store_id: 'A' } }));
      s.send(event('store', { attributes: { store_id: 'B' } }));
      expect(s.achieved(1)).toBe(1);
      const result = run(compiled, { customer: s.customer, progress: s.progress });
      expect(result.completions.map((c) => c.behaviorId)).toEqual([2]);
      expect(result.explanation[0].campaigns[0].behaviors.map((b) => b.verdict)).toEqual(['cap_reached', 'completed']);
      expect(result.completedCampaignIds).toEqual([10]);
    });

    it('leaves a behavior at its period cap as it is', () => {
      const compiled = explorer({ maxTimesAchievable: null, maxTimesAchievablePerMonth: 1 });
      const s = new Session(compiled);
      s.send([event('visit', { count: 3 }), event('store', { attributes: { store_id: 'A' } }), event('store', { attributes: { store_id: 'B' } })]);
      const result = run(compiled, { customer: s.customer, progress: s.progress, now: T0 + MINUTE });
      expect(result.completions.map((c) => c.behaviorId)).toEqual([2]);
    });

    it('fails with nothing_to_complete when every behavior is at a cap', () => {
      const compiled = explorer({ maxTimesAchievable: null, maxTimesAchievablePerMonth: 1 }, { maxTimesAchievable: null, maxTimesAchievablePerMonth: 1 });
      const first = run(compiled, { customer: customer({ completedCampaignIds: [] }) });
      const progress = first.progress;
      const again = run(compiled, { customer: { ...first.customer, completedCampaignIds: [] }, progress, now: T0 + MINUTE });
      expect(again.failure).toEqual({ reason: 'nothing_to_complete', detail: 'every behavior of the campaign is at a cap' });
      expect(again.credits).toEqual([]);
      expect(again.progress).toEqual({});
    });
  });

  describe('failures', () => {
    const fails = (compiled: CompiledRules, p: Partial<PerformInput> = {}) => {
      const result = run(compiled, p);
      expect(result.credits).toEqual([]);
      expect(result.completions).toEqual([]);
      expect(result.progress).toEqual({});
      expect(result.qualified).toBe(false);
      return result.failure?.reason;
    };

    it('answers already_completed on a second perform', () => {
      const compiled = explorer();
      const first = run(compiled);
      expect(fails(compiled, { customer: first.customer, progress: first.progress })).toBe('already_completed');
    });

    it('answers already_completed for a campaign completed through events', () => {
      expect(fails(explorer(), { customer: customer({ completedCampaignIds: [10] }) })).toBe('already_completed');
    });

    it('answers campaign_not_live for a campaign that is not live or not in the rules', () => {
      expect(fails(explorer({}, {}, { status: 'paused' }))).toBe('campaign_not_live');
      expect(fails(explorer(), { campaignId: 77 })).toBe('campaign_not_live');
    });

    it('answers campaign_not_started and campaign_over', () => {
      expect(fails(explorer({}, {}, { startsAt: T0 + DAY }))).toBe('campaign_not_started');
      expect(fails(explorer({}, {}, { endsAt: T0 - DAY }))).toBe('campaign_over');
    });

    it('answers nothing_to_complete for a campaign without behaviors', () => {
      const empty = rules({ campaigns: [campaign({ id: 10, behaviors: [] })] });
      expect(fails(empty)).toBe('nothing_to_complete');
    });
  });

  describe('multi-org', () => {
    it("acts in the customer's division", () => {
      const compiled = rules({
        campaigns: [campaign({ id: 10, divisionId: 1, behaviors: [behavior({ id: 1, maxTimesAchievable: 1 })] })],
        divisionAncestors: { 1: [1], 2: [1, 2] },
      });
      const result = run(compiled, { customer: customer({ divisionId: 2 }), multiOrgEnabled: true });
      expect(result.failure).toBeNull();
      expect(result.qualified).toBe(true);
    });
  });

  describe('behaviorEligibility', () => {
    it('answers whether each behavior can still take progress', () => {
      const compiled = explorer({ maxTimesAchievable: 1 }, { maxTimesAchievable: null });
      const done = run(compiled);
      const start: CustomerSnapshot = done.customer;
      expect(behaviorEligibility(compiled, 10, {}, start, T0)).toEqual({ 1: true, 2: true });
      expect(behaviorEligibility(compiled, 10, done.progress, start, T0)).toEqual({ 1: false, 2: true });
      expect(behaviorEligibility(compiled, 77, {}, start, T0)).toEqual({});
    });
  });
});
