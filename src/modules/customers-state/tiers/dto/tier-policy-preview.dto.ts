import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { RequiredObject } from '../../../../common/validation/wrappers.js';
import { TIER_POLICY_DESCRIPTION, TierPolicyInput } from '../../../tenancy/index.js';

export class TierPolicyPreviewBody {
  @RequiredObject(TierPolicyInput, `The policy to preview, validated as the settings' tier_policy. ${TIER_POLICY_DESCRIPTION}`)
  tier_policy: TierPolicyInput;
}

/** Customers in one tier now and under the proposed policy. */
export class TierPreviewCounts {
  @ApiProperty({ example: 1200, type: 'integer', minimum: 0, description: 'Customers in the tier now, as reads answer it under the current policy' }) now: number;
  @ApiProperty({ example: 950, type: 'integer', minimum: 0, description: 'Customers the proposed policy would put in the tier now, had it always been in force' })
  under_policy: number;
}

export class TierPreviewMoves {
  @ApiProperty({ example: 40, type: 'integer', minimum: 0, description: 'Customers the proposed policy would put in a higher tier than their tier now' }) up: number;
  @ApiProperty({ example: 250, type: 'integer', minimum: 0, description: 'Customers it would put in a lower tier (or no tier)' }) down: number;
  @ApiProperty({ example: 1710, type: 'integer', minimum: 0, description: 'Customers it would leave in their tier (no tier included)' }) same: number;
}

export class TierPolicyPreviewResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-27T10:00:00.000Z', description: 'The time the tiers are computed as of (now)' }) as_of: string;
  @ApiProperty({ example: 2000, type: 'integer', minimum: 0, description: 'Customers of the organization: the sum of each column of tiers' }) customers: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(TierPreviewCounts) },
    example: { none: { now: 300, under_policy: 600 }, Silver: { now: 1200, under_policy: 950 }, Gold: { now: 500, under_policy: 450 } },
    description:
      'By tier name, every live tier of the organization and `none` (no tier), zeros included; a deleted tier some customers still ' +
      'have now (under lifetime, with its marked name) is added with its count',
  })
  tiers: Record<string, TierPreviewCounts>;
  @ApiProperty({ type: TierPreviewMoves, description: 'Each customer counted once, comparing the tiers by min_points' }) moves: TierPreviewMoves;
}
