import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsString, Length, ValidateNested } from 'class-validator';
import type { Criterion, Status } from '../../../engine/index.js';
import { IsCriteria } from '../../../common/validation/criteria.js';
import { IsDatetime, Optional, Required } from '../../../common/validation/validators.js';
import { STATUSES } from '../../campaigns/dto/campaign.dto.js';

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
  @ApiProperty({ example: 'Gold' })
  @Required()
  @IsString()
  @Length(1, 255)
  name: string;

  @ApiProperty({ enum: STATUSES, example: 'live', description: 'Must be live for its creative to be live' })
  @Required()
  @IsIn(STATUSES)
  status: Status;

  @ApiProperty({ example: '2026-03-01T00:00:00Z', description: "Should match the campaign's starts_at" })
  @Required()
  @IsDatetime()
  starts_at: string;

  @ApiProperty({ example: '2026-06-01T00:00:00Z', description: 'After starts_at' })
  @Required()
  @IsDatetime()
  ends_at: string;
}

export class UpdateCreativeGroupInput extends CreativeGroupOptions {
  @ApiPropertyOptional({ example: 'Gold' })
  @Optional()
  @IsString()
  @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ enum: STATUSES, example: 'paused' })
  @Optional()
  @IsIn(STATUSES)
  status?: Status;

  @ApiPropertyOptional({ example: '2026-03-01T00:00:00Z' })
  @Optional()
  @IsDatetime()
  starts_at?: string;

  @ApiPropertyOptional({ example: '2026-06-01T00:00:00Z', description: 'After starts_at (the stored one when absent)' })
  @Optional()
  @IsDatetime()
  ends_at?: string;
}

export class CreateCreativeGroupBody {
  @ApiProperty({ type: CreateCreativeGroupInput })
  @Required()
  @ValidateNested()
  @Type(() => CreateCreativeGroupInput)
  creative_group: CreateCreativeGroupInput;
}

export class UpdateCreativeGroupBody {
  @ApiProperty({ type: UpdateCreativeGroupInput, description: 'Partial: only the members sent change' })
  @Required()
  @ValidateNested()
  @Type(() => UpdateCreativeGroupInput)
  creative_group: UpdateCreativeGroupInput;
}

export class CreativeGroupView {
  @ApiProperty({ example: 5 }) id: number;
  @ApiProperty({ example: 3 }) line_item_id: number;
  @ApiProperty({ example: 'Gold' }) name: string;
  @ApiProperty({ example: 'Gold members', nullable: true, type: String }) display_name: string | null;
  @ApiProperty({ enum: STATUSES, example: 'live' }) status: Status;
  @ApiProperty({ example: '2026-03-01T00:00:00.000Z' }) starts_at: string;
  @ApiProperty({ example: '2026-06-01T00:00:00.000Z' }) ends_at: string;
  @ApiProperty({ example: TARGETING_EXAMPLE }) targeting: Criterion[];
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) updated_at: string;
  @ApiPropertyOptional({ example: '2026-01-06T10:00:00.000Z', description: 'Only on the answer of a delete' }) deleted_at?: string;
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
