import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

/** A nullable object, inline: OpenAPI 3.0 cannot make a referenced schema nullable. */
const nullableObject = (properties: Record<string, object>, example: object | null, description: string): ApiPropertyOptions => ({
  type: 'object',
  nullable: true,
  required: Object.keys(properties),
  properties,
  example,
  description,
});
const TIER_REF = { id: { type: 'integer', example: 2 }, name: { type: 'string', example: 'Gold' } };
const TIME = { type: 'string', format: 'date-time' };

export interface TierRef {
  id: number;
  name: string;
}

/** A customer's tier standing (contract §17). */
export class TierStandingView {
  @ApiProperty(nullableObject(TIER_REF, { id: 2, name: 'Gold' }, 'The tier now; null when the customer has none')) tier: TierRef | null;
  @ApiProperty({ enum: ['lifetime', 'period'], example: 'lifetime', description: "The organization's tier policy" }) basis: 'lifetime' | 'period';
  @ApiProperty(nullableObject({ starts_at: TIME, ends_at: TIME }, null, 'The running qualification period; null under lifetime'))
  period: { starts_at: string; ends_at: string } | null;
  @ApiProperty({ type: 'integer', example: 650, description: "The running period's qualifying points; lifetime_points under lifetime" }) qualifying_points: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 500, description: "The points that keep the tier at a review (the tier's retain_points); null without a tier" })
  retain_points: number | null;
  @ApiProperty(
    nullableObject(
      { ...TIER_REF, min_points: { type: 'integer', example: 1000 }, points_needed: { type: 'integer', example: 350, description: 'Qualifying points still needed to reach it' } },
      { id: 3, name: 'Platinum', min_points: 1000, points_needed: 350 },
      'The next tier up; null at the top',
    ),
  )
  next_tier: (TierRef & { min_points: number; points_needed: number }) | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'When the next review takes effect; null under lifetime' }) review_at: string | null;
  @ApiProperty(nullableObject(TIER_REF, null, 'The tier that review would give with the points so far; null under lifetime')) tier_after_review: TierRef | null;
}

/** The standing's members beside `status`, as contract §17 gives them: `tier` is the tier itself. */
export class TierStandingResponse extends TierStandingView {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
}

/** One move of a customer's tier (contract §17). */
export class TierHistoryEntry {
  @ApiProperty(nullableObject(TIER_REF, { id: 2, name: 'Gold' }, 'The tier before; null when the customer had none')) from: TierRef | null;
  @ApiProperty(nullableObject(TIER_REF, { id: 1, name: 'Silver' }, 'The tier after; null when the customer has none')) to: TierRef | null;
  @ApiProperty({
    enum: ['points', 'outcome', 'review', 'policy', 'tier_deleted'],
    example: 'review',
    description:
      "Why: `points` (qualifying points reached it, or reversed credits no longer do), `outcome` (a tier outcome), `review` (a period's " +
      'review), `policy` (a policy change), `tier_deleted` (the tier no longer exists)',
  })
  reason: 'points' | 'outcome' | 'review' | 'policy' | 'tier_deleted';
  @ApiProperty({ type: String, format: 'date-time', example: '2027-01-01T05:00:00.000Z', description: "When it took effect: a review's time, else when it was decided" }) at: string;
}

export class TierHistoryResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [TierHistoryEntry], description: 'Newest first (by at, then the order written)' }) history: TierHistoryEntry[];
  @ApiProperty({ example: 1, type: 'integer' }) page: number;
  @ApiProperty({ example: 10, type: 'integer' }) limit: number;
  @ApiProperty({ example: 1, type: 'integer', description: 'Every move of the customer, across pages' }) total: number;
}
