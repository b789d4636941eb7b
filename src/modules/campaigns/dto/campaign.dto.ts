import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import type { Status } from '../../../engine/index.js';
import { IsCriteria } from '../../../common/validation/criteria.js';
import { Criterion } from '../../../common/validation/criterion.dto.js';
import { HasNoPrototypeKeyFields } from '../../../common/validation/reserved-names.js';
import {
  ApiDeletedAt,
  ApiEndsAt,
  ApiStartsAt,
  ApiStatus,
  ApiTimestamp,
  OptionalStatus,
  RequiredDatetime,
  RequiredName,
  RequiredStatus,
} from '../../../common/validation/schedule.dto.js';
import { NestedObject, Optional } from '../../../common/validation/validators.js';
import { RequiredObject } from '../../../common/validation/wrappers.js';
import { EXPERIMENT_VIEW_SCHEMA, ExperimentInput, type ExperimentView } from './experiment.dto.js';

export const PERMALINK = /^[a-z0-9][a-z0-9_-]{0,99}$/;
const MAX_ID = 2_147_483_647;
const TARGETING_EXAMPLE = [{ field: 'user.tags', op: 'contains', value: 'vip' }];
/** How request datetimes may be written (answers are always ISO 8601 UTC with milliseconds). */
export const DATETIME_FORMS = 'ISO 8601 (2026-03-01T00:00:00Z, 2026-03-01T02:00:00.000+02:00) or 2026-03-01 02:00:00 +0200; no offset means UTC';

const BUDGET =
  'Counted across all its customers: a completion that would take the campaign past max_completions, or whose points (behavior, ' +
  'goals and points offers) would take it past max_points, does not happen (state budget_exhausted). null: no limit. A reversal ' +
  'gives its completions and points back. Usage counts from when a budget is set; null removes the budget.';

export class BudgetInput {
  @ApiPropertyOptional({ example: 1000, type: 'integer', minimum: 0, maximum: MAX_ID, nullable: true, description: 'Completions at most (null or absent: no limit)' })
  @ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)
  @IsInt()
  @Min(0)
  @Max(MAX_ID)
  max_completions?: number | null;

  @ApiPropertyOptional({ example: 50000, type: 'integer', minimum: 0, maximum: MAX_ID, nullable: true, description: 'Points credited at most (null or absent: no limit)' })
  @ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)
  @IsInt()
  @Min(0)
  @Max(MAX_ID)
  max_points?: number | null;
}

export interface BudgetView {
  max_completions: number | null;
  max_points: number | null;
}

export class BudgetUsedView {
  @ApiProperty({ example: 12, type: 'integer' }) completions: number;
  @ApiProperty({ example: 600, type: 'integer' }) points: number;
}

/** Members a campaign write may carry besides the four that PUT requires. */
class CampaignOptions {
  @ApiPropertyOptional({ example: 'spring-visits', description: 'Unique per organization; generated from the name when absent' })
  @Optional()
  @IsString()
  @Matches(PERMALINK, { message: '$property must be 1-100 lowercase letters, digits, - or _, starting with a letter or digit' })
  permalink?: string;

  @ApiPropertyOptional({ example: 1, type: 'integer', description: 'A division of the organization; default its root division' })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  division_id?: number;

  @ApiPropertyOptional({ example: false, description: 'Events count only after the customer qualifies ("qualify": true)' })
  @Optional()
  @IsBoolean()
  opt_in_required?: boolean;

  @ApiPropertyOptional({
    example: [],
    type: 'integer',
    isArray: true,
    maxItems: 50,
    description: 'Ids of campaigns of the organization the customer must have completed first (not this campaign); default none',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(MAX_ID, { each: true })
  prerequisite_campaign_ids?: number[];

  @ApiPropertyOptional({
    type: [Criterion],
    maxItems: 50,
    example: TARGETING_EXAMPLE,
    description: 'Criteria on the customer (contract §5), all of which must hold for the campaign to count their events; default none',
  })
  @Optional()
  @IsCriteria('targeting')
  @HasNoPrototypeKeyFields()
  targeting?: Criterion[];

  @ApiPropertyOptional({ type: BudgetInput, nullable: true, description: `The campaign budget; default none. ${BUDGET}` })
  @ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)
  @NestedObject()
  @Type(() => BudgetInput)
  budget?: BudgetInput | null;

  @ApiPropertyOptional({
    type: ExperimentInput,
    nullable: true,
    description:
      'Runs the campaign as an experiment (contract §20): each customer it reaches is assigned for good to its holdout (which it ignores) or a variant. ' +
      'Default none. Once a customer has been assigned, holdout_percent and variants can no longer change; metric can.',
  })
  @ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)
  @NestedObject()
  @Type(() => ExperimentInput)
  experiment?: ExperimentInput | null;
}

