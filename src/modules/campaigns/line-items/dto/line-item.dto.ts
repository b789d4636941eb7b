import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import type { Status } from '../../../../engine/index.js';
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
} from '../../../../common/validation/schedule.dto.js';
import { Optional } from '../../../../common/validation/validators.js';
import { DATETIME_FORMS } from '../../dto/campaign.dto.js';
import { RequiredObject } from '../../../../common/validation/wrappers.js';

/** Descriptive members, optional on create and update. */
class LineItemText {
  @ApiPropertyOptional({ example: 'Spring visits: main container' })
  @Optional()
  @IsString()
  @Length(0, 255)
  display_name?: string;

  @ApiPropertyOptional({ example: 'Holds the creative groups of the spring campaign' })
  @Optional()
  @IsString()
  @Length(0, 2000)
  description?: string;
}

export class CreateLineItemInput extends LineItemText {
  @RequiredName({ example: 'Main' })
  name: string;

  @RequiredDatetime({ example: '2026-03-01T00:00:00Z', description: `Should match the campaign's starts_at. ${DATETIME_FORMS}` })
  starts_at: string;

  @RequiredDatetime({ example: '2026-06-01T00:00:00Z', description: `After starts_at. ${DATETIME_FORMS}` })
  ends_at: string;

  @RequiredStatus({ example: 'live', description: 'Must be live for its creatives to be live' })
  status: Status;
}

export class UpdateLineItemInput extends LineItemText {
  @OptionalName({ example: 'Main' })
  name?: string;

  @OptionalDatetime({ example: '2026-03-01T00:00:00Z', description: DATETIME_FORMS })
  starts_at?: string;

  @OptionalDatetime({ example: '2026-06-01T00:00:00Z', description: `After starts_at (the stored one when absent). ${DATETIME_FORMS}` })
  ends_at?: string;

  @OptionalStatus({ example: 'paused' })
  status?: Status;
}

export class CreateLineItemBody {
  @RequiredObject(CreateLineItemInput)
  line_item: CreateLineItemInput;
}

export class UpdateLineItemBody {
  @RequiredObject(UpdateLineItemInput, 'Partial: only the members sent change')
  line_item: UpdateLineItemInput;
}

export class LineItemView {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ type: 'integer', example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'Main', description: 'On the answer of a delete it ends with [DELETED AT <timestamp>]' }) name: string;
  @ApiProperty({ example: 'Spring visits: main container', nullable: true, type: String }) display_name: string | null;
  @ApiProperty({ example: 'Holds the creative groups of the spring campaign', nullable: true, type: String }) description: string | null;
  @ApiStatus() status: Status;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class LineItemListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [LineItemView], description: 'The line item written or asked for, or the line items of the campaign' })
  line_items: LineItemView[];
}

export class LineItemDeletedResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: LineItemView, description: 'The removed line item; its name ends with [DELETED AT <timestamp>]' }) line_item: LineItemView;
}
