import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsString, Length, ValidateNested } from 'class-validator';
import type { Status } from '../../../../engine/index.js';
import { IsDatetime, Optional, Required } from '../../../../common/validation/validators.js';
import { STATUSES } from '../../dto/campaign.dto.js';

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
  @ApiProperty({ example: 'Main' })
  @Required()
  @IsString()
  @Length(1, 255)
  name: string;

  @ApiProperty({ example: '2026-03-01T00:00:00Z', description: "Should match the campaign's starts_at" })
  @Required()
  @IsDatetime()
  starts_at: string;

  @ApiProperty({ example: '2026-06-01T00:00:00Z', description: 'After starts_at' })
  @Required()
  @IsDatetime()
  ends_at: string;

  @ApiProperty({ enum: STATUSES, example: 'live', description: 'Must be live for its creatives to be live' })
  @Required()
  @IsIn(STATUSES)
  status: Status;
}

export class UpdateLineItemInput extends LineItemText {
  @ApiPropertyOptional({ example: 'Main' })
  @Optional()
  @IsString()
  @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ example: '2026-03-01T00:00:00Z' })
  @Optional()
  @IsDatetime()
  starts_at?: string;

  @ApiPropertyOptional({ example: '2026-06-01T00:00:00Z', description: 'After starts_at (the stored one when absent)' })
  @Optional()
  @IsDatetime()
  ends_at?: string;

  @ApiPropertyOptional({ enum: STATUSES, example: 'paused' })
  @Optional()
  @IsIn(STATUSES)
  status?: Status;
}

export class CreateLineItemBody {
  @ApiProperty({ type: CreateLineItemInput })
  @Required()
  @ValidateNested()
  @Type(() => CreateLineItemInput)
  line_item: CreateLineItemInput;
}

export class UpdateLineItemBody {
  @ApiProperty({ type: UpdateLineItemInput, description: 'Partial: only the members sent change' })
  @Required()
  @ValidateNested()
  @Type(() => UpdateLineItemInput)
  line_item: UpdateLineItemInput;
}

export class LineItemView {
  @ApiProperty({ example: 3 }) id: number;
  @ApiProperty({ example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'Main' }) name: string;
  @ApiProperty({ example: 'Spring visits: main container', nullable: true, type: String }) display_name: string | null;
  @ApiProperty({ example: 'Holds the creative groups of the spring campaign', nullable: true, type: String }) description: string | null;
  @ApiProperty({ enum: STATUSES, example: 'live' }) status: Status;
  @ApiProperty({ example: '2026-03-01T00:00:00.000Z' }) starts_at: string;
  @ApiProperty({ example: '2026-06-01T00:00:00.000Z' }) ends_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) updated_at: string;
  @ApiPropertyOptional({ example: '2026-01-06T10:00:00.000Z', description: 'Only on the answer of a delete' }) deleted_at?: string;
}

export class LineItemListResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [LineItemView] }) line_items: LineItemView[];
}

export class LineItemDeletedResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: LineItemView, description: 'The removed line item; its name ends with [DELETED AT <timestamp>]' }) line_item: LineItemView;
}
