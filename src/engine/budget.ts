import type { CompiledBehavior, CompiledRules } from './compiled.js';
import type { BudgetUse } from './result.js';
import type { BehaviorProgress, CampaignBudget } from './types.js';

/** What is left of a campaign's budget (null: that side has no limit), as the evaluation goes. */
export interface BudgetLeft {
  completions: number | null;
  points: number | null;
}

/**
 * The points one completion of the behavior credits, as the budget counts them: the behavior's, the goals' completed
 * in this cycle, and its rewards' (an offer's points, a points outcome; events it raises are completions of their own).
 */
export function completionPoints(rules: CompiledRules, behavior: CompiledBehavior, p: BehaviorProgress): number {
  let points = behavior.rule.points;
  for (const goal of behavior.goals) if (p.goals[goal.key]?.completed) points += goal.rule.points;
  for (const o of behavior.outcomes) points += o.reward?.points?.(o.args, rules) ?? 0;
  return Math.max(0, points);
}

/** Why the budget refuses a completion that credits `points` (null: it fits), naming the budget. */
export function budgetRefusal(budget: CampaignBudget, left: BudgetLeft, points: number): string | null {
  if (left.completions !== null && left.completions < 1) {
    return `the campaign budget of ${budget.maxCompletions} completion(s) is used up; the behavior stays as it was before this event`;
  }
  if (left.points !== null && points > left.points) {
    return `this completion's ${points} point(s) would take the campaign past its budget of ${budget.maxPoints} point(s) (${left.points} left); the behavior stays as it was before this event`;
  }
  return null;
}

/** Takes a completion that credits `points` from what is left. */
export function spend(left: BudgetLeft, points: number): void {
  if (left.completions !== null) left.completions -= 1;
  if (left.points !== null) left.points -= points;
}

/** Takes what an evaluation's completions used from what is left (budgets shared by several evaluations). */
export function spendUse(left: Record<number, BudgetLeft>, use: Record<number, BudgetUse>): void {
  for (const [id, u] of Object.entries(use)) {
    const l = left[Number(id)];
    if (!l) continue;
    if (l.completions !== null) l.completions -= u.completions;
    if (l.points !== null) l.points -= u.points;
  }
}

/** Adds what some completions used to a running total, by campaign. */
export function addBudgetUse(total: Record<number, BudgetUse>, use: Record<number, BudgetUse>): void {
  for (const [id, u] of Object.entries(use)) {
    const t = (total[Number(id)] ??= { completions: 0, points: 0 });
    t.completions += u.completions;
    t.points += u.points;
  }
}
