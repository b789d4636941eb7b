import { evaluate, spendUse, type BudgetLeft, type CompiledRules, type CustomerSnapshot, type EvaluationResult, type EventInstance, type ProgressMap } from '../../engine/index.js';

/** A stored event as a replay reads it. */
export interface StoredInstance {
  instance: EventInstance;
  qualify: boolean;
}

/** What a replay carries for one customer from one event to the next: the profile as evaluations change it, and progress. */
export interface ReplayedCustomer {
  snapshot: CustomerSnapshot;
  progress: ProgressMap;
}

/**
 * The evaluation pipeline's read-only mode for stored history (contract §15): the same engine and compiled rules as live
 * evaluation, fed stored events instead of requests, writing nothing. Each event is evaluated at the time it occurred
 * (the campaign's dates are the caller's), its customer's profile and progress carried to the customer's next event,
 * and the budgets (what is left of them) shared by every customer of the replay, spent as completions use them.
 */
export class HistoryReplay {
  constructor(
    private readonly rules: CompiledRules,
    private readonly multiOrgEnabled: boolean,
    private readonly budgets: Record<number, BudgetLeft>,
    /** Whether results carry explanations (a simulation with `explain`). */
    private readonly explain: boolean,
  ) {}

  /** A customer's state before their first replayed event: their profile as it is now, and no progress. */
  static start(snapshot: CustomerSnapshot): ReplayedCustomer {
    return { snapshot, progress: {} };
  }

  /** Evaluates the customer's next event, at the time it occurred, and carries its effects into `customer`. */
  next(customer: ReplayedCustomer, event: StoredInstance): EvaluationResult {
    return evaluateNext(this.rules, customer, event, { now: event.instance.occurredAt, multiOrgEnabled: this.multiOrgEnabled, budgets: this.budgets, explain: this.explain });
  }
}

/**
 * A customer's next stored event through the engine, the step the events worker and a replay share: evaluated at
 * `now` with the customer's state so far, its budget use spent from `budgets` (shared by the customers evaluated
 * together), its effects (profile, progress) carried into `customer` for the next event.
 */
export function evaluateNext(
  rules: CompiledRules,
  customer: ReplayedCustomer,
  event: StoredInstance & { campaignId?: number | null },
  at: { now: number; multiOrgEnabled: boolean; budgets: Record<number, BudgetLeft>; explain: boolean },
): EvaluationResult {
  const result = evaluate({
    rules,
    customer: customer.snapshot,
    progress: customer.progress,
    events: [event.instance],
    now: at.now,
    multiOrgEnabled: at.multiOrgEnabled,
    campaignId: event.campaignId ?? null,
    qualify: event.qualify,
    budgets: at.budgets,
    explain: at.explain,
  });
  spendUse(at.budgets, result.budgetUse);
  customer.snapshot = result.customer;
  Object.assign(customer.progress, result.progress);
  return result;
}
