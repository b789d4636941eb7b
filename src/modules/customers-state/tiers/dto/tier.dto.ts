import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { NestedObject, Optional, Required } from '../../../../common/validation/validators.js';

const MAX_POINTS = 2_147_483_647;
const NOT_BLANK = /\S/;
const BLANK_MESSAGE = '$property must not be blank';

export class CreateTierInput {
  @ApiProperty({ example: 'Gold', minLength: 1, maxLength: 100, description: 'Unique per organization, case-insensitively' })
  @Required()
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: BLANK_MESSAGE })
  name: string;

  @ApiProperty({ example: 500, type: 'integer', minimum: 0, description: 'Lifetime points that earn the tier; unique per organization' })
  @Required()
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  min_points: number;
}

export class UpdateTierInput {
  @ApiPropertyOptional({ example: 'Gold', minLength: 1, maxLength: 100, description: 'Unique per organization, case-insensitively' })
  @Optional()
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: BLANK_MESSAGE })
  name?: string;

  @ApiPropertyOptional({ example: 750, type: 'integer', minimum: 0, description: 'Unique per organization' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  min_points?: number;
}

export class CreateTierBody {
  @ApiProperty({ type: CreateTierInput })
  @Required()
  @NestedObject()
  @Type(() => CreateTierInput)
  tier: CreateTierInput;
}

export class UpdateTierBody {
  @ApiProperty({ type: UpdateTierInput, description: 'Partial: only the members sent change' })
  @Required()
  @NestedObject()
  @Type(() => UpdateTierInput)
  tier: UpdateTierInput;
}

export class TierView {
  @ApiProperty({ example: 3, type: 'integer' }) id: number;
  @ApiProperty({ example: 'Gold', description: 'A deleted tier answers with " [DELETED AT <ISO>]" appended' }) name: string;
  @ApiProperty({ example: 500, type: 'integer' }) min_points: number;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) updated_at: string;
  @ApiPropertyOptional({ example: '2026-02-01T09:30:00.000Z', type: String, description: 'Only in the answer to DELETE' }) deleted_at?: string;
}

export class TierResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: TierView }) tier: TierView;
}

export class TierListResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [TierView], description: 'Every tier of the organization, by min_points then id' }) tiers: TierView[];
}
