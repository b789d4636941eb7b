import type { Criterion } from '../../../engine/index.js';

/** A behavior as written (contract §6), once checked: what the limits and the store take. */
export interface GoalInput {
  name: string;
  internal_event_name: string | null;
  event_count: number;
  type: 'count' | 'unique';
  unique_attribute: string | null;
  points: number;
  required: boolean;
  criteria: Criterion[];
  tags: string | null;
  data: Record<string, unknown>;
}

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
