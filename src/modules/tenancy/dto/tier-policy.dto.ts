import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min, ValidateIf, registerDecorator } from 'class-validator';
import type { StoredTierPolicy } from '../../../database/entities/tier-policy.js';
import { Required } from '../../../common/validation/validators.js';

export const TIER_POLICY_DESCRIPTION =
  'How tiers qualify. `lifetime` (the default): the highest tier whose min_points the lifetime points reach, never lowered. ' +
  '`period`: the points credited by events of each calendar period (1, 3, 6 or 12 months, in the organization\'s time zone) ' +
  'qualify; a customer moves up at once, and each period is reviewed `grace_days` after it ends (the tier is kept when the ' +
  "period's points reach its retain_points; else `one_level` moves down one tier, `to_qualified` to what the period qualified for). " +
  'A change never lowers a tier by itself before the first review after it.';

const underPeriod = (o: { basis?: unknown }, value: unknown) => o.basis === 'period' || value !== undefined;

/** A member only a `period` policy takes: present under another basis, it is `validation`. */
function PeriodOnly(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'periodOnly',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property applies only to basis period' },
      validator: { validate: (_value: unknown, args) => (args?.object as { basis?: unknown }).basis === 'period' },
    });
}

export class TierPolicyInput {
  @ApiProperty({ enum: ['lifetime', 'period'], example: 'period' })
  @Required()
  @IsIn(['lifetime', 'period'])
  basis: 'lifetime' | 'period';

  @ApiPropertyOptional({ enum: [1, 3, 6, 12], type: 'integer', example: 12, description: 'Months of a period (basis period, required): calendar years (12), halves, quarters or months' })
  @ValidateIf(underPeriod)
  @Required()
  @PeriodOnly()
  @IsIn([1, 3, 6, 12])
  period_months?: 1 | 3 | 6 | 12;

  @ApiPropertyOptional({ enum: ['one_level', 'to_qualified'], example: 'one_level', description: 'What a review does to a customer who did not keep their tier (basis period, required)' })
  @ValidateIf(underPeriod)
  @Required()
  @PeriodOnly()
  @IsIn(['one_level', 'to_qualified'])
  downgrade?: 'one_level' | 'to_qualified';

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 365, default: 0, example: 0, description: 'Days after a period ends that its review takes effect (basis period)' })
  @ValidateIf((_o: object, value: unknown) => value !== undefined)
  @PeriodOnly()
  @IsInt()
  @Min(0)
  @Max(365)
  grace_days?: number;
}

/** The policy as stored: `grace_days` filled in. */
export function storedTierPolicy(input: TierPolicyInput): StoredTierPolicy {
  return input.basis === 'period'
    ? { basis: 'period', period_months: input.period_months!, downgrade: input.downgrade!, grace_days: input.grace_days ?? 0 }
    : { basis: 'lifetime' };
}

export class TierPolicyView {
  @ApiProperty({ enum: ['lifetime', 'period'], example: 'period' }) basis: 'lifetime' | 'period';
  @ApiPropertyOptional({ enum: [1, 3, 6, 12], type: 'integer', example: 12, description: 'basis period only' }) period_months?: number;
  @ApiPropertyOptional({ enum: ['one_level', 'to_qualified'], example: 'one_level', description: 'basis period only' }) downgrade?: string;
  @ApiPropertyOptional({ type: 'integer', example: 0, description: 'basis period only' }) grace_days?: number;
}
