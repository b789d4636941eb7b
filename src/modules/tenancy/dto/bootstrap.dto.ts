import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsString, Length, Max, Min, ValidateIf } from 'class-validator';
import { EXPIRE_AFTER_DAYS_DESCRIPTION } from './settings.dto.js';
import { IsTimeZone, NestedObject, Optional, Required } from '../../../common/validation/validators.js';
import { TIER_POLICY_DESCRIPTION, TierPolicyInput, TierPolicyView } from './tier-policy.dto.js';
import { Type } from 'class-transformer';
import { RequiredObject } from '../../../common/validation/wrappers.js';

export class OrganizationInput {
  @ApiProperty({ example: 'Acme', minLength: 1, maxLength: 200 })
  @Required()
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiPropertyOptional({ example: false, default: false, description: 'true: divisions scope campaigns, events and retrieval (multi-org)' })
  @Optional()
  @IsBoolean()
  multi_org_enabled?: boolean;

  @ApiPropertyOptional({ example: 'UTC', default: 'UTC', description: 'IANA time zone; the default for its customers' })
  @Optional()
  @IsTimeZone()
  time_zone?: string;

  @ApiPropertyOptional({ example: 365, type: 'integer', minimum: 1, maximum: 36500, nullable: true, default: null, description: EXPIRE_AFTER_DAYS_DESCRIPTION })
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

export class ApplicationInput {
  @ApiProperty({ example: 'Web', minLength: 1, maxLength: 200, description: 'A name for the application (a channel, a client)' })
  @Required()
  @IsString()
  @Length(1, 200)
  name: string;
}

export class CreateOrganizationBody {
  @RequiredObject(OrganizationInput)
  organization: OrganizationInput;

  @RequiredObject(ApplicationInput)
  application: ApplicationInput;
}

export class CreateApplicationBody {
  @RequiredObject(ApplicationInput)
  application: ApplicationInput;
}

export class OrganizationView {
  @ApiProperty({ example: 1, type: 'integer', description: 'Organization id' }) id: number;
  @ApiProperty({ example: 'Acme' }) name: string;
  @ApiProperty({ example: false, description: 'Whether divisions scope campaigns and events (multi-org)' }) multi_org_enabled: boolean;
  @ApiProperty({ example: 'UTC', description: 'IANA time zone name: the default of its customers' }) time_zone: string;
  @ApiProperty({ example: null, type: 'integer', nullable: true, description: EXPIRE_AFTER_DAYS_DESCRIPTION }) points_expire_after_days: number | null;
  @ApiProperty({ type: TierPolicyView, description: TIER_POLICY_DESCRIPTION }) tier_policy: TierPolicyView;
  @ApiProperty({
    example: 1,
    type: 'integer',
    description: 'The root division, created with the organization (parent of the first divisions)',
  })
  root_division_id: number;
}

export class ApplicationView {
  @ApiProperty({ example: 1, type: 'integer', description: 'Application id' }) id: number;
  @ApiProperty({ example: 'Web' }) name: string;
}

export class CredentialsResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: ApplicationView }) application: ApplicationView;
  @ApiProperty({
    example: '3f9c2a7e5b1d4c8e9a0b6d2f4e1c7a5b',
    pattern: '^[0-9a-f]{32}$',
    description: 'The api key of the application: the :api_key of /priv paths and the user of their HTTP Basic credentials',
  })
  api_key: string;
  @ApiProperty({
    example: 'C4hu8Hvh80T8Fim5TX23k5d2xSS0xtJ_pbUhA1l18NA',
    description: 'The password of the HTTP Basic credentials. Shown only in this answer: only a hash of it is stored',
  })
  api_secret: string;
}

export class BootstrapResponse extends CredentialsResponse {
  @ApiProperty({ type: OrganizationView }) organization: OrganizationView;
}

export class StatusOk {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
}
