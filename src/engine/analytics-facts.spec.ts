import { perform } from './perform.js';
import { behavior, campaign, customer, DAY, event, goal, group, HOUR, rules, Session, T0 } from './spec-fixtures.js';

/** What an evaluation tells campaign analytics (contract §19): the instances each campaign evaluated, and goals advanced. */
describe('analytics facts of an evaluation', () => {
  const twoVisits = () => behavior({ id: 1, name: 'Visitor', groups: [group([goal({ id: 11, name: 'visit', eventCount: 2 })])] });

  it('lists each instance once per campaign that evaluated it, at the instance time, whatever the goals made of it', () => {
    const compiled = rules({
      campaigns: [
        campaign({ id: 10, behaviors: [twoVisits()] }),
        campaign({ id: 20, behaviors: [behavior({ id: 2, groups: [group([goal({ id: 21, name: 'visit', criteria: [{ field: 'store', op: 'eq', value: 'x' }] })])] })] }),
        campaign({ id: 30, behaviors: [behavior({ id: 3, groups: [group([goal({ id: 31, name: 'purchase' })])] })] }),
      ],
    });
    const result = new Session(compiled).send([event('visit', { occurredAt: T0 }), event('visit', { occurredAt: T0 + HOUR })]);
    expect(result.evaluated).toEqual([
      { eventIndex: 0, campaignId: 10, at: T0 },
      { eventIndex: 0, campaignId: 20, at: T0 },
      { eventIndex: 1, campaignId: 10, at: T0 + HOUR },
      { eventIndex: 1, campaignId: 20, at: T0 + HOUR },
    ]);
  });

  it('leaves out campaigns not live at the time and those that do not target the customer; counts those at a cap', () => {
    const compiled = rules({
      campaigns: [
        campaign({ id: 10, startsAt: T0 + DAY, behaviors: [twoVisits()] }),
        campaign({ id: 20, endsAt: T0 - DAY, behaviors: [behavior({ id: 2, groups: [group([goal({ id: 21, name: 'visit' })])] })] }),
        campaign({ id: 30, targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }], behaviors: [behavior({ id: 3, groups: [group([goal({ id: 31, name: 'visit' })])] })] }),
        campaign({ id: 40, behaviors: [behavior({ id: 4, maxTimesAchievable: 1, groups: [group([goal({ id: 41, name: 'visit' })])] })] }),
      ],
    });
    const s = new Session(compiled);
    s.send(event('visit', { occurredAt: T0 }));
    const second = s.send(event('visit', { occurredAt: T0 + HOUR }));
    expect(second.campaignStates[40]).toBe('reached_frequency_cap');
    expect(second.evaluated.map((e) => e.campaignId)).toEqual([40]);
  });

  it('counts the instances outcome events raise, for the campaigns listening to them', () => {
    const compiled = rules({
      campaigns: [
        campaign({ id: 10, behaviors: [behavior({ id: 1, outcomes: [{ kind: 'event', args: { name: 'visited', by: 1 } }], groups: [group([goal({ id: 11, name: 'visit' })])] })] }),
        campaign({ id: 20, behaviors: [behavior({ id: 2, groups: [group([goal({ id: 21, name: 'visited' })])] })] }),
      ],
    });
    const result = new Session(compiled).send(event('visit', { occurredAt: T0 }));
    expect(result.evaluated).toEqual([
      { eventIndex: 0, campaignId: 10, at: T0 },
      { eventIndex: 0, campaignId: 20, at: T0 },
    ]);
  });

  it("lists a goal's first progress of a cycle and its completion, and nothing an instance did not count for", () => {
    const threeVisits = behavior({ id: 1, groups: [group([goal({ id: 11, name: 'visit', eventCount: 3 })])] });
    const s = new Session(rules({ campaigns: [campaign({ id: 10, behaviors: [threeVisits] })] }));
    expect(s.send(event('visit', { occurredAt: T0 })).goalsAdvanced).toEqual([{ goalId: 11, completed: false }]);
    expect(s.send(event('visit', { occurredAt: T0 + HOUR })).goalsAdvanced).toEqual([]);
    expect(s.send(event('visit', { occurredAt: T0 + 2 * HOUR })).goalsAdvanced).toEqual([{ goalId: 11, completed: true }]);
    expect(s.send(event('purchase', { occurredAt: T0 + 3 * HOUR })).goalsAdvanced).toEqual([]);
    // The next cycle starts the goal again.
    expect(s.send(event('visit', { occurredAt: T0 + 4 * HOUR })).goalsAdvanced).toEqual([{ goalId: 11, completed: false }]);
  });

  it('drops what a budget refused: no goal advanced when the completion did not fit', () => {
    const compiled = rules({ campaigns: [campaign({ id: 10, budget: { maxCompletions: 0, maxPoints: null }, behaviors: [behavior({ id: 1, groups: [group([goal({ id: 11, name: 'visit' })])] })] })] });
    const result = new Session(compiled).send(event('visit', { occurredAt: T0 }), { budgets: { 10: { completions: 0, points: null } } });
    expect(result.campaignStates[10]).toBe('budget_exhausted');
    expect(result.goalsAdvanced).toEqual([]);
    expect(result.evaluated.map((e) => e.campaignId)).toEqual([10]);
  });

  it('perform: the performed campaign evaluated its instance, and every goal of it is completed', () => {
    const compiled = rules({ campaigns: [campaign({ id: 10, behaviors: [twoVisits(), behavior({ id: 2, groups: [group([goal({ id: 21, name: 'review' })])] })] })] });
    const result = perform({ rules: compiled, customer: customer(), progress: {}, campaignId: 10, now: T0, multiOrgEnabled: false });
    expect(result.evaluated).toEqual([{ eventIndex: 0, campaignId: 10, at: T0 }]);
    expect(result.goalsAdvanced).toEqual([
      { goalId: 11, completed: true },
      { goalId: 21, completed: true },
    ]);
  });
});
