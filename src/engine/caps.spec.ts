import { behavior, campaign, customer, DAY, event, goal, group, HOUR, MINUTE, rules, Session, T0 } from './spec-fixtures.js';
import type { BehaviorRule, CampaignRule, CustomerSnapshot } from './types.js';

const NEW_YORK = customer({ timeZone: 'America/New_York' });
const WEEK = 7 * 86_400;

function session(b: Partial<BehaviorRule>, c: Partial<CampaignRule> = {}, start: CustomerSnapshot = customer()) {
  const compiled = rules({ campaigns: [campaign({ id: 10, ...c, behaviors: [behavior({ id: 1, name: 'Visitor', points: 10, ...b })] })] });
  return new Session(compiled, start);
}

const visit = (occurredAt: number, count = 1) => event('visit', { occurredAt, count });
const behaviorExplained = (s: Session) => s.last.explanation[0].campaigns[0].behaviors[0];

describe('Caps and periods: max_times_achievable (total)', () => {
  it('answers reached_frequency_cap after the cap and takes no progress', () => {
    const s = session({ maxTimesAchievable: 1, groups: [group([goal({ id: 11, name: 'visit', eventCount: 2 })])] });
    s.send([visit(T0), visit(T0 + MINUTE)]);
    expect(s.last.state).toBe('qualified');
    expect(s.achieved(1)).toBe(1);

    const result = s.send(visit(T0 + 2 * MINUTE));
    expect(result.state).toBe('reached_frequency_cap');
    expect(result.campaignStates[10]).toBe('reached_frequency_cap');
    expect(Object.keys(result.progress)).toEqual([]);
    expect(s.goalCount(1, 11)).toBe(0);
    expect(result.credits).toEqual([]);
    expect(behaviorExplained(s)).toMatchObject({ verdict: 'cap_reached', detail: 'reached its total cap of 1 completion(s); takes no more progress' });
  });

  it('never lets achieved exceed the total cap, even within one request', () => {
    const s = session({ maxTimesAchievable: 2 });
    const result = s.send([0, 1, 2, 3, 4].map((m) => visit(T0 + m * MINUTE)));
    expect(s.achieved(1)).toBe(2);
    expect(result.completions).toHaveLength(2);
    expect(result.customer.lifetimePoints).toBe(20);
    expect(result.state).toBe('qualified');
  });

  it('is checked before the periodic caps', () => {
    const s = session({ maxTimesAchievable: 1, maxTimesAchievablePerMonth: 1 });
    s.send(visit(T0));
    expect(s.send(visit(T0 + DAY)).state).toBe('reached_frequency_cap');
  });
});

describe('Caps and periods: max_times_achievable_per_period (windows from the campaign start)', () => {
  const MONDAY = Date.UTC(2026, 0, 5); // the campaign starts Monday 00:00: weeks run Monday to Monday
  const weekly = () => session({ period: WEEK, maxTimesAchievablePerPeriod: 1 }, { startsAt: MONDAY });

  it('allows one completion per week and says when the next week starts', () => {
    const s = weekly();
    s.send(visit(T0));
    expect(s.achieved(1)).toBe(1);

    const result = s.send(visit(Date.UTC(2026, 0, 11, 23, 59, 59)));
    expect(result.state).toBe('reached_frequency_period_cap');
    expect(s.achieved(1)).toBe(1);
    expect(behaviorExplained(s)).toMatchObject({
      verdict: 'cap_reached',
      detail: 'reached its period cap of 1 completion(s); takes progress again from 2026-01-12T00:00:00.000Z',
    });
  });

  it('puts an instance exactly on a window boundary in the next window', () => {
    const s = weekly();
    s.send(visit(T0));
    const result = s.send(visit(Date.UTC(2026, 0, 12)));
    expect(result.state).toBe('qualified');
    expect(s.achieved(1)).toBe(2);
    // ...and a completion on the boundary counts in that next window.
    expect(s.send(visit(Date.UTC(2026, 0, 18, 23))).state).toBe('reached_frequency_period_cap');
  });

  it('counts windows from starts_at, not from calendar weeks', () => {
    const wednesdayNoon = Date.UTC(2026, 0, 7, 12);
    const s = session({ period: WEEK, maxTimesAchievablePerPeriod: 1 }, { startsAt: wednesdayNoon });
    s.send(visit(Date.UTC(2026, 0, 13, 9))); // Tuesday, first window
    expect(s.send(visit(Date.UTC(2026, 0, 14, 11, 59))).state).toBe('reached_frequency_period_cap');
    expect(behaviorExplained(s).detail).toContain('takes progress again from 2026-01-14T12:00:00.000Z');
    s.send(visit(Date.UTC(2026, 0, 14, 12)));
    expect(s.achieved(1)).toBe(2);
  });

  it('does not keep a capped instance for later', () => {
    const s = session(
      { period: 86_400, maxTimesAchievablePerPeriod: 1, groups: [group([goal({ id: 11, name: 'visit', eventCount: 2 })])] },
      { startsAt: Date.UTC(2026, 0, 5) },
    );
    s.send([visit(T0), visit(T0 + HOUR)]);
    expect(s.achieved(1)).toBe(1);
    s.send(visit(T0 + 2 * HOUR));
    expect(s.goalCount(1, 11)).toBe(0);
    s.send(visit(T0 + DAY));
    expect(s.achieved(1)).toBe(1);
    expect(s.goalCount(1, 11)).toBe(1);
  });

  it('has no effect without a period', () => {
    const s = session({ period: null, maxTimesAchievablePerPeriod: 1 });
    s.send([visit(T0), visit(T0 + MINUTE), visit(T0 + 2 * MINUTE)]);
    expect(s.last.state).toBe('qualified');
    expect(s.achieved(1)).toBe(3);
  });
});

