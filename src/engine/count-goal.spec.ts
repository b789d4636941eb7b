import type { EvaluationResult } from './result.js';
import { behavior, campaign, event, goal, group, rules, Session } from './spec-fixtures.js';

/** A behavior with a count goal on `visit` (event_count 3, 5 points) and, when `waiting`, a second goal on `share`. */
function countSetup({ eventCount = 3, waiting = false } = {}) {
  const target = goal({ eventCount, points: 5 });
  const other = goal({ name: 'share' });
  const b = behavior({ points: 50, groups: [group(waiting ? [target, other] : [target])] });
  const session = new Session(rules({ campaigns: [campaign({ behaviors: [b] })] }));
  return { session, b, target, count: () => session.goalCount(b.id, target.id) };
}

const goalOf = (result: EvaluationResult, index = 0) => result.explanation[index].campaigns[0].behaviors[0].goals[0];

describe('count goal', () => {
  // Worked example: event_count 3, event {"visit": 5} → 3/3, complete.
  it('caps a count of 5 at event_count 3 and completes (worked example)', () => {
    const { session, b, target } = countSetup();
    const result = session.send(event('visit', { count: 5 }));
    expect(goalOf(result).verdict).toBe('counted');
    expect(goalOf(result).detail).toBe('count +5: 3/3, goal complete');
    expect(result.goalDeltas[target.id].currentCount).toBe(3);
    expect(session.achieved(b.id)).toBe(1);
    expect(session.customer.availablePoints).toBe(55);
  });

  it('sums counts across requests and completes at event_count', () => {
    const { session, b, count } = countSetup();
    session.send(event('visit'));
    expect(count()).toBe(1);
    session.send(event('visit', { count: 1 }));
    expect(count()).toBe(2);
    expect(session.achieved(b.id)).toBe(0);
    session.send(event('visit'));
    expect(session.achieved(b.id)).toBe(1);
    expect(count()).toBe(0);
  });

  it('sums the instances of one request', () => {
    const { session, b } = countSetup();
    const result = session.send([event('visit'), event('visit', { count: 2 })]);
    expect(result.explanation.map((e) => e.campaigns[0].behaviors[0].verdict)).toEqual(['progressed', 'completed']);
    expect(session.achieved(b.id)).toBe(1);
  });

  it('does not count past event_count while the goal waits for the other goals', () => {
    const { session, b, target, count } = countSetup({ waiting: true });
    const result = session.send(event('visit', { count: 2 }));
    expect(result.goalDeltas[target.id].currentCount).toBe(2);
    const capped = session.send(event('visit', { count: 5 }));
    expect(count()).toBe(3);
    expect(capped.goalDeltas[target.id].currentCount).toBe(1);
    expect(session.achieved(b.id)).toBe(0);

    const after = session.send(event('visit', { count: 4 }));
    expect(goalOf(after).verdict).toBe('already_complete');
    expect(count()).toBe(3);

    session.send(event('share'));
    expect(session.achieved(b.id)).toBe(1);
  });

  it('counts a completed cycle only once: the surplus of a large count is not carried into the next cycle', () => {
    const { session, b, count } = countSetup();
    session.send(event('visit', { count: 7 }));
    expect(session.achieved(b.id)).toBe(1);
    expect(count()).toBe(0);
  });

  it.each([0, -2])('adds nothing for a count of %i, and says so', (n) => {
    const { session, b, target, count } = countSetup();
    session.send(event('visit'));
    const result = session.send(event('visit', { count: n }));
    expect(goalOf(result).verdict).toBe('ignored_count');
    expect(goalOf(result).detail).toBe(`count ${n} is not positive; nothing counted`);
    expect(result.explanation[0].campaigns[0].behaviors[0].verdict).toBe('no_progress');
    expect(result.goalDeltas).not.toHaveProperty(String(target.id));
    expect(count()).toBe(1);
    expect(session.achieved(b.id)).toBe(0);
  });

  it('is not corrupted by non-positive counts: later counts sum as usual', () => {
    const { session, b, count } = countSetup();
    session.send([event('visit', { count: -5 }), event('visit', { count: 0 }), event('visit', { count: 2 })]);
    expect(count()).toBe(2);
    session.send(event('visit', { count: -1 }));
    session.send(event('visit'));
    expect(session.achieved(b.id)).toBe(1);
    expect(session.customer.availablePoints).toBe(55);
  });

  it('does not let a negative count complete the goal or credit points', () => {
    const { session } = countSetup({ eventCount: 1 });
    const result = session.send(event('visit', { count: -1 }));
    expect(result.completions).toEqual([]);
    expect(result.credits).toEqual([]);
  });

  it('adds fractional counts as they are', () => {
    const { session, b, count } = countSetup();
    session.send(event('visit', { count: 1.5 }));
    expect(count()).toBe(1.5);
    session.send(event('visit', { count: 0.5 }));
    expect(count()).toBe(2);
    expect(session.achieved(b.id)).toBe(0);
    session.send(event('visit', { count: 1.25 }));
    expect(session.achieved(b.id)).toBe(1);
  });

  it('changes nothing for an event name no goal listens to', () => {
    const { session, b, count } = countSetup();
    session.send(event('visit'));
    const before = { progress: structuredClone(session.progress), customer: structuredClone(session.customer) };
    const result = session.send(event('Visit', { count: 5 }));
    expect(result.progress).toEqual({});
    expect(result.goalDeltas).toEqual({});
    expect(result.state).toBe('events_not_qualified');
    expect(session.progress).toEqual(before.progress);
    expect(session.customer).toEqual(before.customer);
    expect(count()).toBe(1);
    expect(session.achieved(b.id)).toBe(0);
  });

  it('listens to internal_event_name, not to the goal name, when they differ', () => {
    const target = goal({ name: 'Visit a store', eventName: 'store_visit', eventCount: 2 });
    const b = behavior({ groups: [group([target])] });
    const session = new Session(rules({ campaigns: [campaign({ behaviors: [b] })] }));
    session.send(event('Visit a store'));
    expect(session.goalCount(b.id, target.id)).toBe(0);
    session.send(event('store_visit'));
    expect(session.goalCount(b.id, target.id)).toBe(1);
  });
});
