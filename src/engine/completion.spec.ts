import { behavior, campaign, customer, event, goal, group, MINUTE, rules, Session, T0 } from './spec-fixtures.js';
import type { BehaviorRule } from './types.js';

const at = (minutes: number) => T0 + minutes * MINUTE;

function session(b: Partial<BehaviorRule>, start = customer()) {
  const compiled = rules({
    campaigns: [campaign({ id: 10, behaviors: [behavior({ id: 1, name: 'Explorer', ...b })] })],
    offers: [{ id: 12, name: 'Free coffee', points: 20 }],
  });
  return new Session(compiled, start);
}

describe('Groups and completion: what a completion does', () => {
  it('credits 50, 5, 7, 20, 10: +92 available and lifetime points (semantics.md example)', () => {
    const s = session(
      {
        points: 50,
        groups: [group([goal({ id: 21, name: 'A', eventName: 'visit', points: 5 }), goal({ id: 22, name: 'B', eventName: 'purchase', points: 7 })])],
        outcomes: [{ kind: 'deal', args: { id: 12 } }, { kind: 'points', args: 10 }],
      },
      customer({ availablePoints: 8, lifetimePoints: 100 }),
    );
    s.send(event('visit', { occurredAt: at(1) }));
    expect(s.last.credits).toEqual([]);
    expect(s.customer).toMatchObject({ availablePoints: 8, lifetimePoints: 100 });

    const result = s.send(event('purchase', { occurredAt: at(2) }));
    const base = { eventIndex: 0, campaignId: 10, behaviorId: 1, at: at(2) };
    expect(result.credits).toEqual([
      { ...base, amount: 50, reason: 'behavior' },
      { ...base, amount: 5, reason: 'goal', goalId: 21 },
      { ...base, amount: 7, reason: 'goal', goalId: 22 },
      { ...base, amount: 20, reason: 'offer', offerId: 12 },
      { ...base, amount: 10, reason: 'outcome' },
    ]);
    expect(result.customer).toMatchObject({ availablePoints: 8 + 92, lifetimePoints: 100 + 92 });
  });

  it('adds 1 to achieved and lists the completion with its time', () => {
    const s = session({});
    const result = s.send(event('visit', { occurredAt: at(1) }));
    expect(s.achieved(1)).toBe(1);
    expect(result.behaviorDeltas[1].achieved).toBe(1);
    expect(result.completions).toEqual([{ eventIndex: 0, campaignId: 10, behaviorId: 1, achieved: 1, at: at(1) }]);

    const second = s.send(event('visit', { occurredAt: at(2) }));
    expect(s.achieved(1)).toBe(2);
    expect(second.behaviorDeltas[1].achieved).toBe(1);
    expect(second.completions).toEqual([{ eventIndex: 0, campaignId: 10, behaviorId: 1, achieved: 2, at: at(2) }]);
  });

  it('marks the delta reset: the goal progress starts again from 0 after a completion', () => {
    const s = session({ groups: [group([goal({ id: 21, name: 'visit', eventCount: 2 })])] });
    expect(s.send(event('visit', { occurredAt: at(1) })).behaviorDeltas[1]).toEqual({ currentCount: 0, achieved: 0 });
    expect(s.send(event('visit', { occurredAt: at(2) })).behaviorDeltas[1]).toEqual({ currentCount: 0, achieved: 1, reset: true });
    expect(s.goalCount(1, 21)).toBe(0);
  });

  it('reports no achieved delta and no completion while the behavior only progresses', () => {
    const s = session({ groups: [group([goal({ id: 21, name: 'visit', eventCount: 2 })])] });
    const result = s.send(event('visit', { occurredAt: at(1) }));
    expect(result.behaviorDeltas[1]?.achieved ?? 0).toBe(0);
    expect(result.completions).toEqual([]);
    expect(result.credits).toEqual([]);
  });

  it('counts each completion of one request separately', () => {
    const s = session({ points: 3 });
    const result = s.send([event('visit', { occurredAt: at(1) }), event('visit', { occurredAt: at(2) })]);
    expect(result.behaviorDeltas[1].achieved).toBe(2);
    expect(result.completions.map((c) => c.achieved)).toEqual([1, 2]);
    expect(result.credits.map((c) => c.amount)).toEqual([3, 3]);
    expect(result.customer.availablePoints).toBe(6);
  });

  it('credits the points of the goals complete in this cycle only', () => {
    const s = session({
      points: 50,
      groups: [group([goal({ id: 21, name: 'A', eventName: 'visit', points: 5 }), goal({ id: 22, name: 'B', eventName: 'purchase', points: 7 })], 1)],
    });
    const result = s.send(event('purchase', { occurredAt: at(1) }));
    expect(result.credits.map((c) => [c.reason, c.amount])).toEqual([
      ['behavior', 50],
      ['goal', 7],
    ]);
    expect(result.customer.lifetimePoints).toBe(57);
  });

  it('adds tags once: a tag the customer already has is not added again', () => {
    const s = session({ tags: ['explorer', 'visitor'] }, customer({ tags: ['visitor'] }));
    const first = s.send(event('visit', { occurredAt: at(1) }));
    expect(first.tagsAdded).toEqual(['explorer']);
    expect(first.customer.tags).toEqual(['visitor', 'explorer']);

    const second = s.send(event('visit', { occurredAt: at(2) }));
    expect(second.tagsAdded).toEqual([]);
    expect(second.customer.tags).toEqual(['visitor', 'explorer']);
  });

  it('resets goal progress: the next cycle needs the full count again', () => {
    const s = session({ groups: [group([goal({ id: 21, name: 'visit', eventCount: 3 })])] });
    s.send(event('visit', { count: 3, occurredAt: at(1) }));
    expect(s.achieved(1)).toBe(1);
    expect(s.goalCount(1, 21)).toBe(0);

    s.send(event('visit', { count: 2, occurredAt: at(2) }));
    expect(s.achieved(1)).toBe(1);
    expect(s.goalCount(1, 21)).toBe(2);

    s.send(event('visit', { occurredAt: at(3) }));
    expect(s.achieved(1)).toBe(2);
  });

  it('resets every goal of the behavior, also the partial progress of a goal it did not need', () => {
    const s = session({ groups: [group([goal({ id: 21, name: 'a', eventCount: 2 }), goal({ id: 22, name: 'b' })], 1)] });
    s.send(event('a', { occurredAt: at(1) }));
    s.send(event('b', { occurredAt: at(2) }));
    expect(s.achieved(1)).toBe(1);
    expect(s.goalCount(1, 21)).toBe(0);
    s.send(event('a', { occurredAt: at(3) }));
    expect(s.achieved(1)).toBe(1);
    expect(s.goalCount(1, 21)).toBe(1);
  });

  it('leaves the customer snapshot it was given untouched', () => {
    const start = customer({ tags: ['visitor'] });
    const s = session({ points: 50, tags: ['explorer'] }, start);
    s.send(event('visit', { occurredAt: at(1) }));
    expect(start).toEqual(customer({ tags: ['visitor'] }));
    expect(s.customer.availablePoints).toBe(50);
  });
});