describe('Caps and periods: _per_month and _per_year (calendar, customer time zone)', () => {
  const firstOfFebruaryNewYork = Date.UTC(2026, 1, 1, 5); // 2026-02-01 00:00 local
  const lateJanuary31NewYork = Date.UTC(2026, 1, 1, 4, 30); // 2026-01-31 23:30 local

  it('replays the month cap sentence of semantics.md for a New York customer', () => {
    const s = session({ maxTimesAchievablePerMonth: 1 }, {}, NEW_YORK);
    s.send(visit(Date.UTC(2026, 0, 10, 15)));
    expect(s.achieved(1)).toBe(1);

    const result = s.send(visit(lateJanuary31NewYork));
    expect(result.state).toBe('reached_frequency_period_cap');
    expect(s.achieved(1)).toBe(1);
    expect(behaviorExplained(s)).toMatchObject({
      verdict: 'cap_reached',
      detail: 'reached its month cap of 1 completion(s); takes progress again from 2026-02-01T05:00:00.000Z',
    });

    expect(s.send(visit(firstOfFebruaryNewYork)).state).toBe('qualified');
    expect(s.achieved(1)).toBe(2);
  });

  it('uses the customer time zone: the same instant is already February for a UTC customer', () => {
    const s = session({ maxTimesAchievablePerMonth: 1 }, {}, customer({ timeZone: 'UTC' }));
    s.send(visit(Date.UTC(2026, 0, 10, 15)));
    s.send(visit(lateJanuary31NewYork));
    expect(s.achieved(1)).toBe(2);
  });

  it('counts a completion late on January 31st local (already February in UTC) in January', () => {
    const s = session({ maxTimesAchievablePerMonth: 1 }, {}, NEW_YORK);
    s.send(visit(lateJanuary31NewYork));
    expect(s.send(visit(Date.UTC(2026, 0, 20))).state).toBe('reached_frequency_period_cap');
    expect(s.send(visit(firstOfFebruaryNewYork)).state).toBe('qualified');
    expect(s.achieved(1)).toBe(2);
  });

  it('caps per local calendar year and says when the next local year starts', () => {
    const s = session({ maxTimesAchievablePerYear: 1 }, {}, NEW_YORK);
    s.send(visit(Date.UTC(2026, 5, 1, 12)));
    const result = s.send(visit(Date.UTC(2027, 0, 1, 4, 30))); // 2026-12-31 23:30 local
    expect(result.state).toBe('reached_frequency_period_cap');
    expect(behaviorExplained(s).detail).toBe('reached its year cap of 1 completion(s); takes progress again from 2027-01-01T05:00:00.000Z');
    s.send(visit(Date.UTC(2027, 0, 1, 5, 30))); // 2027-01-01 00:30 local
    expect(s.achieved(1)).toBe(2);
  });

  it('answers reached_frequency_period_cap only when every listening behavior is at a cap', () => {
    const compiled = rules({
      campaigns: [
        campaign({
          id: 10,
          behaviors: [
            behavior({ id: 1, name: 'Monthly', maxTimesAchievablePerMonth: 1 }),
            behavior({ id: 2, name: 'Twice a month', maxTimesAchievablePerMonth: 2 }),
            behavior({ id: 3, name: 'Once ever', maxTimesAchievable: 1, groups: [group([goal({ name: 'visit' })])] }),
          ],
        }),
      ],
    });
    const s = new Session(compiled);
    s.send(visit(T0));
    expect(s.send(visit(T0 + HOUR)).state).toBe('qualified');
    expect(s.achieved(2)).toBe(2);
    const result = s.send(visit(T0 + 2 * HOUR));
    expect(result.state).toBe('reached_frequency_period_cap');
    expect(result.explanation[0].campaigns[0].behaviors.map((b) => [b.behavior_id, b.verdict])).toEqual([
      [1, 'cap_reached'],
      [2, 'cap_reached'],
      [3, 'cap_reached'],
    ]);
  });
});
