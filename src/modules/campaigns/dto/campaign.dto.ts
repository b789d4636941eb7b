import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import type { Criterion, Status } from '../../../engine/index.js';
import { IsCriteria } from '../../../common/validation/criteria.js';
import {
  ApiEndsAt,
  ApiStartsAt,
  ApiStatus,
  ApiTimestamp,
  OptionalStatus,
  RequiredDatetime,
  RequiredName,
  RequiredStatus,
} from '../../../common/validation/schedule.dto.js';
import { NestedObject, Optional, Required } from '../../../common/validation/validators.js';

export const PERMALINK = /^[a-z0-9][a-z0-9_-]{0,99}$/;
const MAX_ID = 2_147_483_647;
const TARGETING_EXAMPLE = [{ field: 'user.tags', op: 'contains', value: 'vip' }];

/** Members a campaign write may carry besides the four that PUT requires. */
class CampaignOptions {
  @ApiPropertyOptional({ example: 'spring-visits', description: 'Unique per organization; generated from the name when absent' })
  @Optional()
  @IsString()
  @Matches(PERMALINK, { message: '$property must be 1-100 lowercase letters, digits, - or _, starting with a letter or digit' })
  permalink?: string;

  @ApiPropertyOptional({ example: 1, type: 'integer', description: "A division of the organization; default its root" })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  division_id?: number;

  @ApiPropertyOptional({ example: false, description: 'Events count only after the customer qualifies ("qualify": true)' })
  @Optional()
  @IsBoolean()
  opt_in_required?: boolean;

  @ApiPropertyOptional({ example: [], type: [Number], description: 'Campaigns the customer must have completed first' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(MAX_ID, { each: true })
  prerequisite_campaign_ids?: number[];

  @ApiPropertyOptional({ example: TARGETING_EXAMPLE, description: 'Criteria on the customer (contract §5); all must hold' })
  @Optional()
  @IsCriteria('targeting')
  targeting?: Criterion[];
}

const notBlank = () => Matches(/\S/, { message: '$property must not be blank' });

export class CreateCampaignInput extends CampaignOptions {
  @RequiredName({ example: 'Spring visits' }, notBlank())
  name: string;

  @OptionalStatus({ default: 'draft' })
  status?: Status;

  @RequiredDatetime({ example: '2026-03-01T00:00:00Z' })
  starts_at: string;

  @RequiredDatetime({ example: '2026-06-01T00:00:00Z', description: 'After starts_at' })
  ends_at: string;
}

export class UpdateCampaignInput extends CampaignOptions {
  @RequiredName({ example: 'Spring visits' }, notBlank())
  name: string;

  @RequiredStatus({ example: 'live' })
  status: Status;

  @RequiredDatetime({ example: '2026-03-01T00:00:00Z' })
  starts_at: string;

  @RequiredDatetime({ example: '2026-06-01T00:00:00Z' })
  ends_at: string;
}

export class CreateCampaignBody {
  @ApiProperty({ type: CreateCampaignInput })
  @Required()
  @NestedObject()
  @Type(() => CreateCampaignInput)
  campaign: CreateCampaignInput;
}

export class UpdateCampaignBody {
  @ApiProperty({ type: UpdateCampaignInput, description: 'name, status, starts_at and ends_at are all required' })
  @Required()
  @NestedObject()
  @Type(() => UpdateCampaignInput)
  campaign: UpdateCampaignInput;
}

export class CampaignView {
  @ApiProperty({ example: 42 }) id: number;
  @ApiProperty({ example: 'Spring visits' }) name: string;
  @ApiProperty({ example: 'spring-visits' }) permalink: string;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ example: 1 }) division_id: number;
  @ApiProperty({ example: false }) opt_in_required: boolean;
  @ApiProperty({ example: [], type: [Number] }) prerequisite_campaign_ids: number[];
  @ApiProperty({ example: TARGETING_EXAMPLE }) targeting: Criterion[];
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiPropertyOptional({ example: null, nullable: true, type: String }) deleted_at?: string | null;
}

export class CampaignResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: CampaignView }) campaign: CampaignView;
}

export class CampaignListResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [CampaignView] }) campaigns: CampaignView[];
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 10 }) limit: number;
  @ApiProperty({ example: 1 }) total: number;
}

class CreativeNode {
  @ApiProperty({ example: 7 }) id: number;
  @ApiProperty({ example: 'Welcome push' }) name: string;
  @ApiStatus() status: Status;
}

class CreativeGroupNode {
  @ApiProperty({ example: 5 }) id: number;
  @ApiProperty({ example: 'Everyone' }) name: string;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ type: [CreativeNode] }) creatives: CreativeNode[];
}

class LineItemNode {
  @ApiProperty({ example: 3 }) id: number;
  @ApiProperty({ example: 'Main' }) name: string;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ type: [CreativeGroupNode] }) creative_groups: CreativeGroupNode[];
}

export class NavigationCampaign {
  @ApiProperty({ example: 42 }) id: number;
  @ApiProperty({ example: 'Spring visits' }) name: string;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ type: [LineItemNode] }) line_items: LineItemNode[];
}

export class NavigationResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: NavigationCampaign }) campaign: NavigationCampaign;
}
