import { LIMIT_SETTINGS, limits, type Limits } from '../../../config/limits.js';
import { extensionChecks } from '../../../common/validation/extension-checks.js';
import { compileRules, CORE_OPERATORS, type CompiledRules, type Rewards } from '../../../engine/index.js';
import type { BehaviorInput } from './behavior-input.js';

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

/** The rules a kind's points are asked with when a behavior is written (an organization with nothing), per set of kinds. */
let writeTime: { kinds: Rewards; rules: CompiledRules } | null = null;

/**
 * The points an outcome's reward kind declares for one award, as far as they can be known when the behavior is written:
 * asked of the kind (`points(args, rules)`, what the engine lets the award credit) with the rules of an organization
 * that holds nothing, since the organization's own change after the write. So a kind whose points depend on them counts
 * what it declares without them: `deal` counts 0 (an offer's points can change after the behavior is written), and so
 * does a kind that throws without them. A kind not loaded, or declaring no points, counts 0; a negative count is 0.
 */
export function outcomePoints(kind: string, args: unknown): number {
  const kinds = extensionChecks().rewardKinds;
  const reward = kinds.get(kind);
  if (!reward?.points) return 0;
  if (writeTime?.kinds !== kinds) writeTime = { kinds, rules: compileRules({ campaigns: [], offers: [], tiers: [], creatives: [], divisionAncestors: {} }, { operators: CORE_OPERATORS, rewards: kinds }) };
  let points: number;
  try {
    points = reward.points(args, writeTime.rules);
  } catch {
    return 0;
  }
  return typeof points === 'number' && points > 0 ? points : 0;
}

/** The most points one completion awards: the behavior's, all its goals' and every outcome's as its reward kind declares them. */
export function completionPoints(input: BehaviorInput): number {
  const goals = input.goal_groups.flatMap((g) => g.goals).reduce((sum, goal) => sum + goal.points, 0);
  const outcomes = input.outcome_config.reduce((sum, o) => {
    if (!o) return sum;
    const [kind, args] = Object.entries(o)[0] ?? [];
    return kind === undefined ? sum : sum + outcomePoints(kind, args);
  }, 0);
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
