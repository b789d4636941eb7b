import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Length, Max, Min, ValidateIf } from 'class-validator';
import { NestedObject, Optional, Required } from '../../../../common/validation/validators.js';

const MAX_POINTS = 2_147_483_647;

/** `description` may be null on purpose: that clears it. */
const NullableOptional = () => ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);

export class CreateOfferInput {
  @ApiProperty({ example: 'Free coffee', description: 'Unique per organization (case-insensitive)' })
  @Required()
  @IsString()
  @Length(1, 255)
  name: string;

  @ApiPropertyOptional({ example: 20, default: 0, type: 'integer', description: 'Points credited when the offer is awarded' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  points?: number;

  @ApiPropertyOptional({ example: 'One free coffee at any store', nullable: true, type: String })
  @NullableOptional()
  @IsString()
  @Length(0, 10_000)
  description?: string | null;
}

export class UpdateOfferInput {
  @ApiPropertyOptional({ example: 'Free coffee', description: 'Unique per organization (case-insensitive)' })
  @Optional()
  @IsString()
  @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ example: 20, type: 'integer' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  points?: number;

  @ApiPropertyOptional({ example: 'One free coffee at any store', nullable: true, type: String, description: 'null clears it' })
  @NullableOptional()
  @IsString()
  @Length(0, 10_000)
  description?: string | null;
}

export class CreateOfferBody {
  @ApiProperty({ type: CreateOfferInput })
  @Required()
  @NestedObject()
  @Type(() => CreateOfferInput)
  offer: CreateOfferInput;
}

export class UpdateOfferBody {
  @ApiProperty({ type: UpdateOfferInput, description: 'Partial: members left out keep their value' })
  @Required()
  @NestedObject()
  @Type(() => UpdateOfferInput)
  offer: UpdateOfferInput;
}

export class OfferView {
  @ApiProperty({ example: 12 }) id: number;
  @ApiProperty({ example: 'Free coffee' }) name: string;
  @ApiProperty({ example: 20 }) points: number;
  @ApiProperty({ example: 'One free coffee at any store', nullable: true, type: String }) description: string | null;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) updated_at: string;
  @ApiPropertyOptional({ example: null, nullable: true, type: String, description: 'Only on the answer of a delete' }) deleted_at?: string | null;
}

export class OfferResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: OfferView }) offer: OfferView;
}

export class OfferListResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [OfferView] }) offers: OfferView[];
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 10 }) limit: number;
  @ApiProperty({ example: 1 }) total: number;
}
