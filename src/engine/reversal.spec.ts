import { undoCompletions } from './reversal.js';
import { behavior, campaign, event, goal, group, HOUR, rules, Session, T0 } from './spec-fixtures.js';
import type { BehaviorRule } from './types.js';

function session(b: Partial<BehaviorRule>) {
  return new Session(rules({ campaigns: [campaign({ id: 10, behaviors: [behavior({ id: 1, name: 'Buyer', points: 10, groups: [group([goal({ id: 11, name: 'purchase', eventCount: 1 })])], ...b })] })] }));
}
const purchase = (occurredAt: number) => event('purchase', { occurredAt });

describe('undoCompletions (reversal)', () => {
  it('takes one from achieved per completion and drops the completion at that time; the input is not changed', () => {
    const s = session({ period: 86_400, maxTimesAchievablePerPeriod: 3 });
    s.send(purchase(T0));
    s.send(purchase(T0 + HOUR));
    const before = structuredClone(s.progress);
    const { progress, undone } = undoCompletions(s.progress, [{ behaviorId: 1, at: T0 + HOUR }]);
    expect(undone).toBe(1);
    expect(progress[1]).toMatchObject({ achieved: 1, completions: [T0] });
    expect(s.progress).toEqual(before);
  });

  it('frees room under a total cap: the behavior completes again after the reversal', () => {
    const s = session({ maxTimesAchievable: 1 });
    s.send(purchase(T0));
    expect(s.send(purchase(T0 + HOUR)).state).toBe('reached_frequency_cap');
    s.progress = { ...s.progress, ...undoCompletions(s.progress, [{ behaviorId: 1, at: T0 }]).progress };
    const again = s.send(purchase(T0 + 2 * HOUR));
    expect(again.state).toBe('qualified');
    expect(again.credits.map((c) => c.amount)).toEqual([10]);
    expect(s.achieved(1)).toBe(1);
  });

  it('frees room under a periodic cap within the same period', () => {
    const s = session({ period: 86_400, maxTimesAchievablePerPeriod: 1 });
    s.send(purchase(T0));
    expect(s.send(purchase(T0 + HOUR)).state).toBe('reached_frequency_period_cap');
    s.progress = { ...s.progress, ...undoCompletions(s.progress, [{ behaviorId: 1, at: T0 }]).progress };
    expect(s.send(purchase(T0 + 2 * HOUR)).credits.map((c) => c.amount)).toEqual([10]);
  });

  it('undoes several completions of one behavior, never below zero, and ignores behaviors without progress', () => {
    const s = session({});
    s.send([purchase(T0), purchase(T0)]);
    expect(s.achieved(1)).toBe(2);
    const { progress, undone, which } = undoCompletions(s.progress, [
      { behaviorId: 1, at: T0 },
      { behaviorId: 1, at: T0 },
      { behaviorId: 1, at: T0 },
      { behaviorId: 99, at: T0 },
    ]);
    expect(undone).toBe(2);
    expect(which).toEqual([0, 1]);
    expect(progress[1].achieved).toBe(0);
    expect(Object.keys(progress)).toEqual(['1']);
  });
});
