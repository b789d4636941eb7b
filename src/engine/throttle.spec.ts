import type { EvaluationResult } from './result.js';
import { behavior, campaign, event, goal, group, MINUTE, rules, SECOND, Session, T0 } from './spec-fixtures.js';

/** A behavior whose count goal on `visit` is throttled to K instances per T seconds. */
function throttleSetup({ T = 60, K = 1, eventCount = 100, points = 0 } = {}) {
  const throttled = goal({ eventCount, minTimeBetweenEvents: T, minTimeBetweenEventsCount: K });
  const b = behavior({ points, groups: [group([throttled])] });
  const session = new Session(rules({ campaigns: [campaign({ behaviors: [b] })] }));
  return { session, b, count: () => session.goalCount(b.id, throttled.id) };
}

const after = (ms: number) => event('visit', { occurredAt: T0 + ms });
const goalOf = (result: EvaluationResult, index = 0) => result.explanation[index].campaigns[0].behaviors[0].goals[0];
const verdictsOf = (result: EvaluationResult) => result.explanation.map((e) => e.campaigns[0].behaviors[0].goals[0].verdict);

describe('throttle', () => {
  // Worked example: T = 60, K = 2: instances at 0 s, 10 s, 20 s, 60 s → counted, counted, throttled until 60 s, counted.
  it('with T = 60 and K = 2 counts 0 s, 10 s, throttles 20 s until 60 s, counts 60 s (worked example)', () => {
    const { session, count } = throttleSetup({ K: 2 });
    const results = [0, 10, 20, 60].map((s) => session.send(after(s * SECOND)));
    expect(results.map((r) => goalOf(r).verdict)).toEqual(['counted', 'counted', 'throttled', 'counted']);
    expect(goalOf(results[2]).detail).toBe(
      'throttled: 2 instance(s) already counted in the 60s before 2026-01-05T10:00:20.000Z (limit 2); counts again from 2026-01-05T10:01:00.000Z',
    );
    expect(count()).toBe(3);
  });

  it('with K = 1 lets one instance count per T seconds', () => {
    const { session, count } = throttleSetup();
    const result = session.send([0, 30, 59, 60, 61, 119, 120].map((s) => after(s * SECOND)));
    expect(verdictsOf(result)).toEqual(['counted', 'throttled', 'throttled', 'counted', 'throttled', 'throttled', 'counted']);
    expect(count()).toBe(3);
  });

  it('counts an instance exactly T seconds after the counted one, not a millisecond sooner', () => {
    const early = throttleSetup({ T: 3600 });
    early.session.send(after(0));
    expect(goalOf(early.session.send(after(3600 * SECOND - 1))).verdict).toBe('throttled');

    const exact = throttleSetup({ T: 3600 });
    exact.session.send(after(0));
    expect(goalOf(exact.session.send(after(3600 * SECOND))).verdict).toBe('counted');
    expect(exact.count()).toBe(2);
  });

  it('with K = 2 looks at the window (t − T, t]: the oldest counted instance leaves it exactly T later', () => {
    const { session } = throttleSetup({ K: 2 });
    const result = session.send([0, 30, 59, 60, 61, 89, 90].map((s) => after(s * SECOND)));
    expect(verdictsOf(result)).toEqual(['counted', 'counted', 'throttled', 'counted', 'throttled', 'throttled', 'counted']);
  });

  it('says when the goal counts again (K = 1: T after the counted instance)', () => {
    const { session } = throttleSetup({ T: 600 });
    session.send(after(0));
    const detail = goalOf(session.send(after(2 * MINUTE))).detail;
    expect(detail).toContain('1 instance(s) already counted in the 600s before 2026-01-05T10:02:00.000Z (limit 1)');
    expect(detail).toContain('counts again from 2026-01-05T10:10:00.000Z');
  });

  it('ignores a throttled instance without an error: the campaign qualifies, the behavior takes no progress', () => {
    const { session, b, count } = throttleSetup({ eventCount: 2, points: 10 });
    session.send(after(0));
    const result = session.send(after(10 * SECOND));
    expect(result.state).toBe('qualified');
    expect(result.explanation[0].campaigns[0].behaviors[0].verdict).toBe('no_progress');
    expect(result.goalDeltas).toEqual({});
    expect(count()).toBe(1);
    expect(session.achieved(b.id)).toBe(0);
    expect(session.customer.availablePoints).toBe(0);
  });

  it('does not remember throttled instances: they do not push the next count further away', () => {
    const { session } = throttleSetup();
    const result = session.send([0, 50, 60].map((s) => after(s * SECOND)));
    expect(verdictsOf(result)).toEqual(['counted', 'throttled', 'counted']);
  });

  it('keeps its history across a completion: it limits the event rate, not the cycle', () => {
    const { session, b, count } = throttleSetup({ T: 3600, eventCount: 1, points: 10 });
    session.send(after(0));
    expect(session.achieved(b.id)).toBe(1);

    const tooSoon = session.send(after(10 * MINUTE));
    expect(goalOf(tooSoon).verdict).toBe('throttled');
    expect(goalOf(tooSoon).detail).toContain('counts again from 2026-01-05T11:00:00.000Z');
    expect(session.achieved(b.id)).toBe(1);
    expect(count()).toBe(0);

    session.send(after(60 * MINUTE));
    expect(session.achieved(b.id)).toBe(2);
    expect(session.customer.availablePoints).toBe(20);
  });

  it('throttles each goal on its own', () => {
    const fast = goal({ eventCount: 100 });
    const slow = goal({ eventCount: 100, minTimeBetweenEvents: 60 });
    const b = behavior({ groups: [group([fast, slow])] });
    const session = new Session(rules({ campaigns: [campaign({ behaviors: [b] })] }));
    session.send([after(0), after(10 * SECOND), after(20 * SECOND)]);
    expect(session.goalCount(b.id, fast.id)).toBe(3);
    expect(session.goalCount(b.id, slow.id)).toBe(1);
  });
});
