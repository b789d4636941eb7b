import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ApiSchemaOf } from '../../../../common/http/api-schema.js';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject } from 'class-validator';
import { Criterion } from '../../../../common/validation/criterion.dto.js';
import { Required } from '../../../../common/validation/validators.js';
import { EventOutcomeInput, OutcomeIdRef, OutcomeTierRef, POINTS_PROPERTY } from '../../rewards/core-reward-args.js';

/**
 * Request classes document the behavior shape (contract §6) in Swagger. Their members are checked by
 * behavior-validation.ts, not by class-validator, so that every behavior of a batch is answered with its own errors.
 */

/** A named schema that also takes members it does not list. */
export const OpenSchema = (description: string): ClassDecorator => ApiSchemaOf(description, true);

const NOT_PROTOTYPE = 'Not __proto__, constructor or prototype';

export const CRITERIA_EXAMPLE = [{ field: 'context.app_name', op: 'eq', value: 'mobile' }];

/** Integer members of a behavior's or goal's data: null (or absent) means not set. */
const Count = (example: number, description: string) => ApiPropertyOptional({ type: 'integer', minimum: 1, nullable: true, example, description });
const Flag = (description: string) => ApiPropertyOptional({ type: Boolean, nullable: true, example: false, description });

@OpenSchema('Caps and period of a behavior, and the defaults of its goals; null means not set; other members are stored and echoed')
export class BehaviorDataInput {
  @Count(604800, 'Seconds; the window of max_times_achievable_per_period and use_same_period') period?: number | null;
  @Count(4, 'Completions per customer in all') max_times_achievable?: number | null;
  @Count(1, 'Completions per period') max_times_achievable_per_period?: number | null;
  @Count(2, 'Completions per calendar month of the customer') max_times_achievable_per_month?: number | null;
  @Count(12, 'Completions per calendar year of the customer') max_times_achievable_per_year?: number | null;
  @Flag('All goals must be completed within one period') use_same_period?: boolean | null;
  @Flag('Default for goals: events on consecutive days') consecutive?: boolean | null;
  @Flag('Stored and echoed') eligible_spend?: boolean | null;
  @Count(60, 'Default for goals: throttle window in seconds') min_time_between_events?: number | null;
  @Count(1, 'Default for goals: events counted per throttle window') min_time_between_events_count?: number | null;
}

@OpenSchema("A goal's throttle and streak settings; null means not set (the behavior's data gives the default); other members are stored and echoed")
export class GoalDataInput {
  @Count(60, 'Throttle window in seconds') min_time_between_events?: number | null;
  @Count(1, 'Events counted per throttle window (default 1)') min_time_between_events_count?: number | null;
  @Flag('Counts customer-local days in a row') consecutive?: boolean | null;
}

export class AchievementInput {
  @ApiProperty({ example: 'store_visit', description: `Unique within the behavior; the event listened to when internal_event_name is absent. ${NOT_PROTOTYPE}` })
  name: string;
  @ApiPropertyOptional({ example: 'store_visit', nullable: true, type: String, description: `The event listened to; default the name. ${NOT_PROTOTYPE}` })
  internal_event_name?: string | null;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 3,
    default: 1,
    description: 'Count (or distinct values for unique) that completes the goal; for a unique goal at most LIMIT_UNIQUE_GOAL_EVENT_COUNT (default 10,000)',
  })
  event_count?: number;
  @ApiPropertyOptional({ example: 'unique', enum: ['count', 'unique'], default: 'count' }) type?: 'count' | 'unique';
  @ApiPropertyOptional({ example: 'store_id', nullable: true, type: String, description: `Required when type is unique. ${NOT_PROTOTYPE}` })
  unique_attribute?: string | null;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, example: 5, default: 0, description: 'Credited when the behavior completes with this goal done' })
  points?: number;
  @ApiPropertyOptional({ example: true, default: false, description: 'The group needs this goal whatever its goal_count' }) required?: boolean;
  @ApiPropertyOptional({
    type: [Criterion],
    maxItems: 50,
    example: CRITERIA_EXAMPLE,
    description:
      'Conditions on the event instance (fields: an attribute of the event, context.<key>, count), all of which must hold; default none. ' +
      'No attribute or context key may be __proto__, constructor or prototype',
  })
  criteria?: Criterion[];
  @ApiPropertyOptional({ example: 'visitor', nullable: true, type: String, description: 'Tags joined with |' }) tags?: string | null;
  @ApiPropertyOptional({ type: GoalDataInput, example: { min_time_between_events: 60 } }) data?: GoalDataInput;
}

