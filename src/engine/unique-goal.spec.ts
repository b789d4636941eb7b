import type { EvaluationResult } from './result.js';
import { behavior, campaign, event, goal, group, rules, Session, T0 } from './spec-fixtures.js';
import type { FlatValue } from './types.js';

/** A behavior whose unique goal on `visit` counts distinct store_id values; `waiting` adds a second goal on `share`. */
function uniqueSetup({ eventCount = 3, waiting = false } = {}) {
  const stores = goal({ type: 'unique', uniqueAttribute: 'store_id', eventCount, points: 5 });
  const other = goal({ name: 'share' });
  const b = behavior({ points: 20, groups: [group(waiting ? [stores, other] : [stores])] });
  const session = new Session(rules({ campaigns: [campaign({ behaviors: [b] })] }));
  return { session, b, stores, count: () => session.goalCount(b.id, stores.id), pivots: () => session.progress[b.id]?.goals[String(stores.id)]?.pivots };
}

const visit = (storeId: unknown, context: Record<string, FlatValue> = {}) => event('visit', { attributes: storeId === undefined ? {} : { store_id: storeId }, context });
const goalOf = (result: EvaluationResult, index = 0) => result.explanation[index].campaigns[0].behaviors[0].goals[0];

describe('unique goal', () => {
  // Worked example: visits to s1, s2, s1, s3 → 1, 2, 2 (repeated), 3: complete.
  it('counts s1, s2, s1, s3 as 1, 2, 2 (repeated), 3: complete (worked example)', () => {
    const { session, b, count } = uniqueSetup();
    expect(goalOf(session.send(visit('s1'))).verdict).toBe('counted');
    expect(count()).toBe(1);
    expect(goalOf(session.send(visit('s2'))).verdict).toBe('counted');
    expect(count()).toBe(2);
    const repeated = goalOf(session.send(visit('s1')));
    expect(repeated.verdict).toBe('repeated_pivot');
    expect(repeated.detail).toBe('store_id=s1 already counted in this cycle');
    expect(count()).toBe(2);
    const last = goalOf(session.send(visit('s3')));
    expect(last.detail).toBe('new store_id=s3: 3/3, goal complete');
    expect(session.achieved(b.id)).toBe(1);
    expect(session.customer.availablePoints).toBe(25);
  });

  it('reads the pivot from the context when the attributes lack it', () => {
    const { session, count, pivots } = uniqueSetup();
    session.send(event('visit', { context: { store_id: 's9' } }));
    expect(count()).toBe(1);
    expect(pivots()).toEqual(['s9']);
  });

  it('prefers the attribute to the context', () => {
    const { session, pivots } = uniqueSetup();
    session.send(visit('s1', { store_id: 's2' }));
    expect(pivots()).toEqual(['s1']);
    session.send(event('visit', { context: { store_id: 's1' } }));
    expect(pivots()).toEqual(['s1']);
  });

  it('adds nothing for an instance without the pivot, and says which attribute is missing', () => {
    const { session, count } = uniqueSetup();
    session.send(visit('s1'));
    const result = session.send(event('visit', { attributes: { other: 's2' }, context: { app: 'web' } }));
    expect(goalOf(result).verdict).toBe('missing_pivot');
    expect(goalOf(result).detail).toBe('no value for the unique attribute "store_id" in the event\'s attributes or context');
    expect(result.explanation[0].campaigns[0].behaviors[0].verdict).toBe('no_progress');
    expect(count()).toBe(1);
  });

  it('treats a null pivot as missing', () => {
    const { session, count } = uniqueSetup();
    expect(goalOf(session.send(visit(null))).verdict).toBe('missing_pivot');
    expect(count()).toBe(0);
  });

  it('ignores the count of the instance: one distinct value adds one', () => {
    const { session, count } = uniqueSetup();
    session.send(event('visit', { count: 5, attributes: { store_id: 's1' } }));
    expect(count()).toBe(1);
  });

  it('compares pivot values as strings: 5 and "5" are the same store', () => {
    const { session, count, pivots } = uniqueSetup();
    session.send(visit(5));
    expect(goalOf(session.send(visit('5'))).verdict).toBe('repeated_pivot');
    expect(count()).toBe(1);
    expect(pivots()).toEqual(['5']);
  });

  it('compares pivot values as strings: "5.0" and 5 are different values', () => {
    const { session, count } = uniqueSetup();
    session.send([visit(5), visit('5.0')]);
    expect(count()).toBe(2);
  });

  it('lists the new pivot values of a request in its goal deltas', () => {
    const { session, stores } = uniqueSetup({ eventCount: 5 });
    session.send(visit('s0'));
    const result = session.send([visit('s1'), visit('s2'), visit('s1'), visit('s0'), visit(undefined)]);
    expect(result.goalDeltas[stores.id]).toEqual({ currentCount: 2, pivots: ['s1', 's2'] });
  });

  it('has no goal delta for a request that only repeats pivots', () => {
    const { session, stores } = uniqueSetup();
    session.send(visit('s1'));
    expect(session.send(visit('s1')).goalDeltas).not.toHaveProperty(String(stores.id));
  });

  it('ignores new pivots once complete while the other goals are pending', () => {
    const { session, count, pivots } = uniqueSetup({ eventCount: 2, waiting: true });
    session.send([visit('s1'), visit('s2')]);
    const result = session.send(visit('s3'));
    expect(goalOf(result).verdict).toBe('already_complete');
    expect(count()).toBe(2);
    expect(pivots()).toEqual(['s1', 's2']);
  });

  it('forgets the pivots after a completion, so the same stores count again in the next cycle', () => {
    const { session, b, stores, count, pivots } = uniqueSetup({ eventCount: 2 });
    session.send([visit('s1'), visit('s2')]);
    expect(session.achieved(b.id)).toBe(1);
    expect(pivots()).toEqual([]);

    const again = session.send(visit('s1'));
    expect(goalOf(again).verdict).toBe('counted');
    expect(again.goalDeltas[stores.id].pivots).toEqual(['s1']);
    expect(count()).toBe(1);
    session.send(event('visit', { attributes: { store_id: 's2' }, occurredAt: T0 + 1 }));
    expect(session.achieved(b.id)).toBe(2);
  });
});
