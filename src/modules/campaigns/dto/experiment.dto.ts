import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsString, Length, Max, Min, NotEquals, ValidateIf, ValidateNested } from 'class-validator';
import { NestedObject, Optional, Required } from '../../../common/validation/validators.js';

/** The experiment's limits (contract §20). */
export const MAX_HOLDOUT_PERCENT = 90;
export const MAX_VARIANTS = 5;
export const MAX_WEIGHT = 100;
export const DEFAULT_VARIANTS = [{ name: 'treatment', weight: 1 }];

export class ExperimentVariantInput {
  @ApiProperty({ example: 'A', minLength: 1, maxLength: 40, description: 'Unique in the experiment; not "holdout"' })
  @Required()
  @IsString()
  @Length(1, 40)
  @NotEquals('holdout', { message: '$property must not be "holdout": the holdout is its own group' })
  name: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_WEIGHT, default: 1, example: 1, description: "The variant's share of the customers not held out, relative to the others' weights" })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_WEIGHT)
  weight?: number;
}

export class ExperimentMetricInput {
  @ApiProperty({ example: 'purchase', minLength: 1, maxLength: 255, description: 'The event name whose instances measure the customers' })
  @Required()
  @IsString()
  @Length(1, 255)
  event: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'amount',
    description: "A numeric attribute of that event (looked up in attributes, then context) summed per customer; null or absent: each customer's count of such events",
  })
  @ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)
  @IsString()
  @Length(1, 255)
  attribute?: string | null;
}

export class ExperimentInput {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_HOLDOUT_PERCENT, example: 10, description: 'The share of customers the campaign ignores, in percent' })
  @Required()
  @IsInt()
  @Min(0)
  @Max(MAX_HOLDOUT_PERCENT)
  holdout_percent: number;

  @ApiPropertyOptional({
    type: [ExperimentVariantInput],
    minItems: 1,
    maxItems: MAX_VARIANTS,
    example: [
      { name: 'A', weight: 1 },
      { name: 'B', weight: 1 },
    ],
    description: 'Default one variant {"name":"treatment","weight":1}',
  })
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_VARIANTS)
  @ValidateNested({ each: true })
  @Type(() => ExperimentVariantInput)
  variants?: ExperimentVariantInput[];

  @ApiProperty({ type: ExperimentMetricInput })
  @Required()
  @NestedObject()
  @Type(() => ExperimentMetricInput)
  metric: ExperimentMetricInput;
}

export class ExperimentVariantView {
  @ApiProperty({ example: 'A' }) name: string;
  @ApiProperty({ type: 'integer', example: 1 }) weight: number;
}

export class ExperimentMetricView {
  @ApiProperty({ example: 'purchase' }) event: string;
  @ApiProperty({ type: String, nullable: true, example: 'amount' }) attribute: string | null;
}

/**
 * The experiment as campaign answers show it, inline (OpenAPI 3.0 cannot make a referenced schema nullable): the
 * settings, when it started, ended, and the winner.
 */
export const EXPERIMENT_VIEW_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  required: ['holdout_percent', 'variants', 'metric', 'started_at', 'ended_at', 'winner'],
  properties: {
    holdout_percent: { type: 'integer', example: 10 },
    variants: {
      type: 'array',
      items: { type: 'object', required: ['name', 'weight'], properties: { name: { type: 'string', example: 'A' }, weight: { type: 'integer', example: 1 } } },
    },
    metric: {
      type: 'object',
      required: ['event', 'attribute'],
      properties: { event: { type: 'string', example: 'purchase' }, attribute: { type: 'string', nullable: true, example: 'amount' } },
    },
    started_at: { type: 'string', format: 'date-time', nullable: true, example: '2026-03-01T09:30:00.000Z', description: 'The first assignment; from then holdout_percent and variants can no longer change' },
    ended_at: { type: 'string', format: 'date-time', nullable: true, example: null, description: 'When it was ended (POST .../experiment/end)' },
    winner: { type: 'string', nullable: true, example: null, description: 'The variant everyone is evaluated as since the end' },
  },
};

export class ExperimentView {
  @ApiProperty({ type: 'integer', example: 10 }) holdout_percent: number;
  @ApiProperty({ type: [ExperimentVariantView] }) variants: ExperimentVariantView[];
  @ApiProperty({ type: ExperimentMetricView }) metric: ExperimentMetricView;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-03-01T09:30:00.000Z',
    description: 'The first assignment; from then holdout_percent and variants can no longer change',
  })
  started_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'When it was ended (POST .../experiment/end)' }) ended_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'The variant everyone is evaluated as since the end' }) winner: string | null;
}
