import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ErrorBody } from '../../../../common/http/error-envelope.dto.js';
import { Criterion } from '../../../../common/validation/criterion.dto.js';
import { ApiDeletedAt, ApiTimestamp } from '../../../../common/validation/schedule.dto.js';
import { BEHAVIOR_EXAMPLE, BehaviorDataInput, CRITERIA_EXAMPLE, GoalDataInput, OpenSchema, OutcomeInput } from './behavior.dto.js';

/** `errors` of a behavior or goal: a dotted field → what is wrong with it. */
const ApiProblems = (description: string, example: Record<string, string> = {}) =>
  ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example, description });

@OpenSchema("A behavior's data as stored (members sent null are answered null), plus goals_csv_data; other members are echoed as sent")
export class BehaviorDataView extends BehaviorDataInput {
  @ApiProperty({
    example: 'goal_id,name,internal_event_name,event_count\n501,store_visit,store_visit,3\n',
    description: 'Generated on every read: a header line, then one line per goal (id, name, internal_event_name, event_count)',
  })
  goals_csv_data: string;
}

@OpenSchema("A goal's data as stored (members sent null are answered null); other members are echoed as sent")
export class GoalDataView extends GoalDataInput {}

export class AchievementView {
  @ApiProperty({ type: 'integer', example: 501, description: 'The goal id; kept by name across updates' }) id: number;
  @ApiProperty({ example: 'store_visit' }) name: string;
  @ApiProperty({ example: 'store_visit', nullable: true, type: String }) internal_event_name: string | null;
  @ApiProperty({ type: 'integer', example: 3 }) event_count: number;
  @ApiProperty({ example: 'unique', enum: ['count', 'unique'] }) type: 'count' | 'unique';
  @ApiProperty({ example: 'store_id', nullable: true, type: String }) unique_attribute: string | null;
  @ApiProperty({ type: 'integer', example: 5 }) points: number;
  @ApiProperty({ example: true }) required: boolean;
  @ApiProperty({ type: [Criterion], example: CRITERIA_EXAMPLE }) criteria: Criterion[];
  @ApiProperty({ example: null, nullable: true, type: String }) tags: string | null;
  @ApiProperty({ type: GoalDataView, example: { min_time_between_events: 60 } }) data: GoalDataView;
  @ApiProblems('Always empty in a success answer') errors: Record<string, string>;
}

export class GoalView {
  @ApiProperty({ type: AchievementView }) achievement: AchievementView;
}

export class GoalGroupView {
  @ApiProperty({ type: 'integer', example: 1, description: 'The number of goals when it was not given' }) goal_count: number;
  @ApiProperty({ type: [GoalView] }) goals: GoalView[];
}

/** An outcome in the request form, with its id: in the document, a union of OutcomeConfigView_<kind> forms (extendDocument). */
export class OutcomeConfigView extends OutcomeInput {
  @ApiProperty({ type: 'integer', example: 31, description: 'Kept across updates while the outcome awards the same thing' }) id: number;
}

export class OutcomeView {
  @ApiProperty({ type: 'integer', example: 31, description: 'The id of the outcome in outcome_config' }) id: number;
  @ApiProperty({ type: 'integer', example: 7, description: 'The organization id' }) account_id: number;
  @ApiProperty({ type: 'integer', example: 7 }) organization_id: number;
  @ApiProperty({
    type: 'integer',
    example: 12,
    nullable: true,
    description: 'The offer, creative or tier id; null for points and event outcomes, and for a tier deleted since',
  })
  model_id: number | null;
  @ApiProperty({ example: 'Offer', enum: ['Offer', 'AdUnit', 'Points', 'EventOutcome', 'Tier', 'Extension'], description: "Extension: a reward kind an extension defines (its member in outcome_config names it)" }) model_type: string;
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
}

export class BehaviorView {
  @ApiProperty({ type: 'integer', example: 77 }) id: number;
  @ApiProperty({ type: 'integer', example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'Visit three stores', description: 'On the answer of a delete it ends with [DELETED AT <timestamp>]' }) name: string;
  @ApiProperty({ example: 'explorer|visitor', nullable: true, type: String }) tags: string | null;
  @ApiProperty({ type: 'integer', example: 50 }) points: number;
  @ApiProperty({
    type: BehaviorDataView,
    example: { ...BEHAVIOR_EXAMPLE.data, goals_csv_data: 'goal_id,name,internal_event_name,event_count\n501,store_visit,store_visit,3\n' },
  })
  data: BehaviorDataView;
  @ApiProperty({ type: [GoalGroupView] }) goal_groups: GoalGroupView[];
  @ApiProperty({ type: [OutcomeConfigView], example: [{ id: 31, deal: { id: 12 } }, { id: 32, points: 10 }] }) outcome_config: OutcomeConfigView[];
  @ApiProperty({ type: [OutcomeView], description: 'One per outcome of outcome_config, in the same order' }) outcomes: OutcomeView[];
  @ApiProperty({ type: String, nullable: true, example: null, description: "The experiment variant (contract §20) whose customers alone it evaluates: one of the campaign's experiment variants. null: every customer (default)" }) variant: string | null;
  @ApiProblems('Always empty in a success answer') errors: Record<string, string>;
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class BehaviorResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: BehaviorView }) behavior: BehaviorView;
}

export class BehaviorListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [BehaviorView], description: 'Oldest first' }) behaviors: BehaviorView[];
}

const PROBLEMS_EXAMPLE = { 'goal_groups.0.goals.0.achievement.unique_attribute': 'is required when type is unique' };

@OpenSchema('A behavior as it was submitted (its members echoed as sent), with what is wrong with it')
export class SubmittedBehavior {
  @ApiProblems('A dotted field of the behavior → what is wrong with it; empty when the behavior itself is valid', PROBLEMS_EXAMPLE)
  errors: Record<string, string>;
}

const ERROR_EXAMPLE = {
  code: 'validation',
  message:
    '1 of 1 behaviors are invalid and none was stored: ' +
    'behaviors.0.goal_groups.0.goals.0.achievement.unique_attribute is required when type is unique',
  details: [{ field: 'behaviors.0.goal_groups.0.goals.0.achievement.unique_attribute', message: 'is required when type is unique' }],
};

export class BehaviorBatchError {
  @ApiProperty({ enum: ['error'], example: 'error' }) status: 'error';
  @ApiProperty({ type: ErrorBody, example: ERROR_EXAMPLE }) errors: ErrorBody;
  @ApiPropertyOptional({
    type: [SubmittedBehavior],
    example: [{ name: 'Visit three stores', errors: PROBLEMS_EXAMPLE }],
    description: 'On validation of the behaviors themselves: every submitted behavior, in order, each with its own errors (none was stored)',
  })
  behaviors?: SubmittedBehavior[];
}

export class BehaviorUpdateError {
  @ApiProperty({ enum: ['error'], example: 'error' }) status: 'error';
  @ApiProperty({ type: ErrorBody }) errors: ErrorBody;
  @ApiPropertyOptional({
    type: SubmittedBehavior,
    description: 'On validation of the behavior itself: the members submitted, with the errors of the behavior they make (nothing was changed)',
  })
  behavior?: SubmittedBehavior;
}
