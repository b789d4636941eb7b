import type { CompiledRules } from '../../engine/index.js';
import { BudgetExceeded } from './evaluation.repository.js';

/** The campaigns of the rules that have a budget. */
export const budgetedCampaigns = (rules: CompiledRules): number[] => [...rules.campaigns.values()].filter((c) => c.rule.budget).map((c) => c.rule.id);

/**
 * Contract §14: completions never exceed a budget, under any concurrency, and evaluations that complete nothing never
 * touch (nor read) a budget's row. `run(locked)` is one attempt: a transaction that locks and reads the budgets of the
 * `locked` campaigns first (none on the first attempt: the engine then lets completions happen and counts them) and
 * writes what its completions used with a conditional UPDATE, which fails the write (BudgetExceeded) when a budget
 * has no room left. The attempt was rolled back; the next locks those campaigns too, so the engine decides with
 * exact figures that no other transaction can change before it commits. A budget's row is thus held by the write
 * statement and its COMMIT, except while a budget runs out.
 */
export async function retryOnBudget<T>(run: (locked: number[]) => Promise<T>): Promise<T> {
  let locked: number[] = [];
  for (;;) {
    try {
      return await run(locked);
    } catch (error) {
      if (!(error instanceof BudgetExceeded) || error.campaignIds.every((id) => locked.includes(id))) throw error;
      locked = [...new Set([...locked, ...error.campaignIds])].sort((a, b) => a - b);
    }
  }
}