const notBlank = () => Matches(/\S/, { message: '$property must not be blank' });

export class CreateCampaignInput extends CampaignOptions {
  @RequiredName({ example: 'Spring visits' }, notBlank())
  name: string;

  @OptionalStatus({ default: 'draft' })
  status?: Status;

  @RequiredDatetime({ example: '2026-03-01T00:00:00Z', description: DATETIME_FORMS })
  starts_at: string;

  @RequiredDatetime({ example: '2026-06-01T00:00:00Z', description: `After starts_at. ${DATETIME_FORMS}` })
  ends_at: string;
}

export class UpdateCampaignInput extends CampaignOptions {
  @RequiredName({ example: 'Spring visits' }, notBlank())
  name: string;

  @RequiredStatus({ example: 'live' })
  status: Status;

  @RequiredDatetime({ example: '2026-03-01T00:00:00Z', description: DATETIME_FORMS })
  starts_at: string;

  @RequiredDatetime({ example: '2026-06-01T00:00:00Z', description: `After starts_at. ${DATETIME_FORMS}` })
  ends_at: string;
}

export class CreateCampaignBody {
  @RequiredObject(CreateCampaignInput)
  campaign: CreateCampaignInput;
}

export class UpdateCampaignBody {
  @RequiredObject(UpdateCampaignInput, 'name, status, starts_at and ends_at are all required')
  campaign: UpdateCampaignInput;
}

export class CampaignView {
  @ApiProperty({ type: 'integer', example: 42 }) id: number;
  @ApiProperty({ example: 'Spring visits', description: 'On the answer of a delete it ends with [DELETED AT <timestamp>]' }) name: string;
  @ApiProperty({ example: 'spring-visits', description: 'Unique per organization; names the campaign in the external/campaigns routes' })
  permalink: string;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ type: 'integer', example: 1 }) division_id: number;
  @ApiProperty({ example: false }) opt_in_required: boolean;
  @ApiProperty({ example: [], type: 'integer', isArray: true }) prerequisite_campaign_ids: number[];
  @ApiProperty({ type: [Criterion], example: TARGETING_EXAMPLE, description: 'Empty when every customer is targeted' }) targeting: Criterion[];
  // Inline, not a $ref: OpenAPI 3.0 cannot make a referenced schema nullable.
  @ApiProperty({
    type: 'object',
    nullable: true,
    required: ['max_completions', 'max_points'],
    properties: {
      max_completions: { type: 'integer', nullable: true, example: 1000, description: 'Completions at most (null: no limit)' },
      max_points: { type: 'integer', nullable: true, example: 50000, description: 'Points credited at most (null: no limit)' },
    },
    description: `null: no budget. ${BUDGET}`,
  })
  budget: BudgetView | null;
  @ApiProperty({ type: BudgetUsedView, description: 'What completions used of the budget (zeros without one)' }) budget_used: BudgetUsedView;
  @ApiProperty({ ...EXPERIMENT_VIEW_SCHEMA, description: 'null: no experiment (contract §20)' }) experiment: ExperimentView | null;
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class CampaignResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: CampaignView }) campaign: CampaignView;
}

export class CampaignListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [CampaignView], description: 'The page asked for, oldest first' }) campaigns: CampaignView[];
  @ApiProperty({ type: 'integer', example: 1 }) page: number;
  @ApiProperty({ type: 'integer', example: 10 }) limit: number;
  @ApiProperty({ type: 'integer', example: 1, description: 'Campaigns of the organization that are not deleted, on all pages' }) total: number;
}

export class NavigationCreative {
  @ApiProperty({ type: 'integer', example: 7 }) id: number;
  @ApiProperty({ example: 'Welcome push' }) name: string;
  @ApiStatus() status: Status;
}

export class NavigationCreativeGroup {
  @ApiProperty({ type: 'integer', example: 5 }) id: number;
  @ApiProperty({ example: 'Everyone' }) name: string;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ type: [NavigationCreative] }) creatives: NavigationCreative[];
}

export class NavigationLineItem {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ example: 'Main' }) name: string;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ type: [NavigationCreativeGroup] }) creative_groups: NavigationCreativeGroup[];
}

export class NavigationCampaign {
  @ApiProperty({ type: 'integer', example: 42 }) id: number;
  @ApiProperty({ example: 'Spring visits' }) name: string;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ type: [NavigationLineItem], description: 'Not deleted ones, oldest first; each with its creative groups and their creatives' })
  line_items: NavigationLineItem[];
}

export class NavigationResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: NavigationCampaign }) campaign: NavigationCampaign;
}
