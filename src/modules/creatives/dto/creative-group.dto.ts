import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsString, Length } from 'class-validator';
import type { Criterion, Status } from '../../../engine/index.js';
import { IsCriteria } from '../../../common/validation/criteria.js';
import {
  ApiDeletedAt,
  ApiEndsAt,
  ApiStartsAt,
  ApiStatus,
  ApiTimestamp,
  OptionalDatetime,
  OptionalName,
  OptionalStatus,
  RequiredDatetime,
  RequiredName,
  RequiredStatus,
} from '../../../common/validation/schedule.dto.js';
import { NestedObject, Optional, Required } from '../../../common/validation/validators.js';

const TARGETING_EXAMPLE = [{ field: 'user.tier', op: 'eq', value: 'Gold' }];

/** Members optional on create and update. */
class CreativeGroupOptions {
  @ApiPropertyOptional({ example: 'Gold members' })
  @Optional()
  @IsString()
  @Length(0, 255)
  display_name?: string;

  @ApiPropertyOptional({ example: TARGETING_EXAMPLE, description: 'Criteria on the customer (contract §5); all must hold; default []' })
  @Optional()
  @IsCriteria('targeting')
  targeting?: Criterion[];
}

export class CreateCreativeGroupInput extends CreativeGroupOptions {
  @RequiredName({ example: 'Gold' })
  name: string;

  @RequiredStatus({ example: 'live', description: 'Must be live for its creative to be live' })
  status: Status;

  @RequiredDatetime({ example: '2026-03-01T00:00:00Z', description: "Should match the campaign's starts_at" })
  starts_at: string;

  @RequiredDatetime({ example: '2026-06-01T00:00:00Z', description: 'After starts_at' })
  ends_at: string;
}

export class UpdateCreativeGroupInput extends CreativeGroupOptions {
  @OptionalName({ example: 'Gold' })
  name?: string;

  @OptionalStatus({ example: 'paused' })
  status?: Status;

  @OptionalDatetime({ example: '2026-03-01T00:00:00Z' })
  starts_at?: string;

  @OptionalDatetime({ example: '2026-06-01T00:00:00Z', description: 'After starts_at (the stored one when absent)' })
  ends_at?: string;
}

export class CreateCreativeGroupBody {
  @ApiProperty({ type: CreateCreativeGroupInput })
  @Required()
  @NestedObject()
  @Type(() => CreateCreativeGroupInput)
  creative_group: CreateCreativeGroupInput;
}

export class UpdateCreativeGroupBody {
  @ApiProperty({ type: UpdateCreativeGroupInput, description: 'Partial: only the members sent change' })
  @Required()
  @NestedObject()
  @Type(() => UpdateCreativeGroupInput)
  creative_group: UpdateCreativeGroupInput;
}

export class CreativeGroupView {
  @ApiProperty({ example: 5 }) id: number;
  @ApiProperty({ example: 3 }) line_item_id: number;
  @ApiProperty({ example: 'Gold' }) name: string;
  @ApiProperty({ example: 'Gold members', nullable: true, type: String }) display_name: string | null;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ example: TARGETING_EXAMPLE }) targeting: Criterion[];
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class CreativeGroupListResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [CreativeGroupView] }) creative_groups: CreativeGroupView[];
}

export class CreativeGroupDeletedResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: CreativeGroupView, description: 'The removed group; its name ends with [DELETED AT <timestamp>]' })
  creative_group: CreativeGroupView;
}
