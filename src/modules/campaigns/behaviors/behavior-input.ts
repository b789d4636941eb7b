import type { StoredGoal } from '../../../database/entities/behavior.entity.js';

/** A behavior as written (contract §6), once checked: what the limits and the store take. */
export type GoalInput = Omit<StoredGoal, 'id'>;

export interface GroupInput {
  goal_count: number;
  goals: GoalInput[];
}

export type OutcomeInput =
  | { deal: { id: number } }
  | { ad_unit: { id: number } }
  | { points: number }
  | { event: { name: string; by: number } }
  | { tier: { name: string } };

export interface BehaviorInput {
  name: string;
  tags: string | null;
  points: number;
  data: Record<string, unknown>;
  goal_groups: GroupInput[];
  /** null where an outcome is invalid, so that indexes stay those of the request. */
  outcome_config: Array<OutcomeInput | null>;
  /** The experiment variant whose customers alone it evaluates (§20); null: every customer. */
  variant: string | null;
}
