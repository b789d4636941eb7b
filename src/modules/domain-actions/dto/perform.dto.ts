import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Length } from 'class-validator';
import { ApiEndsAt, ApiStartsAt, ApiStatus } from '../../../common/validation/schedule.dto.js';
import { Optional, Required } from '../../../common/validation/validators.js';
import { AD_TYPES, CREATIVE_TYPES, DELIVERY_METHODS } from '../../creatives/index.js';
import { BehaviorProgressView } from '../../events/index.js';

export const PERFORM_SECTIONS = ['progress', 'behaviors', 'offers', 'redemptions'] as const;
export const PERFORM_FILTERS = ['eligible', 'ineligible', 'all'] as const;
export const PERFORM_PLACEMENTS = ['promotion', 'tile'] as const;
export type PerformSection = (typeof PERFORM_SECTIONS)[number];
export type PerformFilter = (typeof PERFORM_FILTERS)[number];
export type PerformPlacement = (typeof PERFORM_PLACEMENTS)[number];

export class PerformBody {
  @ApiProperty({
    example: 'complete_campaign',
    description: 'The domain action: the built-in complete_campaign, or one an extension registers (GET .../management/extensions lists them; any other: 400 not_available)',
  })
  @Required()
  @IsString()
  domain: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: {},
    description: "The domain action's arguments, checked against its schema (a wrong member: 400 validation under args.<member>); complete_campaign takes none",
  })
  @Optional()
  @IsObject()
  args?: Record<string, unknown>;

  @ApiPropertyOptional({
    example: '0b6d1f3c-8e55-4a57-a2a5-5d1f0a9c1e77',
    minLength: 1,
    maxLength: 255,
    description:
      'Idempotency key, unique per api key and shared with V1 events: a repeat under the same api key answers 409 ' +
      'duplicate_transaction ("transaction_id <id> has already been processed") and stores nothing. A perform that ' +
      'failed stored nothing, so its transaction_id can be used again.',
  })
  @Optional()
  @IsString()
  @Length(1, 255)
  transaction_id?: string;
}

/** Query strings: `sections[]=progress&sections[]=offers` (or `sections=progress,offers`); unknown values are 400 validation. */
export class PerformQuery {
  @ApiPropertyOptional({ name: 'sections[]', enum: PERFORM_SECTIONS, isArray: true, description: 'Sections added to the campaign' })
  @IsOptional()
  sections?: string | string[];

  @ApiPropertyOptional({ name: 'filters[]', enum: PERFORM_FILTERS, isArray: true, description: 'Which behaviors the behaviors section lists (default all)' })
  @IsOptional()
  filters?: string | string[];

  @ApiPropertyOptional({
    name: 'creatives[]',
    enum: [...PERFORM_PLACEMENTS, ''],
    isArray: true,
    description: "Adds the campaign's active creatives for each placement; a blank value removes the creatives section",
  })
  @IsOptional()
  creatives?: string | string[];
}

export class PerformProgress {
  @ApiProperty({ example: true, description: 'The campaign is completed for the customer' }) completed: boolean;
  @ApiProperty({ type: 'integer', example: 2, description: "The campaign's behaviors" }) behaviors_total: number;
  @ApiProperty({ type: 'integer', example: 2, description: 'Behaviors the customer has achieved at least once' }) behaviors_achieved: number;
  @ApiProperty({ type: 'integer', example: 85, description: 'Points this perform credited' }) points_earned: number;
  @ApiProperty({ type: 'integer', example: 85, description: "The customer's balance after the perform" }) available_points: number;
  @ApiProperty({ type: 'integer', example: 85 }) lifetime_points: number;
  @ApiProperty({ example: 'Silver', nullable: true, type: String, description: "The customer's tier name after the perform; null when none" }) tier: string | null;
}

