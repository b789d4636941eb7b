import { behavior, campaign, event, goal, group, HOUR, rules, Session, T0 } from './spec-fixtures.js';
import type { CampaignBudget } from './types.js';
import type { BudgetLeft } from './budget.js';

const CAMPAIGN = 10;

/** A campaign whose behavior completes on each purchase for 10 points, plus 5 for its goal. */
function session(budget: CampaignBudget | null) {
  const compiled = rules({
    campaigns: [campaign({ id: CAMPAIGN, budget, behaviors: [behavior({ id: 1, name: 'Buyer', points: 10, groups: [group([goal({ id: 11, name: 'purchase', eventCount: 1, points: 5 })])] })] })],
  });
  return new Session(compiled);
}
const purchase = (at: number) => event('purchase', { occurredAt: at });
const left = (completions: number | null, points: number | null): Record<number, BudgetLeft> => ({ [CAMPAIGN]: { completions, points } });

describe('campaign budgets (contract §14)', () => {
  it('counts what each completion uses: one completion and its points (behavior and goal)', () => {
    const s = session({ maxCompletions: 5, maxPoints: null });
    const result = s.send([purchase(T0), purchase(T0 + HOUR)], { budgets: left(5, null) });
    expect(result.state).toBe('qualified');
    expect(result.budgetUse).toEqual({ [CAMPAIGN]: { completions: 2, points: 30 } });
    expect(result.budgetRefused).toEqual([]);
  });

  it('refuses a completion past max_completions: the behavior stays as it was, the state is budget_exhausted, the explanation names the budget', () => {
    const s = session({ maxCompletions: 3, maxPoints: null });
    const result = s.send([purchase(T0), purchase(T0 + HOUR)], { budgets: left(1, null) });
    expect(result.credits.map((c) => c.amount)).toEqual([10, 5]);
    expect(result.budgetUse).toEqual({ [CAMPAIGN]: { completions: 1, points: 15 } });
    expect(result.budgetRefused).toEqual([CAMPAIGN]);
    expect(result.state).toBe('budget_exhausted');
    expect(result.campaignStates[CAMPAIGN]).toBe('budget_exhausted');
    expect(s.achieved(1)).toBe(1);
    expect(s.goalCount(1, 11)).toBe(0);
    const refused = result.explanation[1].campaigns[0].behaviors[0];
    expect(refused).toMatchObject({ verdict: 'budget_exhausted' });
    expect(refused.detail).toContain('budget of 3 completion(s) is used up');
  });

  it('refuses a completion whose points would pass max_points, even with completions left', () => {
    const s = session({ maxCompletions: null, maxPoints: 100 });
    const result = s.send(purchase(T0), { budgets: left(null, 14) });
    expect(result.credits).toEqual([]);
    expect(result.state).toBe('budget_exhausted');
    expect(result.explanation[0].campaigns[0].behaviors[0].detail).toContain("this completion's 15 point(s) would take the campaign past its budget of 100 point(s) (14 left)");
    expect(s.send(purchase(T0 + HOUR), { budgets: left(null, 15) }).credits.map((c) => c.amount)).toEqual([10, 5]);
  });

  it('lets a budgeted campaign whose budget is not known yet complete, and counts what it used for the caller to check', () => {
    const unknown = session({ maxCompletions: 10, maxPoints: null }).send(purchase(T0));
    expect(unknown.state).toBe('qualified');
    expect(unknown.budgetUse).toEqual({ [CAMPAIGN]: { completions: 1, points: 15 } });
    const free = session(null).send(purchase(T0));
    expect(free.state).toBe('qualified');
    expect(free.budgetUse).toEqual({});
  });

  it('keeps goal progress that completes nothing: only completions meet the budget', () => {
    const compiled = rules({
      campaigns: [campaign({ id: CAMPAIGN, budget: { maxCompletions: 0, maxPoints: null }, behaviors: [behavior({ id: 1, name: 'Twice', groups: [group([goal({ id: 11, name: 'purchase', eventCount: 2 })])] })] })],
    });
    const s = new Session(compiled);
    const first = s.send(purchase(T0), { budgets: left(0, null) });
    expect(first.state).toBe('qualified');
    expect(s.goalCount(1, 11)).toBe(1);
    expect(s.send(purchase(T0 + HOUR), { budgets: left(0, null) }).state).toBe('budget_exhausted');
    expect(s.goalCount(1, 11)).toBe(1);
  });
});
