import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsString, Length, Max, Min } from 'class-validator';
import { ApiTimestamp } from '../../../common/validation/schedule.dto.js';
import { IsFlatObject, IsTimeZone, Optional, Required } from '../../../common/validation/validators.js';
import type { FlatObject } from '../../../database/entities/column-types.js';
import { NotificationView } from './notification.dto.js';
import { RequiredObject } from '../../../common/validation/wrappers.js';
import { HoldsNames } from '../../../common/validation/request-input.js';

const ATTRIBUTES_EXAMPLE = { plan: 'gold', age: 34, newsletter: true };

/** Free-form customer data: any keys (1-100 characters), each a flat value. */
const ATTRIBUTES_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
  example: ATTRIBUTES_EXAMPLE,
};

const ATTRIBUTES_DESCRIPTION =
  'Free-form attributes of your choosing, used by targeting (`user.attributes.<key>`). Flat: keys of 1-100 characters, ' +
  'each value a boolean, string, integer, decimal or datetime string; nested objects, arrays and null are refused (400 validation).';

const EXTERNAL_ID_DESCRIPTION = "Your own id for the customer (1-255 characters), unique in the organization; a repeat is 400 validation";

class UserProfileInput {
  @ApiPropertyOptional({
    example: 'America/New_York',
    description: "IANA time zone name; the customer's calendar days and per-month caps use it. Default: the organization's time zone",
  })
  @Optional()
  @IsTimeZone()
  time_zone?: string;

  @ApiPropertyOptional({
    example: 1,
    type: 'integer',
    minimum: 1,
    description: 'A live division of the organization (GET .../management/divisions); default the root division. Another id is 400 validation',
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  division_id?: number;

  @ApiPropertyOptional({
    example: ['vip'],
    type: [String],
    maxItems: 200,
    description: 'Labels used by targeting (`user.tags`), 1-100 characters each, at most 200; repeats are dropped. A PUT replaces the whole list',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Length(1, 100, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ ...ATTRIBUTES_SCHEMA, description: `${ATTRIBUTES_DESCRIPTION} A PUT replaces the whole object` })
  @Optional()
  @IsFlatObject()
  attributes?: FlatObject;
}

export class CreateUserInput extends UserProfileInput {
  @ApiProperty({ example: 'c-1', minLength: 1, maxLength: 255, description: EXTERNAL_ID_DESCRIPTION })
  @Required()
  @IsString()
  @Length(1, 255)
  external_id: string;
}

export class UpdateUserInput extends UserProfileInput {
  @ApiPropertyOptional({ example: 'c-1', minLength: 1, maxLength: 255, description: EXTERNAL_ID_DESCRIPTION })
  @Optional()
  @IsString()
  @Length(1, 255)
  external_id?: string;
}

export class CreateUserBody {
  @RequiredObject(CreateUserInput)
  @HoldsNames('attributes')
  user: CreateUserInput;
}

export class UpdateUserBody {
  @RequiredObject(UpdateUserInput)
  @HoldsNames('attributes')
  user: UpdateUserInput;
}

export class ExperimentAssignmentView {
  @ApiProperty({ type: 'integer', example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'A', description: '"holdout", or a variant of the campaign\'s experiment' }) group: string;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-05T10:00:00.000Z', description: 'When the customer was assigned: the time of their first event the campaign reached' })
  assigned_at: string;
}

export class UserView {
  @ApiProperty({
    format: 'uuid',
    example: '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a',
    description: "The customer's user_id, assigned by the service",
  })
  id: string;
  @ApiProperty({ example: 'c-1', description: 'Your own id for the customer' }) external_id: string;
  @ApiProperty({ example: 'America/New_York', description: 'IANA time zone name' }) time_zone: string;
  @ApiProperty({ example: 1, type: 'integer', description: "The customer's division" }) division_id: number;
  @ApiProperty({ example: ['vip'], type: [String] }) tags: string[];
  @ApiProperty({ ...ATTRIBUTES_SCHEMA, description: ATTRIBUTES_DESCRIPTION }) attributes: FlatObject;
  @ApiProperty({ example: 0, type: 'integer', description: 'Points the customer can spend now' }) available_points: number;
  @ApiProperty({ example: 0, type: 'integer', description: 'Every point ever credited; tiers are earned on it' }) lifetime_points: number;
  @ApiProperty({
    example: null,
    nullable: true,
    type: String,
    description: 'Name of the highest tier the customer has reached, null for none; a deleted tier answers its name with " [DELETED AT <ISO>]"',
  })
  tier: string | null;
  @ApiProperty({ type: [ExperimentAssignmentView], description: "The campaigns' experiments the customer is assigned to (contract §20), once and for good" })
  experiments: ExperimentAssignmentView[];
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
}

export class UserResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: UserView }) user: UserView;
}

export class TimelineEntry {
  @ApiProperty({ example: '42', pattern: '^[0-9]+$', description: 'Event id: a 64-bit integer, sent as a string of digits' }) id: string;
  @ApiProperty({ example: 'store_visit', description: 'The event name' }) name: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    example: '2026-01-05T10:00:00.000Z',
    description: 'When the event happened',
  })
  occurred_at: string;
  @ApiProperty({
    example: 1,
    nullable: true,
    type: 'integer',
    description: "With multi-org on, the event's division (its context.division_id, default the root); null with multi-org off",
  })
  division_id: number | null;
  @ApiProperty({
    example: 'processed',
    enum: ['pending', 'processed', 'rejected', 'failed', 'stored'],
    description:
      'processed: evaluated; stored: saved but not processed (an opt-in campaign listened and the customer had not opted in); ' +
      'pending: queued (V2, async=true), not evaluated yet; failed: its processing failed (see reason); rejected: refused by the worker',
  })
  status: string;
  @ApiProperty({
    example: null,
    nullable: true,
    type: String,
    description:
      'Why it did not progress, null when it did: the campaign state (campaign_not_started, campaign_over, not_targeted_to_campaign, ' +
      'missing_prerequisites, events_not_qualified, reached_frequency_cap, reached_frequency_period_cap), no_listening_campaign, ' +
      'No_active_campaign_found, or the failure',
  })
  reason: string | null;
  @ApiProperty({ example: 5, type: 'integer', description: 'Points this event earned' }) points_earned: number;
  @ApiProperty({
    example: 'v1',
    enum: ['v1', 'v1_async', 'v2', 'perform'],
    description: 'How it came in: V1 (evaluated in the request), V1 with async=true, V2, or perform',
  })
  source: string;
  @ApiProperty({
    example: 'c1f0b5b2-6a0e-4b7e-9d55-3a2f1c9e8d7a',
    nullable: true,
    type: String,
    description: 'The transaction_id it was sent with, if any',
  })
  transaction_id: string | null;
  @ApiProperty({
    type: [NotificationView],
    description: 'Notifications this event produced (triggered creatives), in the order produced; mostly empty',
  })
  notifications: NotificationView[];
}

export class NotificationsResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [NotificationView], description: 'Newest first' }) notifications: NotificationView[];
}

export class TimelineResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [TimelineEntry], description: 'Newest first (by occurred_at, then id)' }) events: TimelineEntry[];
  @ApiProperty({ example: 1, type: 'integer' }) page: number;
  @ApiProperty({ example: 10, type: 'integer' }) limit: number;
  @ApiProperty({ example: 0, type: 'integer', description: "Every event of the customer, across pages" }) total: number;
}
