import type { CompiledRules, RewardContext } from '../engine/index.js';

/**
 * A reward kind's work (decorate the class with @RewardKind). `apply` must be pure and deterministic: it runs inside
 * the engine, for live events, simulations and explanations alike, and changes the result only through `ctx`.
 */
export abstract class RewardKindHandler<A = unknown> {
  abstract apply(ctx: RewardContext, args: A): void;
  /** The points one award credits, counted against a campaign budget before the award is made (default 0). */
  points?(args: A, rules: CompiledRules): number;
  /** The event names an award raises (default none): the behaviors listening to them are locked and loaded too. */
  raises?(args: A): string[];
  /** The creatives an award delivers as notifications when they are live and target the customer (default none). */
  creatives?(args: A): number[];
}

/**
 * A criteria operator's test (decorate the class with @CriteriaOperator): pure and deterministic, so that a replay
 * gives the same answer. `actual` is undefined when the field is absent; `expected` is the criterion's `value`.
 */
export abstract class CriteriaOperatorHandler {
  abstract test(actual: unknown, expected: unknown): boolean;
}
