import type { EventExplanation } from './explanation.js';
import { behavior, campaign, DAY, event, goal, group, rules, SECOND, Session, T0 } from './spec-fixtures.js';

const MONDAY = Date.UTC(2026, 0, 5);

/** Several campaigns listening to `visit`, each showing a different reason in the explanation. */
const compiled = rules({
  campaigns: [
    campaign({
      id: 10,
      name: 'Mobile visits',
      behaviors: [
        behavior({
          id: 1,
          name: 'Mobile visitor',
          groups: [
            group([
              goal({ id: 11, name: 'mobile_visit', eventName: 'visit', criteria: [{ field: 'context.app_name', op: 'eq', value: 'mobile' }] }),
              goal({ id: 12, name: 'any_visit', eventName: 'visit', eventCount: 3, minTimeBetweenEvents: 60 }),
            ]),
          ],
        }),
      ],
    }),
    campaign({ id: 20, name: 'Spring', startsAt: T0 + 10 * DAY, behaviors: [behavior({ id: 2, name: 'Spring visit' })] }),
    campaign({
      id: 30,
      name: 'Welcome',
      behaviors: [behavior({ id: 3, name: 'First visit', maxTimesAchievable: 1, outcomes: [{ kind: 'event', args: { name: 'welcomed', by: 1 } }] })],
    }),
    campaign({ id: 40, name: 'Welcome bonus', behaviors: [behavior({ id: 4, name: 'Bonus', points: 5, groups: [group([goal({ id: 41, name: 'welcomed' })])] })] }),
    campaign({ id: 50, name: 'Weekly', startsAt: MONDAY, behaviors: [behavior({ id: 5, name: 'Weekly visit', period: 7 * 86_400, maxTimesAchievablePerPeriod: 1 })] }),
    campaign({ id: 60, name: 'Paused', status: 'paused', behaviors: [behavior({ id: 6, name: 'Paused visit' })] }),
    campaign({ id: 70, name: 'Purchases', behaviors: [behavior({ id: 7, name: 'Purchase', groups: [group([goal({ name: 'purchase' })])] })] }),
  ],
});

const campaignOf = (entry: EventExplanation, id: number) => entry.campaigns.find((c) => c.campaign_id === id)!;
const behaviorOf = (entry: EventExplanation, campaignId: number) => campaignOf(entry, campaignId).behaviors[0];
const goalOf = (entry: EventExplanation, campaignId: number, goalId: number) => behaviorOf(entry, campaignId).goals.find((g) => g.goal_id === goalId)!;

