import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { Required } from '../../../common/validation/validators.js';
import { ExperimentView } from '../../campaigns/index.js';

const NUMBER_OR_NULL = { type: 'number', nullable: true } as const;

export class GroupResultView {
  @ApiProperty({ example: 'A', description: '"holdout", or a variant' }) name: string;
  @ApiProperty({ type: 'integer', example: 1000, description: 'Customers assigned to the group' }) customers: number;
  @ApiProperty({ type: 'integer', example: 120, description: 'Customers with at least one metric event at or after their assignment (and before ended_at)' })
  converted: number;
  @ApiProperty({ ...NUMBER_OR_NULL, example: 0.12, description: 'converted / customers (null without customers)' }) conversion_rate: number | null;
  @ApiProperty({ type: 'number', example: 4321.5, description: 'Σx: each customer x, the metric summed over their metric events' }) metric_sum: number;
  @ApiProperty({ ...NUMBER_OR_NULL, example: 4.3215, description: 'Σx / customers (non-converters count 0)' }) metric_mean: number | null;
  @ApiProperty({ ...NUMBER_OR_NULL, example: 310.2, description: 'The sample variance of x (n − 1; null below 2 customers)' }) metric_variance: number | null;
  @ApiProperty({ type: 'integer', example: 80, description: "The campaign's completions by the group's customers" }) achievements: number;
  @ApiProperty({ type: 'integer', example: 4000, description: 'Points the campaign credited them' }) points_credited: number;
}

export class StatView {
  @ApiProperty({ ...NUMBER_OR_NULL, example: 0.02, description: 'The group minus the one it is compared against' }) absolute: number | null;
  @ApiProperty({ ...NUMBER_OR_NULL, example: 0.2, description: 'absolute / the compared group (null when that is 0)' }) relative: number | null;
  @ApiProperty({ type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, nullable: true, example: [0.001, 0.039], description: 'The 95% confidence interval of absolute' })
  ci95: [number, number] | null;
  @ApiProperty({ ...NUMBER_OR_NULL, example: 0.04, description: 'Two-sided, normal approximation' }) p_value: number | null;
}

export class ComparisonView {
  @ApiProperty({ example: 'A' }) group: string;
  @ApiProperty({ example: 'holdout', description: 'The holdout; with holdout_percent 0, the first variant' }) against: string;
  @ApiProperty({ type: StatView, description: 'Of conversion rates (z-test of two proportions, pooled for the p-value)' }) conversion: StatView;
  @ApiProperty({ type: StatView, description: "Of the metric's means (Welch's standard error, normal p-value)" }) mean: StatView;
}

export class SampleRatioView {
  @ApiProperty({ ...NUMBER_OR_NULL, example: 0.81, description: "Pearson's chi-square of the groups' customers against the shares the settings give" }) chi_square: number | null;
  @ApiProperty({ ...NUMBER_OR_NULL, example: 0.67, description: 'Its p-value (groups − 1 degrees of freedom)' }) p_value: number | null;
  @ApiProperty({ example: false, description: 'p_value below 0.001: the assignment does not follow the settings; distrust the comparisons' }) mismatch: boolean;
}

export class ExperimentResultsView extends ExperimentView {
  @ApiProperty({ type: [GroupResultView], description: 'holdout first, then the variants in order' }) groups: GroupResultView[];
  @ApiProperty({ type: [ComparisonView], description: 'Each variant against holdout (with holdout_percent 0: each variant after the first against the first)' })
  comparisons: ComparisonView[];
  @ApiProperty({ type: SampleRatioView }) sample_ratio: SampleRatioView;
}

export class ExperimentResultsResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: ExperimentResultsView }) experiment: ExperimentResultsView;
}

export class EndExperimentBody {
  @ApiProperty({ example: 'B', description: 'A variant of the experiment: every customer, the holdout included, is evaluated as it from now on' })
  @Required()
  @IsString()
  @Length(1, 40)
  winner: string;
}
