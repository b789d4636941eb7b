import { behavior, campaign, event, goal, group, HOUR, rules, Session } from './spec-fixtures.js';
import type { BehaviorRule } from './types.js';

const DAY_SECONDS = 86_400;
const START = Date.UTC(2026, 0, 5); // campaign start, Monday 00:00Z: day windows run midnight to midnight
const day1 = (hours: number) => START + hours * HOUR;
const day2 = (hours: number) => START + (24 + hours) * HOUR;

function session(b: Partial<BehaviorRule>, startsAt = START) {
  const goals = [goal({ id: 11, name: 'A', eventName: 'a' }), goal({ id: 12, name: 'B', eventName: 'b' })];
  const compiled = rules({ campaigns: [campaign({ id: 10, startsAt, behaviors: [behavior({ id: 1, name: 'Same day pair', groups: [group(goals)], ...b })] })] });
  return new Session(compiled);
}

const explained = (s: Session) => s.last.explanation[0].campaigns[0].behaviors[0];

describe('Caps and periods: use_same_period', () => {
  it('drops goal A from day 1 when goal B comes on day 2 (semantics.md example)', () => {
    const s = session({ period: DAY_SECONDS, useSamePeriod: true });
    s.send(event('a', { occurredAt: day1(10) }));
    expect(s.goalCount(1, 11)).toBe(1);

    s.send(event('b', { occurredAt: day2(10) }));
    expect(s.achieved(1)).toBe(0);
    expect(s.goalCount(1, 11)).toBe(0);
    expect(s.goalCount(1, 12)).toBe(1);
    expect(explained(s).verdict).toBe('progressed');
    expect(explained(s).detail).toContain('progress from an earlier period was dropped (use_same_period)');
    expect(s.last.behaviorDeltas[1].reset).toBe(true);

    s.send(event('a', { occurredAt: day2(11) }));
    expect(s.achieved(1)).toBe(1);
  });

  it('keeps progress made within one window', () => {
    const s = session({ period: DAY_SECONDS, useSamePeriod: true });
    s.send(event('a', { occurredAt: day1(0) }));
    s.send(event('b', { occurredAt: day1(23.99) }));
    expect(s.achieved(1)).toBe(1);
  });

  it('uses windows counted from the campaign start, not calendar days', () => {
    const noon = START + 12 * HOUR; // windows run noon to noon
    const sameWindow = session({ period: DAY_SECONDS, useSamePeriod: true }, noon);
    sameWindow.send(event('a', { occurredAt: day1(20) }));
    sameWindow.send(event('b', { occurredAt: day2(11) }));
    expect(sameWindow.achieved(1)).toBe(1);

    const acrossNoon = session({ period: DAY_SECONDS, useSamePeriod: true }, noon);
    acrossNoon.send(event('a', { occurredAt: day2(11) }));
    acrossNoon.send(event('b', { occurredAt: day2(12) }));
    expect(acrossNoon.achieved(1)).toBe(0);
    expect(acrossNoon.goalCount(1, 11)).toBe(0);
  });

  it('also drops the progress of a cycle begun after a completion when the window changes', () => {
    const s = session({ period: DAY_SECONDS, useSamePeriod: true });
    s.send([event('a', { occurredAt: day1(1) }), event('b', { occurredAt: day1(2) }), event('a', { occurredAt: day1(3) })]);
    expect(s.achieved(1)).toBe(1);
    expect(s.goalCount(1, 11)).toBe(1);
    s.send(event('b', { occurredAt: day2(1) }));
    expect(s.achieved(1)).toBe(1);
    expect(s.goalCount(1, 11)).toBe(0);
  });

  it('without use_same_period, progress from an earlier window is kept', () => {
    const s = session({ period: DAY_SECONDS, useSamePeriod: false });
    s.send(event('a', { occurredAt: day1(10) }));
    s.send(event('b', { occurredAt: day2(10) }));
    expect(s.achieved(1)).toBe(1);
  });

  it('has no effect without a period', () => {
    const s = session({ period: null, useSamePeriod: true });
    s.send(event('a', { occurredAt: day1(10) }));
    s.send(event('b', { occurredAt: day1(10) + 30 * 24 * HOUR }));
    expect(s.achieved(1)).toBe(1);
    expect(explained(s).detail).not.toContain('use_same_period');
  });
});