describe('Explanation', () => {
  it('lists the event and each live listening campaign with its state and detail', () => {
    const s = new Session(compiled);
    const [visit] = s.send(event('visit', { occurredAt: T0, context: { app_name: 'web' } })).explanation;
    expect(visit).toMatchObject({ event: 'visit', occurred_at: '2026-01-05T10:00:00.000Z', depth: 0 });
    expect(visit.campaigns.map((c) => [c.campaign_id, c.state])).toEqual([
      [10, 'qualified'],
      [20, 'campaign_not_started'],
      [30, 'qualified'],
      [50, 'qualified'],
    ]);
    expect(campaignOf(visit, 10)).toMatchObject({ campaign_name: 'Mobile visits', detail: 'qualified' });
    expect(campaignOf(visit, 20)).toMatchObject({ detail: 'campaign starts at 2026-01-15T10:00:00.000Z', behaviors: [] });
  });

  it('gives each listening behavior and goal its verdict with the numbers behind it', () => {
    const s = new Session(compiled);
    const [visit] = s.send(event('visit', { occurredAt: T0, context: { app_name: 'web' } })).explanation;
    expect(behaviorOf(visit, 10)).toMatchObject({ behavior_id: 1, behavior_name: 'Mobile visitor', verdict: 'progressed' });
    expect(goalOf(visit, 10, 11)).toEqual({
      goal_id: 11,
      goal_name: 'mobile_visit',
      verdict: 'criteria_failed',
      detail: 'criteria not met: context.app_name eq "mobile" failed (actual: "web")',
    });
    expect(goalOf(visit, 10, 12)).toMatchObject({ verdict: 'counted', detail: 'count +1: 1/3' });
    expect(behaviorOf(visit, 30)).toMatchObject({ verdict: 'completed' });
    expect(behaviorOf(visit, 30).detail).toContain('behavior completed (achieved 0 → 1)');
  });

  it('names an absent field as absent (semantics.md criteria example)', () => {
    const s = new Session(compiled);
    const [visit] = s.send(event('visit', { occurredAt: T0 })).explanation;
    expect(goalOf(visit, 10, 11).detail).toBe('criteria not met: context.app_name eq "mobile" failed (actual: absent)');
  });

  it('says when a throttled goal counts again and when a goal is already complete', () => {
    const s = new Session(compiled);
    s.send(event('visit', { occurredAt: T0, context: { app_name: 'mobile' } }));
    const [visit] = s.send(event('visit', { occurredAt: T0 + 10 * SECOND, context: { app_name: 'mobile' } })).explanation;
    expect(behaviorOf(visit, 10).verdict).toBe('no_progress');
    expect(goalOf(visit, 10, 11).verdict).toBe('already_complete');
    expect(goalOf(visit, 10, 12).verdict).toBe('throttled');
    expect(goalOf(visit, 10, 12).detail).toContain('counts again from 2026-01-05T10:01:00.000Z');
  });

  it('names the cap reached and until when', () => {
    const s = new Session(compiled);
    s.send(event('visit', { occurredAt: T0 }));
    const [visit] = s.send(event('visit', { occurredAt: T0 + DAY })).explanation;
    expect(campaignOf(visit, 30).state).toBe('reached_frequency_cap');
    expect(behaviorOf(visit, 30)).toMatchObject({ verdict: 'cap_reached', detail: 'reached its total cap of 1 completion(s); takes no more progress', goals: [] });
    expect(campaignOf(visit, 50).state).toBe('reached_frequency_period_cap');
    expect(behaviorOf(visit, 50)).toMatchObject({
      verdict: 'cap_reached',
      detail: 'reached its period cap of 1 completion(s); takes progress again from 2026-01-12T00:00:00.000Z',
    });
  });

  it('lists raised events after the event that raised them, with depth 1', () => {
    const s = new Session(compiled);
    const explanation = s.send(event('visit', { occurredAt: T0 })).explanation;
    expect(explanation.map((e) => [e.event, e.depth])).toEqual([
      ['visit', 0],
      ['welcomed', 1],
    ]);
    expect(behaviorOf(explanation[0], 30).detail).toContain('raised event "welcomed" (depth 1)');
    expect(explanation[1]).toMatchObject({ occurred_at: '2026-01-05T10:00:00.000Z', campaigns: [{ campaign_id: 40, state: 'qualified' }] });
    expect(behaviorOf(explanation[1], 40)).toMatchObject({ verdict: 'completed', goals: [{ goal_id: 41, verdict: 'counted' }] });
  });

  it('says so when no campaign listens to the event', () => {
    const s = new Session(compiled);
    expect(s.send(event('unknown', { occurredAt: T0 })).explanation).toEqual([
      { event_index: 0, event: 'unknown', occurred_at: '2026-01-05T10:00:00.000Z', depth: 0, detail: 'no live campaign has a goal listening to this event name', campaigns: [] },
    ]);
  });

  it('has one entry per submitted instance, in order', () => {
    const s = new Session(compiled);
    const explanation = s.send([event('purchase', { occurredAt: T0 }), event('unknown', { occurredAt: T0 + SECOND })]).explanation;
    expect(explanation.map((e) => [e.event, e.occurred_at])).toEqual([
      ['purchase', '2026-01-05T10:00:00.000Z'],
      ['unknown', '2026-01-05T10:00:01.000Z'],
    ]);
    expect(explanation[0].campaigns.map((c) => c.campaign_id)).toEqual([70]);
  });
});

describe('Evaluation without explanation (explain: false)', () => {
  it('answers the same result with an empty explanation, event after event', () => {
    const explained = new Session(compiled);
    const silent = new Session(compiled);
    const sequence = [
      event('visit', { occurredAt: T0, context: { app_name: 'mobile' } }),
      event('visit', { occurredAt: T0 + 10 * SECOND }),
      event('purchase', { occurredAt: T0 + DAY }),
      event('visit', { occurredAt: T0 + 2 * DAY, context: { app_name: 'mobile' } }),
      event('visit', { occurredAt: T0 + 9 * DAY }),
    ];
    for (const instance of sequence) {
      const full = explained.send(instance);
      const bare = silent.send(instance, { explain: false });
      expect(full.explanation.length).toBeGreaterThan(0);
      expect(bare.explanation).toEqual([]);
      expect(bare).toEqual({ ...full, explanation: [] });
    }
    expect(silent.progress).toEqual(explained.progress);
  });
});
