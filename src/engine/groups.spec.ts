import { behavior, campaign, event, goal, group, rules, Session, T0, MINUTE } from './spec-fixtures.js';
import type { GroupRule } from './types.js';
import { behaviorView } from './view.js';

/** One behavior (id 1) in one campaign, its goals listening to the event named like the goal. */
function session(groups: GroupRule[]) {
  const compiled = rules({ campaigns: [campaign({ id: 10, behaviors: [behavior({ id: 1, name: 'Explorer', groups })] })] });
  const s = new Session(compiled);
  let minute = 0;
  const send = (name: string) => s.send(event(name, { occurredAt: T0 + (minute += 1) * MINUTE }));
  const view = () => behaviorView(compiled.behaviors.get(1)!, s.progress[1]);
  return { s, send, view };
}

const verdict = (s: Session) => s.last.explanation[0].campaigns[0].behaviors[0].verdict;

describe('Groups and completion: a group needs goal_count complete goals and every required goal', () => {
  it('needs every goal of the group when goal_count is the number of goals (the default)', () => {
    const { s, send, view } = session([group([goal({ id: 11, name: 'a' }), goal({ id: 12, name: 'b' }), goal({ id: 13, name: 'c' })])]);
    send('a');
    send('c');
    expect(verdict(s)).toBe('progressed');
    expect(s.achieved(1)).toBe(0);
    expect(view()).toMatchObject({ current_count: 2, total_count: 3 });
    send('b');
    expect(verdict(s)).toBe('completed');
    expect(s.achieved(1)).toBe(1);
  });

  it('completes with goal_count goals when the group has more goals than that', () => {
    const { s, send, view } = session([group([goal({ id: 11, name: 'a' }), goal({ id: 12, name: 'b' }), goal({ id: 13, name: 'c' })], 2)]);
    expect(view()).toMatchObject({ current_count: 0, total_count: 2 });
    send('c');
    expect(s.achieved(1)).toBe(0);
    expect(view()).toMatchObject({ current_count: 1, total_count: 2 });
    send('a');
    expect(verdict(s)).toBe('completed');
    expect(s.achieved(1)).toBe(1);
  });

  it('does not complete on goal_count goals while a required goal is missing', () => {
    const { s, send } = session([group([goal({ id: 11, name: 'a', required: true }), goal({ id: 12, name: 'b' }), goal({ id: 13, name: 'c' })], 1)]);
    send('b');
    send('c');
    expect(verdict(s)).toBe('progressed');
    expect(s.achieved(1)).toBe(0);
    send('a');
    expect(verdict(s)).toBe('completed');
    expect(s.achieved(1)).toBe(1);
  });

  it('completes on the required goal alone when it satisfies goal_count', () => {
    const { s, send } = session([group([goal({ id: 11, name: 'a', required: true }), goal({ id: 12, name: 'b' })], 1)]);
    send('a');
    expect(s.achieved(1)).toBe(1);
  });

  it('needs every required goal even when goal_count is smaller (total_count is the larger of the two)', () => {
    const { s, send, view } = session([
      group([goal({ id: 11, name: 'a', required: true }), goal({ id: 12, name: 'b', required: true }), goal({ id: 13, name: 'c' })], 1),
    ]);
    expect(view().total_count).toBe(2);
    send('a');
    expect(s.achieved(1)).toBe(0);
    expect(view().current_count).toBe(1);
    send('b');
    expect(s.achieved(1)).toBe(1);
  });

  it('ANDs several groups: the behavior completes only when every group is complete', () => {
    const { s, send, view } = session([
      group([goal({ id: 11, name: 'a' })]),
      group([goal({ id: 21, name: 'b' }), goal({ id: 22, name: 'c' })], 1),
      group([goal({ id: 31, name: 'd' })]),
    ]);
    expect(view().total_count).toBe(3);
    send('a');
    send('c');
    expect(s.achieved(1)).toBe(0);
    expect(view()).toMatchObject({ current_count: 2, groups: { '0': { completed: true }, '1': { completed: true }, '2': { completed: false } } });
    send('d');
    expect(verdict(s)).toBe('completed');
    expect(s.achieved(1)).toBe(1);
  });

  it('counts extra completed goals of a group only up to what the group needs in current_count', () => {
    const { s, send, view } = session([
      group([goal({ id: 11, name: 'a' }), goal({ id: 12, name: 'b' }), goal({ id: 13, name: 'c' })], 2),
      group([goal({ id: 21, name: 'd' })]),
    ]);
    expect(view()).toMatchObject({ current_count: 0, total_count: 3 });
    send('a');
    send('b');
    send('c');
    expect(view()).toMatchObject({ current_count: 2, total_count: 3, groups: { '0': { current_count: 2, total_count: 2, num_goals: 3 } } });
    send('d');
    expect(s.achieved(1)).toBe(1);
    expect(view()).toMatchObject({ achieved: 1, current_count: 0, total_count: 3 });
  });

  it('reports behaviorDeltas current_count as the change of the behavior current_count', () => {
    const { s, send, view } = session([
      group([goal({ id: 11, name: 'a' }), goal({ id: 12, name: 'b' }), goal({ id: 13, name: 'c' })], 2),
      group([goal({ id: 21, name: 'd' })]),
    ]);
    for (const name of ['a', 'b', 'c', 'd']) {
      const before = view().current_count;
      send(name);
      expect({ name, delta: s.last.behaviorDeltas[1]?.currentCount ?? 0 }).toEqual({ name, delta: view().current_count - before });
    }
    expect(s.achieved(1)).toBe(1);
  });

  it('does not count a goal twice when its event repeats within a cycle', () => {
    const { s, send, view } = session([group([goal({ id: 11, name: 'a' }), goal({ id: 12, name: 'b' })])]);
    send('a');
    send('a');
    expect(s.last.explanation[0].campaigns[0].behaviors[0].goals[0].verdict).toBe('already_complete');
    expect(view().current_count).toBe(1);
    expect(s.achieved(1)).toBe(0);
  });
});
