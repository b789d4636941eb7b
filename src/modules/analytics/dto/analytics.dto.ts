import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';

/** The query of GET .../analytics; its values are checked by the use case, which names the parameter in a 400. */
export class AnalyticsQuery {
  @ApiPropertyOptional({ type: String, format: 'date', example: '2026-11-01', description: "First day of the range, in the organization's time zone (default: 29 days before to)" })
  @IsOptional()
  from?: string;

  @ApiPropertyOptional({ type: String, format: 'date', example: '2026-11-30', description: "Last day of the range, inclusive, in the organization's time zone (default: today there)" })
  @IsOptional()
  to?: string;

  @ApiPropertyOptional({ enum: ['day', 'week', 'month'], default: 'day', example: 'week', description: 'Periods of the series: days, weeks from Monday, or calendar months' })
  @IsOptional()
  granularity?: string;
}

const integer = (example: number, description: string) => ApiProperty({ type: 'integer', example, description });

export class CountsView {
  @integer(1840, 'Event instances the campaign evaluated (it was live, targeted the customer and listened to the event name), each once')
  events: number;
  @integer(412, 'Distinct customers with at least one such event')
  participants: number;
  @integer(96, 'Behavior completions those events caused, less those reversed')
  achievements: number;
  @integer(9600, "Points the campaign's outcomes credited")
  points_credited: number;
  @integer(200, 'Points reversals took back from those credits')
  points_reversed: number;
  @integer(40, "Offers the campaign's outcomes issued")
  offers_issued: number;
  @integer(96, "Notifications the campaign's outcomes issued")
  notifications: number;
}

export class TotalsView extends CountsView {
  @integer(90, 'Distinct customers with at least one achievement in the range that was not reversed')
  customers_achieved: number;
}

export class SeriesEntryView extends CountsView {
  @ApiProperty({ example: '2026-11-23', description: 'First day of the period (a Monday for weeks, the 1st for months); its counts cover the days of it inside the range' })
  period: string;
}

export class BehaviorAnalyticsView {
  @integer(96, 'Completions in the range, less those reversed')
  achievements: number;
  @integer(90, 'Distinct customers with a completion in the range that was not reversed')
  customers_achieved: number;
  @integer(9400, "Points the behavior's completions credited (behavior and goal points, offers' points), less those reversed")
  points: number;
}

export class GoalFunnelView {
  @integer(7, 'The goal id') goal_id: number;
  @ApiProperty({ example: 'Buy a coffee' }) behavior_name: string;
  @ApiProperty({ example: 'purchase' }) name: string;
  @integer(412, 'Customers with any progress on the goal, at any time')
  customers_started: number;
  @integer(96, 'Customers who completed the goal, at any time')
  customers_completed: number;
}

export class AnalyticsView {
  @integer(3, 'The campaign id') campaign_id: number;
  @ApiProperty({ example: '2026-11-01' }) from: string;
  @ApiProperty({ example: '2026-11-30' }) to: string;
  @ApiProperty({ enum: ['day', 'week', 'month'], example: 'week' }) granularity: string;
  @ApiProperty({ example: 'Europe/Paris', description: "The organization's time zone: the days of the range and of the periods" }) time_zone: string;
  @ApiProperty({ type: TotalsView }) totals: TotalsView;
  @ApiProperty({ type: [SeriesEntryView], description: 'Every period of the range in order, zeros included' }) series: SeriesEntryView[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(BehaviorAnalyticsView) },
    example: { 'Buy a coffee': { achievements: 96, customers_achieved: 90, points: 9400 } },
    description: 'By behavior name: every behavior of the campaign',
  })
  behaviors: Record<string, BehaviorAnalyticsView>;
  @ApiProperty({ type: [GoalFunnelView], description: 'Every goal of the campaign, in the order of its behaviors and groups' }) goals: GoalFunnelView[];
}

export class AnalyticsResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: AnalyticsView }) analytics: AnalyticsView;
}
