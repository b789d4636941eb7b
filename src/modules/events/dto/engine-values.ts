import type { CampaignState } from '../../../engine/index.js';
import type { BehaviorVerdict, GoalVerdict } from '../../../engine/explanation.js';

/**
 * The values of a string union of the engine, for Swagger enums. The engine has the types only (it stays free of
 * anything the documentation needs); the list is checked against the type: a value missing from it, or one the type
 * does not have, is a compile error, so the documented enum cannot drift from the engine.
 */
function allOf<T extends string>() {
  return <const A extends readonly T[]>(values: A & ([Exclude<T, A[number]>] extends [never] ? unknown : { missing: Exclude<T, A[number]> })): A => values;
}

export const CAMPAIGN_STATES = allOf<CampaignState>()([
  'qualified',
  'campaign_not_started',
  'campaign_over',
  'not_targeted_to_campaign',
  'events_not_qualified',
  'missing_prerequisites',
  'reached_frequency_period_cap',
  'reached_frequency_cap',
  'budget_exhausted',
  'extension_failed',
]);

/** The states a campaign that did not qualify answers (all but qualified). */
export const FAILURE_STATES = CAMPAIGN_STATES.filter((s) => s !== 'qualified');

export const BEHAVIOR_VERDICTS = allOf<BehaviorVerdict>()(['progressed', 'completed', 'no_progress', 'cap_reached', 'budget_exhausted']);

export const GOAL_VERDICTS = allOf<GoalVerdict>()([
  'counted',
  'criteria_failed',
  'throttled',
  'already_complete',
  'missing_pivot',
  'repeated_pivot',
  'same_day',
  'earlier_day',
  'streak_restarted',
  'ignored_count',
]);
