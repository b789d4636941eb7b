import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Length, Matches, Max, Min, ValidateIf } from 'class-validator';
import { ApiDeletedAt, ApiTimestamp } from '../../../../common/validation/schedule.dto.js';
import { Optional, Required } from '../../../../common/validation/validators.js';
import { RequiredObject } from '../../../../common/validation/wrappers.js';

const MAX_POINTS = 2_147_483_647;
const NOT_BLANK = /\S/;
const RETAIN = 'Qualifying points in a period that keep a customer on the tier at its review, under a period tier policy (contract §17); from 0 to min_points, default min_points';
const BLANK_MESSAGE = '$property must not be blank';

export class CreateTierInput {
  @ApiProperty({
    example: 'Gold',
    minLength: 1,
    maxLength: 100,
    description: 'Not blank; unique among the live tiers of the organization, case-insensitively',
  })
  @Required()
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: BLANK_MESSAGE })
  name: string;

  @ApiProperty({
    example: 500,
    type: 'integer',
    minimum: 0,
    maximum: MAX_POINTS,
    description: 'Lifetime points that earn the tier; unique among the live tiers of the organization',
  })
  @Required()
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  min_points: number;

  @ApiPropertyOptional({ example: 300, type: 'integer', minimum: 0, maximum: MAX_POINTS, nullable: true, description: RETAIN })
  @ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  retain_points?: number | null;
}

export class UpdateTierInput {
  @ApiPropertyOptional({
    example: 'Gold',
    minLength: 1,
    maxLength: 100,
    description: 'Not blank; unique among the live tiers of the organization, case-insensitively. Not changeable while a tier outcome names the tier',
  })
  @Optional()
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: BLANK_MESSAGE })
  name?: string;

  @ApiPropertyOptional({
    example: 750,
    type: 'integer',
    minimum: 0,
    maximum: MAX_POINTS,
    description: 'Lifetime points that earn the tier; unique among the live tiers of the organization',
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  min_points?: number;

  @ApiPropertyOptional({ example: 300, type: 'integer', minimum: 0, maximum: MAX_POINTS, nullable: true, description: `${RETAIN}; null sets it back to min_points` })
  @ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  retain_points?: number | null;
}

export class CreateTierBody {
  @RequiredObject(CreateTierInput)
  tier: CreateTierInput;
}

export class UpdateTierBody {
  @RequiredObject(UpdateTierInput, 'Partial: only the members sent change')
  tier: UpdateTierInput;
}

export class TierView {
  @ApiProperty({ example: 3, type: 'integer', description: 'Tier id' }) id: number;
  @ApiProperty({ example: 'Gold', description: 'A deleted tier answers with " [DELETED AT <ISO>]" appended' }) name: string;
  @ApiProperty({ example: 500, type: 'integer', description: 'Lifetime points that earn the tier' }) min_points: number;
  @ApiProperty({ example: 300, type: 'integer', description: RETAIN }) retain_points: number;
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class TierResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: TierView }) tier: TierView;
}

export class TierListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({
    type: [TierView],
    description: 'Every live tier of the organization, lowest first (by min_points, then id)',
  })
  tiers: TierView[];
}
