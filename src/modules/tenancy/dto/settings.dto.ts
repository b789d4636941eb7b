import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';
import { RequiredObject } from '../../../common/validation/wrappers.js';
import { NestedObject, Optional } from '../../../common/validation/validators.js';
import { Type } from 'class-transformer';
import { TIER_POLICY_DESCRIPTION, TierPolicyInput, TierPolicyView } from './tier-policy.dto.js';

export const EXPIRE_AFTER_DAYS_DESCRIPTION =
  'Days after its event (the perform call for perform) that a credit expires; null: credits never expire. Fixed on each credit ' +
  'when it is earned: a change applies to credits earned from then on.';

export class SettingsInput {
  @ApiPropertyOptional({ example: 365, type: 'integer', minimum: 1, maximum: 36500, nullable: true, description: EXPIRE_AFTER_DAYS_DESCRIPTION })
  @ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)
  @IsInt()
  @Min(1)
  @Max(36500)
  points_expire_after_days?: number | null;

  @ApiPropertyOptional({ type: TierPolicyInput, description: TIER_POLICY_DESCRIPTION })
  @Optional()
  @Type(() => TierPolicyInput)
  @NestedObject()
  tier_policy?: TierPolicyInput;
}

export class SettingsBody {
  @RequiredObject(SettingsInput)
  settings: SettingsInput;
}

export class SettingsView {
  @ApiProperty({ example: 365, type: 'integer', nullable: true, description: EXPIRE_AFTER_DAYS_DESCRIPTION }) points_expire_after_days: number | null;
  @ApiProperty({ type: TierPolicyView, description: TIER_POLICY_DESCRIPTION }) tier_policy: TierPolicyView;
}

export class SettingsResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: SettingsView }) settings: SettingsView;
}