export class GoalInput {
  @ApiProperty({ type: AchievementInput }) achievement: AchievementInput;
}

export class GoalGroupInput {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, example: 1, description: 'Goals that complete the group: 1 to the number of goals; default all' })
  goal_count?: number;
  @ApiProperty({ type: [GoalInput], minItems: 1, maxItems: 50 }) goals: GoalInput[];
}

/**
 * One outcome: exactly one of its members. The built-in kinds' members (their args classes: rewards/core-reward-args.ts)
 * as the document holds them: extendDocument (extension-document.ts) makes the OutcomeInput component a union of
 * one-member forms, OutcomeInput_<kind>, one per built-in kind and per extension kind, so that a body with no member or
 * two fits none.
 */
export class OutcomeInput {
  @ApiPropertyOptional({ type: OutcomeIdRef, description: 'An offer of the organization' }) deal?: OutcomeIdRef;
  @ApiPropertyOptional({ type: OutcomeIdRef, description: 'A creative (message) of the same campaign' }) ad_unit?: OutcomeIdRef;
  @ApiPropertyOptional({ ...POINTS_PROPERTY }) points?: number;
  @ApiPropertyOptional({ type: EventOutcomeInput, description: 'An event raised for the customer' }) event?: EventOutcomeInput;
  @ApiPropertyOptional({ type: OutcomeTierRef, description: 'A tier of the organization the customer is lifted to' }) tier?: OutcomeTierRef;
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
  @ApiProperty({ example: 'Visit three stores', description: `1-255 characters, unique per organization (case-insensitive). ${NOT_PROTOTYPE}` }) name: string;
  @ApiPropertyOptional({ example: 'explorer|visitor', nullable: true, type: String, description: 'Tags added to the customer on completion, joined with |' })
  tags?: string | null;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    example: 50,
    default: 0,
    description:
      "Credited on completion. With all its goals' points and its outcomes' (as their reward kinds declare them), at most LIMIT_COMPLETION_POINTS (default " +
      '2,147,483,647) for one completion',
  })
  points?: number;
  @ApiProperty({ type: BehaviorDataInput, example: BEHAVIOR_EXAMPLE.data }) data: BehaviorDataInput;
  @ApiProperty({
    type: [GoalGroupInput],
    minItems: 1,
    maxItems: 20,
    example: BEHAVIOR_EXAMPLE.goal_groups,
    description: 'Every group must complete. At most LIMIT_GOALS_PER_BEHAVIOR goals (default 100) over all the groups',
  })
  goal_groups: GoalGroupInput[];
  @ApiPropertyOptional({
    type: [OutcomeInput],
    maxItems: 20,
    example: BEHAVIOR_EXAMPLE.outcome_config,
    description: 'What a completion awards; each object holds exactly one outcome',
  })
  outcome_config?: OutcomeInput[];
  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 40, example: null, description: "The experiment variant (contract §20) whose customers alone it evaluates: one of the campaign's experiment variants. null: every customer (default)" })
  variant?: string | null;
}

/** A partial update: any members of a behavior. */
export class UpdateBehaviorInput extends PartialType(BehaviorInput) {}

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
    type: UpdateBehaviorInput,
    example: { points: 60 },
    description: 'Any of the members of a behavior (as in a batch); those absent keep their values, those sent replace the stored ones whole',
  })
  @Required()
  @IsObject()
  behavior: Record<string, unknown>;
}