export class PerformOffer {
  @ApiProperty({ type: 'integer', example: 31, description: 'The issue (customer offer) id' }) id: number;
  @ApiProperty({ type: 'integer', example: 12, description: 'The offer id' }) offer_id: number;
  @ApiProperty({ example: 'Free coffee' }) name: string;
  @ApiProperty({ example: 'One coffee, any size', nullable: true, type: String }) description: string | null;
  @ApiProperty({ type: 'integer', example: 20, description: 'Points the offer credited' }) points: number;
  @ApiProperty({ type: 'integer', example: 7, description: 'The behavior whose completion issued it' }) behavior_id: number;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-05T10:00:00.000Z' }) issued_at: string;
}

export class PerformCreative {
  @ApiProperty({ type: 'integer', example: 40 }) id: number;
  @ApiProperty({ example: 'Explorer push' }) name: string;
  @ApiProperty({ enum: ['live'], example: 'live', description: 'Always live: only active creatives are listed' }) status: string;
  @ApiProperty({ enum: AD_TYPES, example: 'push_message' }) ad_type: string;
  @ApiProperty({ enum: CREATIVE_TYPES, example: 'messaging-platform-push' }) creative_type: string;
  @ApiProperty({ type: 'integer', example: 9 }) creative_group_id: number;
  @ApiProperty({ enum: DELIVERY_METHODS, nullable: true, example: 'triggered', description: 'null when the creative has no delivery configured' })
  delivery_method: string | null;
  @ApiProperty({ example: 'You earned the explorer badge!', nullable: true, type: String }) message: string | null;
  @ApiProperty({ example: 'https://example.com/rewards', nullable: true, type: String }) url: string | null;
  @ApiProperty({ example: { screen: 'rewards' }, nullable: true, type: 'object', additionalProperties: true, description: 'Free-form JSON' })
  payload: Record<string, unknown> | null;
}

/** The creatives section: placement → the campaign's active creatives (the same list under each placement asked for). */
export class PerformCreatives {
  @ApiPropertyOptional({ type: [PerformCreative], description: 'With creatives[]=promotion' }) promotion?: PerformCreative[];
  @ApiPropertyOptional({ type: [PerformCreative], description: 'With creatives[]=tile' }) tile?: PerformCreative[];
}

/** A behavior of the behaviors section: the V1/retrieval composite view plus its name and eligibility. */
export class PerformBehaviorView extends BehaviorProgressView {
  @ApiProperty({ example: 'Visit three stores' }) name: string;
  @ApiProperty({ example: false, description: 'The behavior can still take progress now (no cap reached)' }) eligible: boolean;
}

export class PerformCampaign {
  @ApiProperty({ type: 'integer', example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'summer-explorer' }) campaign_permalink: string;
  @ApiProperty({ example: 'Summer explorer' }) name: string;
  @ApiStatus() status: string;
  @ApiStartsAt() starts_at: string;
  @ApiEndsAt() ends_at: string;
  @ApiProperty({ example: true, description: "The customer meets the campaign's targeting, division and prerequisites (opt-in counts as met)" })
  qualified: boolean;
  @ApiPropertyOptional({ type: PerformProgress, description: 'With sections[]=progress' }) progress?: PerformProgress;
  @ApiPropertyOptional({
    type: [PerformBehaviorView],
    description: "With sections[]=behaviors: the campaign's behaviors (in its order) with the customer's progress after the perform, as filters[] selects",
  })
  behaviors?: PerformBehaviorView[];
  @ApiPropertyOptional({ type: [PerformOffer], description: 'With sections[]=offers: offers this campaign has issued to the customer, oldest first' })
  offers?: PerformOffer[];
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object' },
    maxItems: 0,
    example: [],
    description: 'With sections[]=redemptions: always empty (the service has no offer redemption)',
  })
  redemptions?: never[];
  @ApiPropertyOptional({ type: PerformCreatives, description: "With creatives[]=promotion|tile: placement → the campaign's active creatives" })
  creatives?: PerformCreatives;
}

export class PerformResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: PerformCampaign }) campaign: PerformCampaign;
}
