import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { Optional, Required } from '../../../common/validation/validators.js';

export const PERFORM_SECTIONS = ['progress', 'behaviors', 'offers', 'redemptions'] as const;
export const PERFORM_FILTERS = ['eligible', 'ineligible', 'all'] as const;
export const PERFORM_PLACEMENTS = ['promotion', 'tile'] as const;
export type PerformSection = (typeof PERFORM_SECTIONS)[number];
export type PerformFilter = (typeof PERFORM_FILTERS)[number];
export type PerformPlacement = (typeof PERFORM_PLACEMENTS)[number];

export class PerformBody {
  @ApiProperty({ example: 'complete_campaign', description: 'The domain action; only complete_campaign exists (any other: 400 not_available)' })
  @Required()
  @IsString()
  domain: string;

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
  @ApiProperty({ example: 2 }) behaviors_total: number;
  @ApiProperty({ example: 2, description: 'Behaviors the customer has achieved at least once' }) behaviors_achieved: number;
  @ApiProperty({ example: 85, description: 'Points this perform credited' }) points_earned: number;
  @ApiProperty({ example: 85 }) available_points: number;
  @ApiProperty({ example: 85 }) lifetime_points: number;
  @ApiProperty({ example: 'Silver', nullable: true, type: String }) tier: string | null;
}

export class PerformOffer {
  @ApiProperty({ example: 31, description: 'The issued offer (customer offer) id' }) id: number;
  @ApiProperty({ example: 12 }) offer_id: number;
  @ApiProperty({ example: 'Free coffee' }) name: string;
  @ApiProperty({ example: 'One coffee, any size', nullable: true, type: String }) description: string | null;
  @ApiProperty({ example: 20 }) points: number;
  @ApiProperty({ example: 7 }) behavior_id: number;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) issued_at: string;
}

export class PerformCreative {
  @ApiProperty({ example: 40 }) id: number;
  @ApiProperty({ example: 'Explorer push' }) name: string;
  @ApiProperty({ example: 'live' }) status: string;
  @ApiProperty({ example: 'push_message' }) ad_type: string;
  @ApiProperty({ example: 'messaging-platform-push' }) creative_type: string;
  @ApiProperty({ example: 9 }) creative_group_id: number;
  @ApiProperty({ example: 'triggered' }) delivery_method: string;
  @ApiProperty({ example: 'You earned the explorer badge!', nullable: true, type: String }) message: string | null;
  @ApiProperty({ example: 'https://example.com/rewards', nullable: true, type: String }) url: string | null;
  @ApiProperty({ example: { screen: 'rewards' }, nullable: true, type: Object }) payload: Record<string, unknown> | null;
}

export class PerformCampaign {
  @ApiProperty({ example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'summer-explorer' }) campaign_permalink: string;
  @ApiProperty({ example: 'Summer explorer' }) name: string;
  @ApiProperty({ example: 'live' }) status: string;
  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' }) starts_at: string;
  @ApiProperty({ example: '2026-12-31T23:59:59.000Z' }) ends_at: string;
  @ApiProperty({ example: true, description: "The customer meets the campaign's targeting, division and prerequisites (opt-in counts as met)" })
  qualified: boolean;
  @ApiPropertyOptional({ type: PerformProgress, description: 'With sections[]=progress' }) progress?: PerformProgress;
  @ApiPropertyOptional({
    description: "With sections[]=behaviors: the campaign's behaviors with the customer's progress, each with name and eligible",
    example: [{ id: 7, name: 'Visit three stores', eligible: false, type: 'composite', achieved: 1, current_count: 0, total_count: 1 }],
    type: [Object],
  })
  behaviors?: Array<Record<string, unknown>>;
  @ApiPropertyOptional({ type: [PerformOffer], description: 'With sections[]=offers: offers this campaign has issued to the customer' }) offers?: PerformOffer[];
  @ApiPropertyOptional({ type: [Object], example: [], description: 'With sections[]=redemptions: always empty (the service has no offer redemption)' })
  redemptions?: unknown[];
  @ApiPropertyOptional({
    description: "With creatives[]=promotion|tile: placement → the campaign's active creatives",
    example: { promotion: [{ id: 40, name: 'Explorer push', status: 'live', ad_type: 'push_message' }] },
  })
  creatives?: Partial<Record<PerformPlacement, PerformCreative[]>>;
}

export class PerformResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: PerformCampaign }) campaign: PerformCampaign;
}
