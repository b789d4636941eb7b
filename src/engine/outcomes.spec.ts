import { behavior, campaign, creative, customer, event, goal, group, rules, Session, T0 } from './spec-fixtures.js';
import type { BehaviorRule, CampaignRule, CreativeRule, CustomerSnapshot, Status } from './types.js';

const listen = (name: string, eventCount = 1) => [group([goal({ name, eventCount })])];

function session(b: Partial<BehaviorRule>, creatives: CreativeRule[] = [], start: CustomerSnapshot = customer(), others: CampaignRule[] = []) {
  const compiled = rules({
    campaigns: [campaign({ id: 10, behaviors: [behavior({ id: 1, name: 'Explorer', ...b })] }), ...others],
    offers: [{ id: 12, name: 'Free coffee', points: 20 }],
    creatives,
  });
  return new Session(compiled, start);
}

const EXPECTED_NOTIFICATION = {
  eventIndex: 0,
  creativeId: 40,
  campaignId: 10,
  behaviorId: 1,
  behaviorName: 'Explorer',
  type: 'push',
  data: { action_type: 'open_url', url: 'https://example.com/reward', message: 'You earned a coffee', payload: { coupon: 'COFFEE' } },
};

describe('Outcomes: deal', () => {
  it('issues the offer and credits its points', () => {
    const s = session({ outcomes: [{ kind: 'deal', args: { id: 12 } }] });
    const result = s.send(event('visit'));
    expect(result.offersIssued).toEqual([{ eventIndex: 0, offerId: 12, campaignId: 10, behaviorId: 1, at: T0 }]);
    expect(result.credits).toEqual([{ eventIndex: 0, amount: 20, reason: 'offer', offerId: 12, campaignId: 10, behaviorId: 1, at: T0 }]);
    expect(result.customer.availablePoints).toBe(20);
  });

  it('issues nothing before the behavior completes', () => {
    const s = session({ groups: listen('visit', 2), outcomes: [{ kind: 'deal', args: { id: 12 } }] });
    expect(s.send(event('visit')).offersIssued).toEqual([]);
  });
});

describe('Outcomes: ad_unit and triggered creatives', () => {
  it('notifies with the creative data for an ad_unit outcome', () => {
    const s = session({ outcomes: [{ kind: 'ad_unit', args: { id: 40 } }] }, [creative()]);
    expect(s.send(event('visit')).notifications).toEqual([EXPECTED_NOTIFICATION]);
  });

  it('notifies for a creative whose triggered delivery names the behavior', () => {
    const s = session({}, [creative({ behaviorId: 1 })]);
    expect(s.send(event('visit')).notifications).toEqual([EXPECTED_NOTIFICATION]);
  });

  it('notifies once for a creative named both ways', () => {
    const s = session({ outcomes: [{ kind: 'ad_unit', args: { id: 40 } }] }, [creative({ behaviorId: 1 })]);
    expect(s.send(event('visit')).notifications).toHaveLength(1);
  });

  it('notifies on every completion, and not before one', () => {
    const s = session({ groups: listen('visit', 2) }, [creative({ behaviorId: 1 })]);
    expect(s.send(event('visit')).notifications).toEqual([]);
    expect(s.send(event('visit')).notifications).toHaveLength(1);
    expect(s.send(event('visit')).notifications).toEqual([]);
    expect(s.send(event('visit')).notifications).toHaveLength(1);
  });

  it('does not notify for a triggered creative of another behavior', () => {
    const s = session({}, [creative({ behaviorId: 999 })]);
    expect(s.send(event('visit')).notifications).toEqual([]);
  });

  it.each<[string, Status[]]>([
    ['the creative', ['paused', 'live', 'live']],
    ['its group', ['live', 'draft', 'live']],
    ['its line item', ['live', 'live', 'completed']],
  ])('does not notify when %s is not live', (_what, statuses) => {
    const s = session({ outcomes: [{ kind: 'ad_unit', args: { id: 40 } }] }, [creative({ behaviorId: 1, statuses })]);
    const result = s.send(event('visit'));
    expect(s.achieved(1)).toBe(1);
    expect(result.notifications).toEqual([]);
  });

  it('notifies only customers the creative group targets', () => {
    const vipOnly = creative({ behaviorId: 1, targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }] });
    expect(session({}, [vipOnly], customer({ tags: ['regular'] })).send(event('visit')).notifications).toEqual([]);
    expect(session({}, [vipOnly], customer({ tags: ['vip'] })).send(event('visit')).notifications).toHaveLength(1);
  });

  it('checks targeting after the completion added its tags', () => {
    const vipOnly = creative({ behaviorId: 1, targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }] });
    const s = session({ tags: ['vip'] }, [vipOnly]);
    expect(s.send(event('visit')).notifications).toHaveLength(1);
  });

  it('checks targeting after the completion applied its tier outcome', () => {
    const goldOnly = creative({ behaviorId: 1, targeting: [{ field: 'user.tier', op: 'eq', value: 'Gold' }] });
    const compiled = rules({
      campaigns: [campaign({ id: 10, behaviors: [behavior({ id: 1, name: 'Explorer', outcomes: [{ kind: 'tier', args: { name: 'Gold' } }] })] })],
      tiers: [{ id: 2, name: 'Gold', minPoints: 500 }],
      creatives: [goldOnly],
    });
    expect(new Session(compiled).send(event('visit')).notifications).toHaveLength(1);
  });
});

