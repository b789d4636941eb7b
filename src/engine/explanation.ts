/**
 * The explanation of an evaluation: for each event instance, each campaign that listened, each behavior and goal,
 * why it did or did not progress. Written for a support engineer asking "why didn't this customer get the reward?".
 */

/** Where a campaign stands for the customer and an event (contract §8): `qualified`, or why it did not qualify them. */
export type CampaignState =
  | 'qualified'
  | 'campaign_not_started'
  | 'campaign_over'
  | 'not_targeted_to_campaign'
  | 'events_not_qualified'
  | 'missing_prerequisites'
  | 'reached_frequency_period_cap'
  | 'reached_frequency_cap'
  | 'budget_exhausted'
  | 'extension_failed';

export type GoalVerdict =
  | 'counted'
  | 'criteria_failed'
  | 'throttled'
  | 'already_complete'
  | 'missing_pivot'
  | 'repeated_pivot'
  | 'same_day'
  | 'earlier_day'
  | 'streak_restarted'
  | 'ignored_count';

export interface GoalExplanation {
  goal_id: number;
  goal_name: string;
  verdict: GoalVerdict;
  detail: string;
}

export type BehaviorVerdict = 'progressed' | 'completed' | 'no_progress' | 'cap_reached' | 'budget_exhausted';

export interface BehaviorExplanation {
  behavior_id: number;
  behavior_name: string;
  verdict: BehaviorVerdict;
  detail: string;
  goals: GoalExplanation[];
}

export interface CampaignExplanation {
  campaign_id: number;
  campaign_name: string;
  state: CampaignState;
  detail: string;
  behaviors: BehaviorExplanation[];
  /**
   * Set when the campaign skipped the customer, with the reason: `holdout`, the holdout of its experiment (§20);
   * `extension_failed`, an extension its rules or rewards call threw, so the evaluation skipped the campaign (the
   * detail names the extension).
   */
  skipped?: true;
  reason?: 'holdout' | 'extension_failed';
}

export interface EventExplanation {
  /** Index of the submitted instance this entry belongs to (raised events share their origin's index). */
  event_index: number;
  event: string;
  occurred_at: string;
  /** 0 for a submitted event; 1-5 for events raised by behavior outcomes. */
  depth: number;
  detail: string;
  campaigns: CampaignExplanation[];
}
