import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject } from 'class-validator';
import type { Criterion } from '../../../../engine/index.js';
import { Required } from '../../../../common/validation/validators.js';

/**
 * Request classes document the behavior shape (contract §6) in Swagger. Their members are checked by
 * behavior-validation.ts, not by class-validator, so that every behavior of a batch is answered with its own errors.
 */

const CRITERIA_EXAMPLE = [{ field: 'context.app_name', op: 'eq', value: 'mobile' }];

export class BehaviorDataInput {
  @ApiPropertyOptional({ type: 'integer', example: 604800, description: 'Seconds (> 0); the window of max_times_achievable_per_period and use_same_period' })
  period?: number;
  @ApiPropertyOptional({ type: 'integer', example: 4, description: 'Total completions per customer (≥ 1)' }) max_times_achievable?: number;
  @ApiPropertyOptional({ type: 'integer', example: 1, description: 'Completions per period (≥ 1)' }) max_times_achievable_per_period?: number;
  @ApiPropertyOptional({ type: 'integer', example: 2, description: 'Completions per calendar month of the customer (≥ 1)' }) max_times_achievable_per_month?: number;
  @ApiPropertyOptional({ type: 'integer', example: 12, description: 'Completions per calendar year of the customer (≥ 1)' }) max_times_achievable_per_year?: number;
  @ApiPropertyOptional({ example: false, description: 'All goals must be completed within one period' }) use_same_period?: boolean;
  @ApiPropertyOptional({ example: false, description: 'Default for goals: events on consecutive days' }) consecutive?: boolean;
  @ApiPropertyOptional({ example: false }) eligible_spend?: boolean;
  @ApiPropertyOptional({ type: 'integer', example: 60, description: 'Default for goals: throttle window in seconds (≥ 1)' }) min_time_between_events?: number;
  @ApiPropertyOptional({ type: 'integer', example: 1, description: 'Default for goals: events counted per throttle window (≥ 1)' }) min_time_between_events_count?: number;
}

export class GoalDataInput {
  @ApiPropertyOptional({ type: 'integer', example: 60, description: 'Throttle window in seconds (≥ 1)' }) min_time_between_events?: number;
  @ApiPropertyOptional({ type: 'integer', example: 1, description: 'Events counted per throttle window (≥ 1, default 1)' }) min_time_between_events_count?: number;
  @ApiPropertyOptional({ example: false, description: 'Counts customer-local days in a row' }) consecutive?: boolean;
}

export class AchievementInput {
  @ApiProperty({ example: 'store_visit', description: 'Unique within the behavior; the event listened to when internal_event_name is absent' })
  name: string;
  @ApiPropertyOptional({ example: 'store_visit', nullable: true, type: String }) internal_event_name?: string | null;
  @ApiPropertyOptional({ type: 'integer', example: 3, default: 1, description: 'Count (or distinct values for unique) that completes the goal (≥ 1)' })
  event_count?: number;
  @ApiPropertyOptional({ example: 'unique', enum: ['count', 'unique'], default: 'count' }) type?: 'count' | 'unique';
  @ApiPropertyOptional({ example: 'store_id', nullable: true, type: String, description: 'Required when type is unique' })
  unique_attribute?: string | null;
  @ApiPropertyOptional({ type: 'integer', example: 5, default: 0, description: 'Credited when the behavior completes with this goal done (≥ 0)' })
  points?: number;
  @ApiPropertyOptional({ example: true, default: false, description: 'The group needs this goal whatever its goal_count' }) required?: boolean;
  @ApiPropertyOptional({ example: CRITERIA_EXAMPLE, description: 'Conditions on the event instance: <attribute>, context.<key>, count' })
  criteria?: Criterion[];
  @ApiPropertyOptional({ example: 'visitor', nullable: true, type: String }) tags?: string | null;
  @ApiPropertyOptional({ type: GoalDataInput, example: { min_time_between_events: 60 }, description: 'Other members are stored and echoed' })
  data?: GoalDataInput;
}

export class GoalInput {
  @ApiProperty({ type: AchievementInput }) achievement: AchievementInput;
}

export class GoalGroupInput {
  @ApiPropertyOptional({ type: 'integer', example: 1, description: '1 to the number of goals; default all of them' }) goal_count?: number;
  @ApiProperty({ type: [GoalInput], minItems: 1, maxItems: 50 }) goals: GoalInput[];
}

class IdRef {
  @ApiProperty({ type: 'integer', example: 12 }) id: number;
}

class EventOutcomeInput {
  @ApiProperty({ example: 'explorer_done' }) name: string;
  @ApiPropertyOptional({ example: 1, default: 1, description: 'Count of the raised event (> 0)' }) by?: number;
}

class TierRef {
  @ApiProperty({ example: 'Gold' }) name: string;
}

export class OutcomeInput {
  @ApiPropertyOptional({ type: IdRef, description: 'An offer of the organization' }) deal?: IdRef;
  @ApiPropertyOptional({ type: IdRef, description: 'A creative (message) of the same campaign' }) ad_unit?: IdRef;
  @ApiPropertyOptional({ type: 'integer', example: 10, description: 'Points credited (≥ 1)' }) points?: number;
  @ApiPropertyOptional({ type: EventOutcomeInput, description: 'An event raised for the customer' }) event?: EventOutcomeInput;
  @ApiPropertyOptional({ type: TierRef, description: 'A tier of the organization the customer is lifted to' }) tier?: TierRef;
}

