import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsString, Length, Max, Min } from 'class-validator';
import { IsFlatObject, IsTimeZone, NestedObject, Optional, Required } from '../../../common/validation/validators.js';
import type { FlatObject } from '../../../database/entities/column-types.js';
import { NotificationView } from '../../events/dto/v1-event.dto.js';

const ATTRIBUTES_EXAMPLE = { plan: 'gold', age: 34, newsletter: true };

class UserProfileInput {
  @ApiPropertyOptional({ example: 'America/New_York', description: "IANA time zone; default the organization's" })
  @Optional()
  @IsTimeZone()
  time_zone?: string;

  @ApiPropertyOptional({ example: 7, type: 'integer', description: 'A division of the organization; default its root division' })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  division_id?: number;

  @ApiPropertyOptional({ example: ['vip'], type: [String] })
  @Optional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Length(1, 100, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ example: ATTRIBUTES_EXAMPLE, description: 'Flat: boolean, string, integer, decimal or datetime values' })
  @Optional()
  @IsFlatObject()
  attributes?: FlatObject;
}

export class CreateUserInput extends UserProfileInput {
  @ApiProperty({ example: 'c-1', description: 'Your id for the customer; unique in the organization' })
  @Required()
  @IsString()
  @Length(1, 255)
  external_id: string;
}

export class UpdateUserInput extends UserProfileInput {
  @ApiPropertyOptional({ example: 'c-1', description: 'Your id for the customer; unique in the organization' })
  @Optional()
  @IsString()
  @Length(1, 255)
  external_id?: string;
}

export class CreateUserBody {
  @ApiProperty({ type: CreateUserInput })
  @Required()
  @NestedObject()
  @Type(() => CreateUserInput)
  user: CreateUserInput;
}

export class UpdateUserBody {
  @ApiProperty({ type: UpdateUserInput })
  @Required()
  @NestedObject()
  @Type(() => UpdateUserInput)
  user: UpdateUserInput;
}

export class UserView {
  @ApiProperty({ example: '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a' }) id: string;
  @ApiProperty({ example: 'c-1' }) external_id: string;
  @ApiProperty({ example: 'America/New_York' }) time_zone: string;
  @ApiProperty({ example: 1, type: 'integer' }) division_id: number;
  @ApiProperty({ example: ['vip'], type: [String] }) tags: string[];
  @ApiProperty({ example: ATTRIBUTES_EXAMPLE }) attributes: FlatObject;
  @ApiProperty({ example: 0 }) available_points: number;
  @ApiProperty({ example: 0 }) lifetime_points: number;
  @ApiProperty({ example: null, nullable: true, type: String }) tier: string | null;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) updated_at: string;
}

export class UserResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: UserView }) user: UserView;
}

export class TimelineEntry {
  @ApiProperty({ example: '42' }) id: string;
  @ApiProperty({ example: 'store_visit' }) name: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) occurred_at: string;
  @ApiProperty({ example: 1, nullable: true, type: Number }) division_id: number | null;
  @ApiProperty({ example: 'processed', enum: ['pending', 'processed', 'rejected', 'failed', 'stored'] }) status: string;
  @ApiProperty({ example: null, nullable: true, type: String }) reason: string | null;
  @ApiProperty({ example: 5 }) points_earned: number;
  @ApiProperty({ example: 'v1', enum: ['v1', 'v1_async', 'v2', 'perform'] }) source: string;
  @ApiProperty({ example: 'c1f0b5b2-6a0e-4b7e-9d55-3a2f1c9e8d7a', nullable: true, type: String }) transaction_id: string | null;
  @ApiProperty({ type: [NotificationView], description: 'Notifications this event produced (triggered creatives)' }) notifications: NotificationView[];
}

export class NotificationsResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [NotificationView], description: 'Newest first' }) notifications: NotificationView[];
}

export class TimelineResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [TimelineEntry] }) events: TimelineEntry[];
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 10 }) limit: number;
  @ApiProperty({ example: 0 }) total: number;
}
