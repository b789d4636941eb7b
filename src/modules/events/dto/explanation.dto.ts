import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { CampaignState } from '../../../engine/index.js';
import type { BehaviorExplanation, BehaviorVerdict, CampaignExplanation, EventExplanation, GoalExplanation, GoalVerdict } from '../../../engine/explanation.js';
import { BEHAVIOR_VERDICTS, CAMPAIGN_STATES, GOAL_VERDICTS } from './engine-values.js';

// The explanation of an evaluation (explain=true), mirroring src/engine/explanation.ts: each class implements the
// engine's type, so the two cannot drift apart.

export class GoalExplanationView implements GoalExplanation {
  @ApiProperty({ type: 'integer', example: 11 }) goal_id: number;
  @ApiProperty({ example: 'Three stores' }) goal_name: string;
  @ApiProperty({
    enum: GOAL_VERDICTS,
    example: 'counted',
    description:
      'counted; criteria_failed (a criterion did not hold); throttled (min_time_between_events); already_complete; missing_pivot and ' +
      'repeated_pivot (unique goals); same_day, earlier_day and streak_restarted (consecutive goals); ignored_count',
  })
  verdict: GoalVerdict;
  @ApiProperty({ example: 'new store_id=s-12: 2/3' }) detail: string;
}

export class BehaviorExplanationView implements BehaviorExplanation {
  @ApiProperty({ type: 'integer', example: 7 }) behavior_id: number;
  @ApiProperty({ example: 'Visit three stores' }) behavior_name: string;
  @ApiProperty({ enum: BEHAVIOR_VERDICTS, example: 'progressed' }) verdict: BehaviorVerdict;
  @ApiProperty({ example: '1 of 2 required goal(s) complete in this cycle', description: 'In words; also names resets and raised events' }) detail: string;
  @ApiProperty({ type: [GoalExplanationView], description: 'The goals listening to the event' }) goals: GoalExplanationView[];
}

export class CampaignExplanationView implements CampaignExplanation {
  @ApiProperty({ type: 'integer', example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'Summer explorer' }) campaign_name: string;
  @ApiProperty({ enum: CAMPAIGN_STATES, example: 'qualified', description: 'The state the event met in this campaign' }) state: CampaignState;
  @ApiProperty({ example: 'qualified' }) detail: string;
  @ApiProperty({ type: [BehaviorExplanationView], description: 'The behaviors listening to the event; empty unless the campaign qualified or is at a cap' })
  behaviors: BehaviorExplanationView[];
  @ApiPropertyOptional({ enum: [true], example: true, description: 'Present when the campaign skipped the customer (see reason)' }) skipped?: true;
  @ApiPropertyOptional({
    enum: ['holdout', 'extension_failed'],
    example: 'holdout',
    description:
      "Why it skipped them: holdout, the customer is in the holdout of the campaign's experiment; extension_failed, an extension " +
      "its rules or rewards call threw, so nothing of the campaign was evaluated for the request (detail names the extension)",
  })
  reason?: 'holdout' | 'extension_failed';
}

export class EventExplanationView implements EventExplanation {
  @ApiProperty({ type: 'integer', example: 0, description: 'Index of the submitted instance (raised events share their origin\'s index)' })
  event_index: number;
  @ApiProperty({ example: 'store_visit' }) event: string;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-05T10:00:00.000Z' }) occurred_at: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 5, example: 0, description: '0 for a submitted event; 1-5 for events raised by behavior outcomes' })
  depth: number;
  @ApiProperty({ example: '', description: 'Empty, or why no campaign took the event (none listens, none in its division)' }) detail: string;
  @ApiProperty({ type: [CampaignExplanationView], description: 'The campaigns that listened to the event' }) campaigns: CampaignExplanationView[];
}
