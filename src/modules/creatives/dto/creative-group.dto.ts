import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import type { Status } from '../../../engine/index.js';
import { IsCriteria } from '../../../common/validation/criteria.js';
import { HasNoPrototypeKeyFields } from '../../../common/validation/reserved-names.js';
import { Criterion } from '../../../common/validation/criterion.dto.js';
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
import { Optional } from '../../../common/validation/validators.js';
import { DATETIME_FORMS } from '../../campaigns/index.js';
import { RequiredObject } from '../../../common/validation/wrappers.js';

const TARGETING_EXAMPLE = [{ field: 'user.tier', op: 'eq', value: 'Gold' }];

/** Members optional on create and update. */
class CreativeGroupOptions {
  @ApiPropertyOptional({ example: 'Gold members' })
  @Optional()
  @IsString()
  @Length(0, 255)
  display_name?: string;

  @ApiPropertyOptional({
    type: [Criterion],
    maxItems: 50,
    example: TARGETING_EXAMPLE,
    description: "Criteria on the customer (contract §5), all of which must hold for the group's creative to reach them; default none",
  })
  @Optional()
  @IsCriteria('targeting')
  @HasNoPrototypeKeyFields()
  targeting?: Criterion[];
}

export class CreateCreativeGroupInput extends CreativeGroupOptions {
  @RequiredName({ example: 'Gold' })
  name: string;

  @RequiredStatus({ example: 'live', description: 'Must be live for its creative to be live' })
  status: Status;

  @RequiredDatetime({ example: '2026-03-01T00:00:00Z', description: `Should match the campaign's starts_at. ${DATETIME_FORMS}` })
  starts_at: string;

  @RequiredDatetime({ example: '2026-06-01T00:00:00Z', description: `After starts_at. ${DATETIME_FORMS}` })
  ends_at: string;
}

export class UpdateCreativeGroupInput extends CreativeGroupOptions {
  @OptionalName({ example: 'Gold' })
  name?: string;

  @OptionalStatus({ example: 'paused' })
  status?: Status;

  @OptionalDatetime({ example: '2026-03-01T00:00:00Z', description: DATETIME_FORMS })
  starts_at?: string;

  @OptionalDatetime({ example: '2026-06-01T00:00:00Z', description: `After starts_at (the stored one when absent). ${DATETIME_FORMS}` })
  ends_at?: string;
}

export class CreateCreativeGroupBody {
  @RequiredObject(CreateCreativeGroupInput)
  creative_group: CreateCreativeGroupInput;
}

export class UpdateCreativeGroupBody {
  @RequiredObject(UpdateCreativeGroupInput, 'Partial: only the members sent change')
  creative_group: UpdateCreativeGroupInput;
}

export class CreativeGroupView {
  @ApiProperty({ type: 'integer', example: 5 }) id: number;
  @ApiProperty({ type: 'integer', example: 3 }) line_item_id: number;
  @ApiProperty({ example: 'Gold', description: 'On the answer of a delete it ends with [DELETED AT <timestamp>]' }) name: string;
  @ApiProperty({ example: 'Gold members', nullable: true, type: String }) display_name: string | null;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ type: [Criterion], example: TARGETING_EXAMPLE, description: 'Empty when every customer of the campaign is targeted' })
  targeting: Criterion[];
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class CreativeGroupListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [CreativeGroupView], description: 'The group written or asked for, or the groups of the line item' })
  creative_groups: CreativeGroupView[];
}

export class CreativeGroupDeletedResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: CreativeGroupView, description: 'The removed group; its name ends with [DELETED AT <timestamp>]' })
  creative_group: CreativeGroupView;
}
