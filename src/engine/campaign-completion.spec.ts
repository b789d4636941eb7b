import { behavior, campaign, event, goal, group, MINUTE, rules, Session, T0 } from './spec-fixtures.js';
import type { BehaviorRule } from './types.js';

const listen = (name: string) => [group([goal({ name })])];

/** Campaign 10 with the given behaviors (ids 1, 2, ...), each listening to its own event ("a", "b", ...). */
function session(behaviors: Array<Partial<BehaviorRule>>) {
  const names = ['a', 'b', 'c'];
  const compiled = rules({
    campaigns: [campaign({ id: 10, behaviors: behaviors.map((b, i) => behavior({ id: i + 1, name: `B${i + 1}`, groups: listen(names[i]), ...b })) })],
  });
  const s = new Session(compiled);
  let minute = 0;
  const send = (name: string) => s.send(event(name, { occurredAt: T0 + (minute += 1) * MINUTE }));
  return { s, send };
}

describe('Campaign completion and prerequisites', () => {
  it('completes the campaign when every behavior has reached its total cap', () => {
    const { s, send } = session([{ maxTimesAchievable: 1 }, { maxTimesAchievable: 2 }]);
    expect(send('a').completedCampaignIds).toEqual([]);
    expect(send('b').completedCampaignIds).toEqual([]);
    expect(s.customer.completedCampaignIds).toEqual([]);

    const last = send('b');
    expect(last.completedCampaignIds).toEqual([10]);
    expect(last.customer.completedCampaignIds).toEqual([10]);
  });

  it('reports the completion once: later events answer reached_frequency_cap', () => {
    const { s, send } = session([{ maxTimesAchievable: 1 }]);
    expect(send('a').completedCampaignIds).toEqual([10]);
    const again = send('a');
    expect(again.state).toBe('reached_frequency_cap');
    expect(again.completedCampaignIds).toEqual([]);
    expect(s.customer.completedCampaignIds).toEqual([10]);
  });

  it('is not completed while one behavior is below its cap', () => {
    const { s, send } = session([{ maxTimesAchievable: 1 }, { maxTimesAchievable: 2 }]);
    send('a');
    send('a');
    send('b');
    expect(s.customer.completedCampaignIds).toEqual([]);
  });

  it('is never completed by a behavior without a total cap', () => {
    const { s, send } = session([{ maxTimesAchievable: 1 }, { maxTimesAchievable: null, maxTimesAchievablePerMonth: 1 }]);
    send('a');
    send('b');
    expect(s.achieved(2)).toBe(1);
    expect(s.last.state).toBe('qualified');
    expect(s.customer.completedCampaignIds).toEqual([]);
    expect(send('b').state).toBe('reached_frequency_period_cap');
    expect(s.customer.completedCampaignIds).toEqual([]);
  });

  it('is never completed when its only behavior has no cap, however often it completes', () => {
    const { s, send } = session([{}]);
    for (let i = 0; i < 5; i += 1) send('a');
    expect(s.achieved(1)).toBe(5);
    expect(s.customer.completedCampaignIds).toEqual([]);
  });

  describe('prerequisites', () => {
    const compiled = rules({
      campaigns: [
        campaign({ id: 10, name: 'Welcome', behaviors: [behavior({ id: 1, name: 'Sign up', maxTimesAchievable: 1, groups: listen('signup') })] }),
        campaign({ id: 20, name: 'Regulars', prerequisiteCampaignIds: [10], behaviors: [behavior({ id: 2, name: 'Visit', points: 5, groups: listen('visit') })] }),
      ],
    });

    it('answers missing_prerequisites until the prerequisite campaign is completed, then qualifies', () => {
      const s = new Session(compiled);
      const before = s.send(event('visit', { occurredAt: T0 }));
      expect(before.state).toBe('missing_prerequisites');
      expect(before.campaignStates[20]).toBe('missing_prerequisites');
      expect(before.explanation[0].campaigns[0].detail).toBe('prerequisite campaign(s) not completed: 10');
      expect(s.achieved(2)).toBe(0);
      expect(Object.keys(before.progress)).toEqual([]);

      expect(s.send(event('signup', { occurredAt: T0 + MINUTE })).completedCampaignIds).toEqual([10]);

      const after = s.send(event('visit', { occurredAt: T0 + 2 * MINUTE }));
      expect(after.state).toBe('qualified');
      expect(s.achieved(2)).toBe(1);
      expect(after.customer.availablePoints).toBe(5);
    });

    it('unlocks later instances of the same request', () => {
      const s = new Session(compiled);
      const result = s.send([event('signup', { occurredAt: T0 }), event('visit', { occurredAt: T0 + MINUTE })]);
      expect(result.completedCampaignIds).toEqual([10]);
      expect(result.campaignStates[20]).toBe('qualified');
      expect(s.achieved(2)).toBe(1);
    });

    it('unlocks a campaign listening to an event raised by the completing behavior', () => {
      const chained = rules({
        campaigns: [
          campaign({
            id: 10,
            behaviors: [behavior({ id: 1, name: 'Sign up', maxTimesAchievable: 1, groups: listen('signup'), outcomes: [{ kind: 'event', args: { name: 'welcome', by: 1 } }] })],
          }),
          campaign({ id: 20, prerequisiteCampaignIds: [10], behaviors: [behavior({ id: 2, name: 'Welcome', groups: listen('welcome') })] }),
        ],
      });
      const s = new Session(chained);
      const result = s.send(event('signup', { occurredAt: T0 }));
      expect(result.explanation[1]).toMatchObject({ event: 'welcome', depth: 1, campaigns: [{ campaign_id: 20, state: 'qualified' }] });
      expect(s.achieved(2)).toBe(1);
    });
  });
});