describe('Outcomes: event', () => {
  const listener = () => campaign({ id: 20, behaviors: [behavior({ id: 2, name: 'Done listener', points: 5, groups: listen('explorer_done') })] });

  it('raises the event in the same call: a behavior listening to it completes', () => {
    const s = session({ points: 50, outcomes: [{ kind: 'event', args: { name: 'explorer_done', by: 1 } }] }, [], customer(), [listener()]);
    const result = s.send(event('visit', { context: { app_name: 'mobile' } }));
    expect(s.achieved(1)).toBe(1);
    expect(s.achieved(2)).toBe(1);
    expect(result.customer.availablePoints).toBe(55);
    expect(result.completions.map((c) => c.behaviorId)).toEqual([1, 2]);
    expect(result.explanation.map((e) => [e.event, e.depth])).toEqual([
      ['visit', 0],
      ['explorer_done', 1],
    ]);
    expect(result.explanation[0].campaigns[0].behaviors[0].detail).toContain('raised event "explorer_done" (depth 1)');
  });

  it('raises the event with count `by`, the same time and context, and no attributes', () => {
    const criteria = [
      { field: 'context.app_name', op: 'eq' as const, value: 'mobile' },
      { field: 'store_id', op: 'exists' as const, value: false },
    ];
    const strictListener = campaign({
      id: 20,
      behaviors: [behavior({ id: 2, name: 'Done listener', groups: [group([goal({ name: 'explorer_done', eventCount: 3, criteria })])] })],
    });
    const s = session({ outcomes: [{ kind: 'event', args: { name: 'explorer_done', by: 3 } }] }, [], customer(), [strictListener]);
    s.send(event('visit', { occurredAt: T0 + 5000, attributes: { store_id: 's1' }, context: { app_name: 'mobile' } }));
    expect(s.achieved(2)).toBe(1);
    expect(s.last.explanation[1].occurred_at).toBe('2026-01-05T10:00:05.000Z');
  });

  it('does not raise the event before the behavior completes', () => {
    const s = session({ groups: listen('visit', 2), outcomes: [{ kind: 'event', args: { name: 'explorer_done', by: 1 } }] }, [], customer(), [listener()]);
    const result = s.send(event('visit'));
    expect(result.explanation).toHaveLength(1);
    expect(s.achieved(2)).toBe(0);
  });

  it('nests at most 5 deep: a self-raising behavior completes 6 times for one submitted instance', () => {
    const s = session({ points: 1, groups: listen('ping'), outcomes: [{ kind: 'event', args: { name: 'ping', by: 1 } }] });
    const result = s.send(event('ping'));
    expect(s.achieved(1)).toBe(6);
    expect(result.completions).toHaveLength(6);
    expect(result.customer.lifetimePoints).toBe(6);
    expect(result.explanation.map((e) => e.depth)).toEqual([0, 1, 2, 3, 4, 5]);
    const deepest = result.explanation[5].campaigns[0].behaviors[0];
    expect(deepest.verdict).toBe('completed');
    expect(deepest.detail).toContain('event outcome "ping" not raised: outcome events nest at most 5 deep');
  });

  it('bounds the loop for each submitted instance separately', () => {
    const s = session({ groups: listen('ping'), outcomes: [{ kind: 'event', args: { name: 'ping', by: 1 } }] });
    s.send([event('ping'), event('ping', { occurredAt: T0 + 1000 })]);
    expect(s.achieved(1)).toBe(12);
  });

  it('is also bounded by caps', () => {
    const s = session({ maxTimesAchievable: 3, groups: listen('ping'), outcomes: [{ kind: 'event', args: { name: 'ping', by: 1 } }] });
    const result = s.send(event('ping'));
    expect(s.achieved(1)).toBe(3);
    expect(result.explanation.map((e) => e.depth)).toEqual([0, 1, 2, 3]);
    expect(result.explanation[3].campaigns[0]).toMatchObject({ state: 'reached_frequency_cap', behaviors: [{ verdict: 'cap_reached' }] });
  });
});