export const BEHAVIOR_EXAMPLE = {
  name: 'Visit three stores',
  tags: 'explorer|visitor',
  points: 50,
  data: { period: 604800, max_times_achievable: 4, max_times_achievable_per_period: 1 },
  goal_groups: [
    {
      goal_count: 1,
      goals: [
        {
          achievement: {
            name: 'store_visit',
            internal_event_name: 'store_visit',
            event_count: 3,
            type: 'unique',
            unique_attribute: 'store_id',
            points: 5,
            required: true,
            criteria: CRITERIA_EXAMPLE,
            data: { min_time_between_events: 60 },
          },
        },
      ],
    },
  ],
  outcome_config: [{ deal: { id: 12 } }, { ad_unit: { id: 40 } }, { points: 10 }, { event: { name: 'explorer_done', by: 1 } }, { tier: { name: 'Gold' } }],
};

export class BehaviorInput {
  @ApiProperty({ example: 'Visit three stores', description: '1-255 characters, unique per organization (case-insensitive)' }) name: string;
  @ApiPropertyOptional({ example: 'explorer|visitor', nullable: true, type: String, description: 'Tags added to the customer on completion, joined with |' })
  tags?: string | null;
  @ApiPropertyOptional({ type: 'integer', example: 50, default: 0, description: 'Credited on completion (≥ 0)' }) points?: number;
  @ApiProperty({ type: BehaviorDataInput, example: BEHAVIOR_EXAMPLE.data, description: 'Caps and period; other members are stored and echoed' })
  data: BehaviorDataInput;
  @ApiProperty({ type: [GoalGroupInput], minItems: 1, maxItems: 20, example: BEHAVIOR_EXAMPLE.goal_groups, description: 'Every group must complete' })
  goal_groups: GoalGroupInput[];
  @ApiPropertyOptional({ type: [OutcomeInput], maxItems: 20, example: BEHAVIOR_EXAMPLE.outcome_config, description: 'Each object holds exactly one outcome' })
  outcome_config?: OutcomeInput[];
}

export class BatchBehaviorsBody {
  @ApiProperty({ type: [BehaviorInput], minItems: 1, maxItems: 100, example: [BEHAVIOR_EXAMPLE] })
  @Required()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsObject({ each: true })
  behaviors: Record<string, unknown>[];
}

export class UpdateBehaviorBody {
  @ApiProperty({
    type: BehaviorInput,
    example: { points: 60 },
    description: 'Any of the members of a behavior (as in a batch); those absent keep their values, those sent replace the stored ones whole',
  })
  @Required()
  @IsObject()
  behavior: Record<string, unknown>;
}

export class AchievementView {
  @ApiProperty({ example: 501 }) id: number;
  @ApiProperty({ example: 'store_visit' }) name: string;
  @ApiProperty({ example: 'store_visit', nullable: true, type: String }) internal_event_name: string | null;
  @ApiProperty({ example: 3 }) event_count: number;
  @ApiProperty({ example: 'unique', enum: ['count', 'unique'] }) type: 'count' | 'unique';
  @ApiProperty({ example: 'store_id', nullable: true, type: String }) unique_attribute: string | null;
  @ApiProperty({ example: 5 }) points: number;
  @ApiProperty({ example: true }) required: boolean;
  @ApiProperty({ example: CRITERIA_EXAMPLE }) criteria: Criterion[];
  @ApiProperty({ example: null, nullable: true, type: String }) tags: string | null;
  @ApiProperty({ example: { min_time_between_events: 60 } }) data: Record<string, unknown>;
  @ApiProperty({ example: {} }) errors: Record<string, string>;
}

export class GoalView {
  @ApiProperty({ type: AchievementView }) achievement: AchievementView;
}

export class GoalGroupView {
  @ApiProperty({ example: 1 }) goal_count: number;
  @ApiProperty({ type: [GoalView] }) goals: GoalView[];
}

export class OutcomeConfigView extends OutcomeInput {
  @ApiProperty({ example: 31 }) id: number;
}

export class OutcomeView {
  @ApiProperty({ example: 31 }) id: number;
  @ApiProperty({ example: 7, description: 'The organization id' }) account_id: number;
  @ApiProperty({ example: 7 }) organization_id: number;
  @ApiProperty({ example: 12, nullable: true, type: Number, description: 'Offer, creative or tier id; null for points and event' })
  model_id: number | null;
  @ApiProperty({ example: 'Offer', enum: ['Offer', 'AdUnit', 'Points', 'EventOutcome', 'Tier'] }) model_type: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) updated_at: string;
}

export class BehaviorView {
  @ApiProperty({ example: 77 }) id: number;
  @ApiProperty({ example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'Visit three stores' }) name: string;
  @ApiProperty({ example: 'explorer|visitor', nullable: true, type: String }) tags: string | null;
  @ApiProperty({ example: 50 }) points: number;
  @ApiProperty({
    example: { ...BEHAVIOR_EXAMPLE.data, goals_csv_data: 'goal_id,name,internal_event_name,event_count\n501,store_visit,store_visit,3\n' },
    description: 'As stored, plus goals_csv_data generated on read',
  })
  data: Record<string, unknown>;
  @ApiProperty({ type: [GoalGroupView] }) goal_groups: GoalGroupView[];
  @ApiProperty({ type: [OutcomeConfigView], example: [{ id: 31, deal: { id: 12 } }, { id: 32, points: 10 }] }) outcome_config: OutcomeConfigView[];
  @ApiProperty({ type: [OutcomeView] }) outcomes: OutcomeView[];
  @ApiProperty({ example: {} }) errors: Record<string, string>;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) updated_at: string;
  @ApiPropertyOptional({ example: null, nullable: true, type: String, description: 'Only on the answer of a delete' }) deleted_at?: string | null;
}

export class BehaviorResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: BehaviorView }) behavior: BehaviorView;
}

export class BehaviorListResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [BehaviorView] }) behaviors: BehaviorView[];
}
