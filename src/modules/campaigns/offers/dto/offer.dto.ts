import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Length, Max, Min, ValidateIf } from 'class-validator';
import { ApiDeletedAt, ApiTimestamp } from '../../../../common/validation/schedule.dto.js';
import { Optional, Required } from '../../../../common/validation/validators.js';
import { RequiredObject } from '../../../../common/validation/wrappers.js';

const MAX_POINTS = 2_147_483_647;

/** `description` may be null on purpose: that clears it. */
const NullableOptional = () => ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);

export class CreateOfferInput {
  @ApiProperty({ example: 'Free coffee', description: 'Unique per organization (case-insensitive)' })
  @Required()
  @IsString()
  @Length(1, 255)
  name: string;

  @ApiPropertyOptional({ example: 20, default: 0, type: 'integer', minimum: 0, description: 'Points credited when the offer is awarded' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  points?: number;

  @ApiPropertyOptional({ example: 'One free coffee at any store', nullable: true, type: String, maxLength: 10_000 })
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

  @ApiPropertyOptional({ example: 20, type: 'integer', minimum: 0, description: 'Points credited when the offer is awarded' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_POINTS)
  points?: number;

  @ApiPropertyOptional({ example: 'One free coffee at any store', nullable: true, type: String, maxLength: 10_000, description: 'null clears it' })
  @NullableOptional()
  @IsString()
  @Length(0, 10_000)
  description?: string | null;
}

export class CreateOfferBody {
  @RequiredObject(CreateOfferInput)
  offer: CreateOfferInput;
}

export class UpdateOfferBody {
  @RequiredObject(UpdateOfferInput, 'Partial: members left out keep their value')
  offer: UpdateOfferInput;
}

export class OfferView {
  @ApiProperty({ type: 'integer', example: 12 }) id: number;
  @ApiProperty({ example: 'Free coffee', description: 'On the answer of a delete it ends with [DELETED AT <timestamp>]' }) name: string;
  @ApiProperty({ type: 'integer', example: 20 }) points: number;
  @ApiProperty({ example: 'One free coffee at any store', nullable: true, type: String }) description: string | null;
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class OfferResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: OfferView }) offer: OfferView;
}

export class OfferListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [OfferView], description: 'The page asked for, oldest first' }) offers: OfferView[];
  @ApiProperty({ type: 'integer', example: 1 }) page: number;
  @ApiProperty({ type: 'integer', example: 10 }) limit: number;
  @ApiProperty({ type: 'integer', example: 1, description: 'Offers of the organization that are not deleted, on all pages' }) total: number;
}
