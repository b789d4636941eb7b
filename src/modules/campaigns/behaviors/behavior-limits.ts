import { LIMIT_SETTINGS, limits, type Limits } from '../../../config/limits.js';
import type { BehaviorInput } from './behavior-validation.js';

/**
 * Contract §18's limits on behaviors, read from this process's settings (src/config/limits.ts). Each problem is the
 * message that follows its field, naming the limit's value and its setting, or null within the limit.
 */

const setting = (key: keyof Limits): string => LIMIT_SETTINGS[key].env;

/** `goal_groups`: the goals of all the behavior's groups together. */
export function goalsPerBehaviorProblem(goals: number): string | null {
  const max = limits().goalsPerBehavior;
  if (goals <= max) return null;
  return `hold ${goals} goals: a behavior may hold at most ${max} goals over all its goal groups (${setting('goalsPerBehavior')})`;
}

/** A unique goal's `event_count`: each distinct value counted is kept in the customer's progress. */
export function uniqueEventCountProblem(eventCount: number): string | null {
  const max = limits().uniqueGoalEventCount;
  if (eventCount <= max) return null;
  return `is ${eventCount}: a unique goal's event_count may be at most ${max} (${setting('uniqueGoalEventCount')})`;
}

/** The most points one completion awards: the behavior's, all its goals' and its points outcomes'. */
export function completionPoints(input: BehaviorInput): number {
  const goals = input.goal_groups.flatMap((g) => g.goals).reduce((sum, goal) => sum + goal.points, 0);
  const outcomes = input.outcome_config.reduce((sum, o) => sum + (o && 'points' in o ? o.points : 0), 0);
  return input.points + goals + outcomes;
}

/** `points`: what one completion awards in all. */
export function completionPointsProblem(input: BehaviorInput): string | null {
  const max = limits().completionPoints;
  const total = completionPoints(input);
  if (total <= max) return null;
  return (
    `with its goals' points and its points outcomes make ${total} points for one completion: a completion may award at most ` +
    `${max} points (${setting('completionPoints')})`
  );
}

/** The behaviors of one campaign: `held` already, `added` by the write. */
export function behaviorsPerCampaignProblem(held: number, added: number): string | null {
  const max = limits().behaviorsPerCampaign;
  if (held + added <= max) return null;
  return `a campaign may hold at most ${max} behaviors (${setting('behaviorsPerCampaign')}): it holds ${held} and the batch adds ${added}`;
}

/** The goals of an organization's live campaigns: `held` already, `added` by the write (refused only when it adds). */
export function liveGoalsProblem(held: number, added: number): string | null {
  const max = limits().liveGoalsPerOrganization;
  if (added <= 0 || held + added <= max) return null;
  return (
    `the live campaigns of an organization may hold at most ${max} goals (${setting('liveGoalsPerOrganization')}): ` +
    `they hold ${held} and this write adds ${added}`
  );
}

/** Goals of a behavior's groups. */
export function goalCount(groups: ReadonlyArray<{ goals: readonly unknown[] }>): number {
  return groups.reduce((sum, g) => sum + g.goals.length, 0);
}
