import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, Length } from 'class-validator';
import type { BehaviorView, EventExplanation } from '../../../engine/index.js';
import { IsDatetime, Optional } from '../../../common/validation/validators.js';
import { IsEventsMap } from '../events-body.js';

const EVENTS_EXAMPLE = { store_visit: { store_id: 's-12', context: { app_name: 'mobile', division_id: '3' } }, app_open: 1 };

export class V1EventBody {
  @ApiProperty({
    example: EVENTS_EXAMPLE,
    description:
      'Event name → an integer count; or an object (attributes, optional `context` and `occurred_on` YYYY-MM-DD); ' +
      'or an array of such objects. Context values are flat: boolean, string, integer, decimal or datetime.',
  })
  @IsEventsMap()
  events?: Record<string, unknown>;

  @ApiPropertyOptional({ example: '2026-01-05T10:00:00Z', description: 'When the events happened; default now' })
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
  @ApiProperty({ example: 'message' }) action_type: string;
  @ApiProperty({ example: 'https://example.com/reward', nullable: true, type: String }) url: string | null;
  @ApiProperty({ example: 'You earned a coffee!', nullable: true, type: String }) message: string | null;
  @ApiProperty({ example: { coupon: 'COFFEE' }, nullable: true, type: Object }) payload: Record<string, unknown> | null;
}

export class NotificationView {
  @ApiProperty({ example: 17 }) id: number;
  @ApiProperty({ example: 'push_message' }) type: string;
  @ApiProperty({ example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'Visit three stores' }) behavior_name: string;
  @ApiProperty({ type: NotificationData }) data: NotificationData;
}

export class UserSummary {
  @ApiProperty({ example: 55 }) available_points: number;
  @ApiProperty({ example: 'Gold', nullable: true, type: String }) tier: string | null;
}

export class V1EventResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiPropertyOptional({ example: 55, description: 'Deprecated: use user.available_points' }) available_points?: number;
  @ApiProperty({ type: [NotificationView] }) notifications: NotificationView[];
  @ApiPropertyOptional({ type: UserSummary }) user?: UserSummary;
  @ApiPropertyOptional({
    description:
      'Behavior name → composite behavior with goals, groups and the deltas of this request (as in deltas, plus data and pivot_count ' +
      'listing new unique pivots); after a completion its goals show the next cycle (completed false, current_count 0) and its ' +
      'deltas achieved 1 and reset true',
    example: { 'Visit three stores': { type: 'composite', achieved: 1, current_count: 0, total_count: 1, deltas: { current_count: 0, achieved: 1, reset: true } } },
  })
  behaviors?: Record<string, BehaviorView & { deltas: Record<string, unknown> }>;
  @ApiPropertyOptional({
    example: { 'Visit three stores': { current_count: 0, achieved: 1, reset: true }, 'Daily check-in': { current_count: 1, achieved: 0 } },
    description:
      'Behavior name → what this request changed, for the behaviors of qualified campaigns it evaluated: current_count (change of ' +
      'the goals completed in the cycle), achieved (completions in this request) and reset: true when the goal progress started ' +
      'again from 0 in this request (after a completion, the next cycle begins; or with use_same_period, progress of an earlier ' +
      'period dropped). So after a completion the goals answer completed false and current_count 0 with achieved 1 and reset true ' +
      'here: that is the next cycle, not lost progress. reset is absent when nothing was reset.',
  })
  deltas?: Record<string, unknown>;
  @ApiProperty({ example: true }) qualified: boolean;
  @ApiProperty({ example: 'qualified' }) state: string;
  @ApiPropertyOptional({ description: 'With explain=true: why each campaign, behavior and goal did or did not progress', type: [Object] })
  explanation?: EventExplanation[];
}

export class RetrievalQuery {
  @ApiPropertyOptional({ example: '1,2', description: 'Multi-org: division ids (comma-separated, or division_ids[]=1&division_ids[]=2)' })
  @IsOptional()
  division_ids?: string | string[];
}

export class RetrievalResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ example: 55 }) available_points: number;
  @ApiProperty({
    example: {
      'Visit three stores': {
        event_name: 'store_visit',
        type: 'composite',
        max_times_repeatable: 4,
        max_times_repeatable_per_period: 1,
        min_time_between_events: null,
        consecutive: false,
        achieved: 1,
        current_count: 0,
        total_count: 1,
        goals: {},
      },
    },
  })
  behaviors: Record<string, unknown>;
}
