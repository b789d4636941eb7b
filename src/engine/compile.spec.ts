import { behaviorsInvolved } from './compile.js';
import { behavior, campaign, event, goal, group, rules, Session, T0 } from './spec-fixtures.js';
import type { OutcomeRule } from './types.js';

const listen = (name: string, id?: number) => [group([goal({ id, name })])];
const raise = (name: string): OutcomeRule[] => [{ kind: 'event', args: { name, by: 1 } }];

/**
 * Campaign 10: behavior 1 (visit), 2 (purchase, raises "bonus"). Campaign 20: behavior 3 (a goal named store_visit
 * listening to visit). Campaign 30: behavior 4 (bonus), 5 (share). Campaign 40: behavior 6 (share, raises "ping").
 * Campaign 50: behavior 7 (ping, raises ping).
 */
const compiled = rules({
  campaigns: [
    campaign({
      id: 10,
      behaviors: [
        behavior({ id: 1, name: 'Visit', groups: listen('visit', 11) }),
        behavior({ id: 2, name: 'Purchase', groups: listen('purchase', 21), outcomes: raise('bonus') }),
      ],
    }),
    campaign({ id: 20, behaviors: [behavior({ id: 3, name: 'Store visit', groups: [group([goal({ id: 31, name: 'store_visit', eventName: 'visit' })])] })] }),
    campaign({
      id: 30,
      behaviors: [behavior({ id: 4, name: 'Bonus', groups: listen('bonus', 41) }), behavior({ id: 5, name: 'Share', groups: listen('share', 51) })],
    }),
    campaign({ id: 40, behaviors: [behavior({ id: 6, name: 'Share and ping', groups: listen('share', 61), outcomes: raise('ping') })] }),
    campaign({ id: 50, behaviors: [behavior({ id: 7, name: 'Ping', groups: listen('ping', 71), outcomes: raise('ping') })] }),
  ],
});

const listenerIds = (name: string) => (compiled.listeners.get(name) ?? []).map((g) => g.rule.id);

describe('Compiled rules: the listeners index', () => {
  it('holds, per event name, only the goals listening to it (internal_event_name first)', () => {
    expect(listenerIds('visit')).toEqual([11, 31]);
    expect(listenerIds('purchase')).toEqual([21]);
    expect(listenerIds('share')).toEqual([51, 61]);
    expect(listenerIds('store_visit')).toEqual([]);
    expect(compiled.listeners.has('unknown')).toBe(false);
  });

  it('evaluating an event touches only the behaviors listening to it', () => {
    const s = new Session(compiled);
    const result = s.send(event('visit', { occurredAt: T0 }));
    expect(Object.keys(result.progress).sort()).toEqual(['1', '3']);
    expect(result.explanation[0].campaigns.map((c) => c.behaviors.map((b) => b.behavior_id))).toEqual([[1], [3]]);
  });

  it('touches the behaviors of raised events too, and no others', () => {
    const s = new Session(compiled);
    const result = s.send(event('purchase', { occurredAt: T0 }));
    expect(Object.keys(result.progress).sort()).toEqual(['2', '4']);
  });

  it('touches nothing for an event no goal listens to', () => {
    const s = new Session(compiled);
    expect(s.send(event('unknown', { occurredAt: T0 })).progress).toEqual({});
  });
});

describe('Compiled rules: behaviorsInvolved', () => {
  it('includes every behavior of a campaign with a listening goal (campaign siblings)', () => {
    const involved = behaviorsInvolved(compiled, ['visit']);
    expect(involved).toEqual(expect.arrayContaining([1, 2, 3]));
    expect(involved).not.toContain(6);
    expect(involved).not.toContain(7);
  });

  it('follows event outcomes to the campaigns listening to the raised events', () => {
    expect(behaviorsInvolved(compiled, ['purchase'])).toEqual([1, 2, 4, 5]);
    expect(behaviorsInvolved(compiled, ['share'])).toEqual([4, 5, 6, 7]);
  });

  it('terminates on a self-raising behavior and merges several names', () => {
    expect(behaviorsInvolved(compiled, ['ping'])).toEqual([7]);
    expect(behaviorsInvolved(compiled, ['ping', 'bonus'])).toEqual([4, 5, 7]);
  });

  it('is empty for names no goal listens to', () => {
    expect(behaviorsInvolved(compiled, ['unknown'])).toEqual([]);
  });

  it('follows a chain as deep as raised events nest, and covers everything the evaluation touches', () => {
    // Behavior 100 + i listens to e<i> and raises e<i+1>: raised events nest at most 5 deep.
    const chain = rules({
      campaigns: Array.from({ length: 8 }, (_, i) =>
        campaign({ id: 200 + i, behaviors: [behavior({ id: 100 + i, name: `Step ${i}`, groups: listen(`e${i}`), outcomes: raise(`e${i + 1}`) })] }),
      ),
    });
    expect(behaviorsInvolved(chain, ['e0'])).toEqual([100, 101, 102, 103, 104, 105]);

    const s = new Session(chain);
    const touched = Object.keys(s.send(event('e0', { occurredAt: T0 })).progress).map(Number);
    expect(touched.sort((a, b) => a - b)).toEqual([100, 101, 102, 103, 104, 105]);
    expect(s.achieved(106)).toBe(0);
  });
});
