import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { HoldsNames } from '../../../common/validation/request-input.js';
import { IsDatetime, Optional } from '../../../common/validation/validators.js';
import { AD_TYPES } from '../../creatives/creative-types.js';
import { IsEventsMap } from '../events-body.js';
import { V1_EVENTS_SCHEMA } from './event-schemas.js';

/** The answers live in v1-answer.dto.ts; the type is re-exported for the callers that read it from here. */
export type { V1EventResponse } from './v1-answer.dto.js';

export class V1EventBody {
  @ApiProperty(V1_EVENTS_SCHEMA)
  @IsEventsMap()
  @HoldsNames()
  events?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: String,
    example: '2026-01-05T10:00:00Z',
    description: 'When the events happened: ISO 8601 (2026-01-05T10:00:00Z, 2026-01-05T10:00:00.000+02:00) or 2026-01-05 10:00:00 +0200; default now',
  })
  @Optional()
  @IsDatetime()
  date?: string;

  @ApiPropertyOptional({ example: false, description: 'Evaluate and answer as if processed, but store nothing' })
  @Optional()
  @IsBoolean()
  read_only?: boolean;

  @ApiPropertyOptional({
    example: false,
    description:
      'Opt in: true qualifies the customer for the opt-in campaigns (opt_in_required) the events reach, then processes the events ' +
      'as usual; without it an opt-in campaign the customer has not joined answers state events_not_qualified and takes no progress. ' +
      'Not the query parameter qualify=true, which only checks eligibility and writes nothing (with both, the check counts the ' +
      'customer as opted in, and still writes nothing).',
  })
  @Optional()
  @IsBoolean()
  qualify?: boolean;

  @ApiPropertyOptional({ example: '0b6d1f3c-8e55-4a57-a2a5-5d1f0a9c1e77', description: 'Idempotency key, unique per api key' })
  @Optional()
  @IsString()
  @Length(1, 255)
  transaction_id?: string;
}

export class V1EventQuery {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      'true: a dry eligibility check, not an opt-in. Answers {"status","qualified","state","notifications"}: the campaign state the ' +
      'events would meet, and when not qualified one qualification notification per campaign checked. Stores, processes and opts in ' +
      'nothing; goals are not evaluated. Wins over async, read_only and explain. Not the body member qualify, which opts the ' +
      'customer in and processes the events.',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  qualify?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      'true: validate, store the events, queue them for a worker and answer {"status":"ok"} at once (no progress in the answer; ' +
      'read it later with GET .../events). explain=true is then ignored: nothing is evaluated in the request, so there is nothing ' +
      'to explain. read_only: true in the body wins (evaluated in the request, nothing stored).',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  async?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      'true: the answer adds explanation, why each campaign, behavior and goal did or did not progress (also stored with the event). ' +
      'Only for an evaluation in the request: ignored with async=true (answered {"status":"ok"} before any evaluation) and with ' +
      'qualify=true (a check, not an evaluation).',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  explain?: string;
}

export class NotificationData {
  @ApiProperty({ enum: ['message', 'open_ad'], example: 'message', description: 'message for email, push and messaging creatives; open_ad for the others' })
  action_type: string;
  @ApiProperty({ example: 'https://example.com/reward', nullable: true, type: String, description: "The creative's url" }) url: string | null;
  @ApiProperty({ example: 'You earned a coffee!', nullable: true, type: String, description: "The creative's message" }) message: string | null;
  @ApiProperty({
    example: { coupon: 'COFFEE' },
    nullable: true,
    type: 'object',
    additionalProperties: true,
    description: "The creative's payload: free-form JSON of the campaign manager's choosing",
  })
  payload: Record<string, unknown> | null;
}

/** The members every notification has, whether stored or previewed. */
abstract class NotificationFields {
  @ApiProperty({ enum: AD_TYPES, example: 'push_message', description: "The creative's ad_type" }) type: string;
  @ApiProperty({ type: 'integer', example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'Visit three stores', description: 'The behavior whose completion triggered the creative' }) behavior_name: string;
  @ApiProperty({ type: NotificationData }) data: NotificationData;
}

/** A stored notification: a triggered creative's message for one completion (contract §11). */
export class NotificationView extends NotificationFields {
  @ApiProperty({ type: 'integer', example: 17, description: 'Notification id' }) id: number;
}

/** A notification of a synchronous V1 answer: stored, or only previewed with read_only. */
export class V1NotificationView extends NotificationFields {
  @ApiProperty({ type: 'integer', nullable: true, example: 17, description: 'Notification id; null with read_only: true, where nothing is stored' })
  id: number | null;
}
