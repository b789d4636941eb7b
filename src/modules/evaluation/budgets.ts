import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { fitsBudgets, type BudgetLeft, type CompiledRules } from '../../engine/index.js';
import type { EvaluationRepository } from './evaluation.repository.js';
import type { WritePlan } from './write-plan.js';

/** The campaigns of the rules that have a budget. */
export const budgetedCampaigns = (rules: CompiledRules): number[] => [...rules.campaigns.values()].filter((c) => c.rule.budget).map((c) => c.rule.id);

/**
 * Contract §14: completions never exceed a budget, under any concurrency, and evaluations that complete nothing never
 * touch a budget's row (nor read it). `decide` first runs with what is known of the budgets (nothing, on the event
 * path: the engine then lets completions happen and counts them). When its plan uses a budget, those campaigns' rows
 * are locked (id order) and read; if the use does not fit what is left, `decide` runs again with those exact
 * figures, which no other transaction can change before this one ends. A budget's row is thus held only by
 * transactions that complete something in its campaign, from the lock to their commit.
 */
export async function decideWithBudgets<D extends { plan: WritePlan | null }>(
  repository: EvaluationRepository,
  uow: UnitOfWork,
  budgets: Record<number, BudgetLeft>,
  decide: (budgets: Record<number, BudgetLeft>) => Promise<D>,
): Promise<D> {
  const locked = new Set<number>();
  let decision = await decide(budgets);
  for (;;) {
    const use = decision.plan?.budgets.use ?? [];
    const toLock = use.map((u) => u.campaign_id).filter((id) => !locked.has(id));
    if (toLock.length === 0) return decision;
    Object.assign(budgets, await repository.budgets(uow, toLock, true));
    for (const id of toLock) locked.add(id);
    if (fitsBudgets(budgets, use)) return decision;
    decision = await decide(budgets);
  }
}
