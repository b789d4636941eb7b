import { ApiProperty, ApiPropertyOptional, getSchemaPath, PickType } from '@nestjs/swagger';
import type { BehaviorView, GoalView, GroupView } from '../../../engine/index.js';

// A customer's progress in a behavior, as the engine's behaviorView() builds it (src/engine/view.ts), in the seed's
// composite shape: the V1 answer, retrieval and perform's behaviors section all answer it. Each class implements the
// engine's type, so a member the engine adds or changes is a compile error here.

const int = (example: number, description?: string) => ({ type: 'integer', example, ...(description ? { description } : {}) }) as const;
const nullableInt = (example: number | null, description: string) => ({ type: 'integer', nullable: true, example, description }) as const;

/** Schema options of a map keyed by name whose values are `model`. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export function mapOf(model: Function, description: string) {
  return { type: 'object', additionalProperties: { $ref: getSchemaPath(model) }, description } as const;
}

type GoalProgress = GoalView['progress'];

export class GoalCounts implements GoalProgress {
  @ApiProperty({ example: 'store_visit', description: 'The event the goal listens to' }) event_name: string;
  @ApiProperty({ enum: ['count', 'unique'], example: 'unique' }) type: 'count' | 'unique';
  @ApiProperty(int(2, 'Events counted toward the goal in the current cycle (distinct pivots for a unique goal)')) current_count: number;
  @ApiProperty(int(3, 'Events the goal needs (its event_count)')) total_count: number;
  @ApiProperty(nullableInt(null, 'Throttle window in seconds; null when none')) min_time_between_events: number | null;
  @ApiProperty(int(1, 'How many events count per throttle window')) min_time_between_events_count: number;
  @ApiProperty({ example: false, description: 'Counts customer-local days in a row' }) consecutive: boolean;
}

export class GoalProgressView implements GoalView {
  @ApiProperty({ enum: ['goal'], example: 'goal' }) type: 'goal';
  @ApiProperty(int(11, 'Goal id')) id: number;
  @ApiProperty({ example: 'store_visit' }) event_name: string;
  @ApiProperty(int(10, 'Points credited when the goal completes')) points: number;
  @ApiProperty({ example: false, description: 'Completed in the current cycle' }) completed: boolean;
  @ApiProperty({ example: true, description: 'Its group needs it to be complete' }) required: boolean;
  @ApiProperty(int(3, 'Events the goal needs')) earn_count: number;
  @ApiProperty(int(0, "Index of the goal's group: its key in groups")) group_id: number;
  @ApiProperty({ type: GoalCounts }) progress: GoalCounts;
}

export class GroupProgressView implements GroupView {
  @ApiProperty({ enum: ['group'], example: 'group' }) type: 'group';
  @ApiProperty(int(0, 'Goals of the group completed in the current cycle')) current_count: number;
  @ApiProperty(int(1, 'Goals the group needs (its goal_count)')) total_count: number;
  @ApiProperty(int(2, 'Goals in the group')) num_goals: number;
  @ApiProperty({ example: false }) completed: boolean;
}

export class BehaviorProgressView implements BehaviorView {
  @ApiProperty(int(7, 'Behavior id')) id: number;
  @ApiProperty(int(42, 'Its campaign')) campaign_id: number;
  @ApiProperty({ example: 'store_visit', description: "The first goal's event name (the behavior's name when it has no goal)" }) event_name: string;
  @ApiProperty({ enum: ['composite'], example: 'composite' }) type: 'composite';
  @ApiProperty(int(50, 'Points credited on each completion')) points: number;
  @ApiProperty(int(1, 'Times the customer completed the behavior')) achieved: number;
  @ApiProperty({ enum: [false], example: false, description: 'Always false: behaviors cannot be skipped' }) can_skip: false;
  @ApiProperty(int(0, 'Always 0')) skipped: number;
  @ApiProperty(nullableInt(4, 'Total cap of completions (max_times_achievable); null when none')) max_times_repeatable: number | null;
  @ApiProperty(nullableInt(1, 'Cap per period; null when none')) max_times_repeatable_per_period: number | null;
  @ApiProperty(nullableInt(86400, 'Period of the per-period cap, in seconds; null when none')) period: number | null;
  @ApiProperty(nullableInt(null, "The first goal's throttle window in seconds; null when none")) min_time_between_events: number | null;
  @ApiProperty(int(1, "The first goal's throttle count")) min_time_between_events_count: number;
  @ApiProperty({ example: false, description: 'The first goal counts days in a row' }) consecutive: boolean;
  @ApiProperty(int(0, 'Goals completed in the current cycle (that the groups require)')) current_count: number;
  @ApiProperty(int(1, 'Goals the groups require to complete the behavior')) total_count: number;
  @ApiProperty(mapOf(GoalProgressView, 'Goal name → the goal with its progress')) goals: Record<string, GoalProgressView>;
  @ApiProperty(mapOf(GroupProgressView, 'Group index ("0", "1", ...) → the group with its progress')) groups: Record<string, GroupProgressView>;
}

/** What one request changed in a behavior: the top-level `deltas` of the V1 answer. */
export class BehaviorChange {
  @ApiProperty(int(0, 'Change of the goals completed in the cycle (current_count)')) current_count: number;
  @ApiProperty(int(1, 'Completions in this request')) achieved: number;
  @ApiPropertyOptional({
    enum: [true],
    example: true,
    description:
      'Present (true) when the goal progress started again from 0 in this request: after a completion the next cycle begins, or with ' +
      'use_same_period progress of an earlier period was dropped. Absent when nothing was reset.',
  })
  reset?: true;
}

/** The behavior's own deltas: the change, plus the new unique pivots. */
export class BehaviorDeltas extends BehaviorChange {
  @ApiPropertyOptional({ type: [String], example: ['s-12'], description: 'Unique goals: the new pivot values this request counted; absent when none' })
  data?: string[];
  @ApiPropertyOptional(int(1, 'How many values data lists; absent with data'))
  pivot_count?: number;
}

/** A behavior of the V1 answer: its progress after the request and what the request changed. */
export class V1BehaviorView extends BehaviorProgressView {
  @ApiProperty({
    type: BehaviorDeltas,
    description: 'What this request changed (current_count 0 and achieved 0 for a behavior it did not progress)',
  })
  deltas: BehaviorDeltas;
}

/** A behavior of the retrieval answer (contract §10). */
export class RetrievalBehaviorView extends PickType(BehaviorProgressView, [
  'event_name',
  'type',
  'max_times_repeatable',
  'max_times_repeatable_per_period',
  'min_time_between_events',
  'consecutive',
  'achieved',
  'current_count',
  'total_count',
  'goals',
] as const) {}
