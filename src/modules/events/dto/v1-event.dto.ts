import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { HoldsNames } from '../../../common/validation/request-input.js';
import { IsDatetime, Optional } from '../../../common/validation/validators.js';
import { IsEventsMap } from '../events-body.js';
import { V1_EVENTS_SCHEMA } from './event-schemas.js';

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
