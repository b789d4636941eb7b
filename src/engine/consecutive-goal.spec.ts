import type { EvaluationResult } from './result.js';
import { instancesFromV1 } from './instances.js';
import { behavior, campaign, customer, DAY, event, goal, group, rules, Session, T0 } from './spec-fixtures.js';
import type { GoalRule } from './types.js';

/** A customer in `timeZone` and a behavior whose consecutive goal on `visit` needs `eventCount` days in a row. */
function streakSetup(timeZone = 'UTC', eventCount = 10, p: Partial<GoalRule> = {}) {
  const days = goal({ consecutive: true, eventCount, ...p });
  const b = behavior({ groups: [group([days])] });
  const session = new Session(rules({ campaigns: [campaign({ behaviors: [b] })] }), customer({ timeZone }));
  return { session, b, streak: () => session.goalCount(b.id, days.id) };
}

const at = (iso: string) => event('visit', { occurredAt: Date.parse(iso) });
const goalOf = (result: EvaluationResult, index = 0) => result.explanation[index].campaigns[0].behaviors[0].goals[0];
const verdictsOf = (result: EvaluationResult) => result.explanation.map((e) => e.campaigns[0].behaviors[0].goals[0].verdict);

describe('consecutive goal', () => {
  // Worked example: a New York customer with instances at 2026-03-07 23:00, 03-08 23:00 (the DST day), 03-09 23:00
  // local has a 3-day streak; missing 03-10 and sending on 03-11 restarts it at 1.
  it('gives a New York customer a 3-day streak across the DST change, restarted at 1 after a missed day (worked example)', () => {
    const { session, streak } = streakSetup('America/New_York');
    session.send(at('2026-03-08T04:00:00Z')); // 03-07 23:00 EST
    session.send(at('2026-03-09T03:00:00Z')); // 03-08 23:00 EDT, 23 hours later
    session.send(at('2026-03-10T03:00:00Z')); // 03-09 23:00 EDT
    expect(streak()).toBe(3);

    const restarted = goalOf(session.send(at('2026-03-12T03:00:00Z'))); // 03-11 23:00 EDT
    expect(restarted.verdict).toBe('streak_restarted');
    expect(restarted.detail).toBe('streak restarted at 1 on 2026-03-11: 1 day(s) missed since 2026-03-09: 1/10');
    expect(streak()).toBe(1);
  });

  it('counts local days, not UTC days, across the fall-back day (25 hours)', () => {
    const { session, streak } = streakSetup('America/New_York');
    const result = session.send([
      at('2026-10-31T04:30:00Z'), // 10-31 00:30 EDT
      at('2026-11-01T04:30:00Z'), // 11-01 00:30 EDT
      at('2026-11-02T04:30:00Z'), // 11-01 23:30 EST: still November 1st
      at('2026-11-03T04:30:00Z'), // 11-02 23:30 EST
    ]);
    expect(verdictsOf(result)).toEqual(['counted', 'counted', 'same_day', 'counted']);
    expect(streak()).toBe(3);
  });

  it('adds nothing for a second instance on the same local day', () => {
    const { session, streak } = streakSetup('Asia/Kolkata');
    session.send(at('2026-01-04T18:30:00Z')); // 01-05 00:00 IST
    const again = goalOf(session.send(at('2026-01-05T18:29:00Z'))); // 01-05 23:59 IST
    expect(again.verdict).toBe('same_day');
    expect(again.detail).toBe('same customer-local day (2026-01-05) already counted in the streak of 1');
    expect(streak()).toBe(1);
    expect(goalOf(session.send(at('2026-01-05T18:30:00Z'))).verdict).toBe('counted'); // 01-06 00:00 IST
    expect(streak()).toBe(2);
  });

  it('restarts at 1 after a gap of more than one day, even from a long streak', () => {
    const { session, streak } = streakSetup();
    session.send([0, 1, 2, 3].map((d) => event('visit', { occurredAt: T0 + d * DAY })));
    expect(streak()).toBe(4);
    const result = session.send(event('visit', { occurredAt: T0 + 6 * DAY }));
    expect(goalOf(result).verdict).toBe('streak_restarted');
    expect(goalOf(result).detail).toContain('2 day(s) missed since 2026-01-08');
    expect(result.explanation[0].campaigns[0].behaviors[0].verdict).toBe('progressed');
    expect(streak()).toBe(1);
    session.send(event('visit', { occurredAt: T0 + 7 * DAY }));
    expect(streak()).toBe(2);
  });

  it('ignores a day before the last counted day: a streak only moves forward', () => {
    const { session, streak } = streakSetup();
    session.send([at('2026-01-05T10:00:00Z'), at('2026-01-06T10:00:00Z')]);
    const earlier = goalOf(session.send(at('2026-01-04T10:00:00Z')));
    expect(earlier.verdict).toBe('earlier_day');
    expect(earlier.detail).toBe('day 2026-01-04 is before the last counted day 2026-01-06; a streak only moves forward');
    expect(streak()).toBe(2);
    session.send(at('2026-01-07T10:00:00Z'));
    expect(streak()).toBe(3);
  });

  it('takes 12-31 → 01-01 (local) as consecutive days', () => {
    const { session, streak } = streakSetup('America/New_York');
    session.send(at('2027-01-01T01:00:00Z')); // 2026-12-31 20:00 EST
    const result = session.send(at('2027-01-01T15:00:00Z')); // 2027-01-01 10:00 EST
    expect(goalOf(result).detail).toBe('streak continued on 2027-01-01: 2/10');
    expect(streak()).toBe(2);
  });

  it('uses occurred_on instead of the date of occurred_at', () => {
    const { session, streak } = streakSetup();
    // Both sent at T0 (2026-01-05), but on the days they name.
    session.send(instancesFromV1({ visit: { occurred_on: '2026-01-07' } }, T0));
    const next = session.send(instancesFromV1({ visit: { occurred_on: '2026-01-08' } }, T0));
    expect(goalOf(next).detail).toBe('streak continued on 2026-01-08: 2/10');
    expect(streak()).toBe(2);
    // Without occurred_on, T0 is 2026-01-05: before the last counted day.
    expect(goalOf(session.send(instancesFromV1({ visit: 1 }, T0))).verdict).toBe('earlier_day');
  });

  it('counts days, whatever the count of the instance', () => {
    const { session, streak } = streakSetup();
    session.send(event('visit', { count: 5 }));
    expect(streak()).toBe(1);
  });

  it('counts days for a unique goal too, pivot or not', () => {
    const { session, streak } = streakSetup('UTC', 10, { type: 'unique', uniqueAttribute: 'store_id' });
    session.send([event('visit', { attributes: { store_id: 's1' } }), event('visit', { attributes: { store_id: 's2' } })]);
    expect(streak()).toBe(1);
    session.send(at('2026-01-06T10:00:00Z'));
    expect(streak()).toBe(2);
  });

  it('completes at event_count days, then starts a new streak', () => {
    const { session, b, streak } = streakSetup('UTC', 2);
    session.send([at('2026-01-05T10:00:00Z'), at('2026-01-06T10:00:00Z')]);
    expect(session.achieved(b.id)).toBe(1);
    const next = goalOf(session.send(at('2026-01-07T10:00:00Z')));
    expect(next.detail).toBe('streak started on 2026-01-07: 1/2');
    expect(streak()).toBe(1);
  });

  // Offsets in January (Sydney is on daylight time then).
  it.each([
    ['UTC', 0],
    ['America/New_York', -300],
    ['America/St_Johns', -210],
    ['Pacific/Pago_Pago', -660],
    ['Europe/Paris', 60],
    ['Asia/Kolkata', 330],
    ['Australia/Sydney', 660],
    ['Pacific/Kiritimati', 840],
  ])('gives a customer in %s the same streak for the same local days', (timeZone, offsetMinutes) => {
    const local = (wallClock: string) => event('visit', { occurredAt: Date.parse(`${wallClock}:00Z`) - offsetMinutes * 60_000 });
    const { session, streak } = streakSetup(timeZone);
    const result = session.send([local('2026-01-05T23:30'), local('2026-01-06T00:30'), local('2026-01-06T23:59'), local('2026-01-07T12:00')]);
    expect(verdictsOf(result)).toEqual(['counted', 'counted', 'same_day', 'counted']);
    expect(streak()).toBe(3);
    expect(goalOf(session.send(local('2026-01-09T00:01'))).verdict).toBe('streak_restarted');
    expect(streak()).toBe(1);
  });
});
