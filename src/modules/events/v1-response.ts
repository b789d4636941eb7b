import { behaviorApplies, behaviorView, experimentGroup, tierName, type CompiledRules, type EvaluationResult, type ProgressMap } from '../../engine/index.js';
import type { BehaviorChange } from './dto/behavior-progress.dto.js';
import { extensionFailureViews } from '../evaluation/index.js';
import type { V1EventResponse } from './dto/v1-answer.dto.js';
import type { V1NotificationView } from '../customers-state/index.js';

/**
 * The V1 answer (contract §8): behaviors of the campaigns the request evaluated (only the scoped one when scoped),
 * each with the deltas of this request; top-level deltas for qualified campaigns; notifications with their ids.
 */
export function v1Response(
  rules: CompiledRules,
  result: EvaluationResult,
  progress: ProgressMap,
  notificationIds: Array<number | null>,
  explain: boolean,
): V1EventResponse {
  // The campaigns the request evaluated, and those its raised events reached.
  const touched = Object.keys(result.behaviorDeltas).map((id) => rules.behaviors.get(Number(id))?.campaign.rule.id);
  const campaignIds = new Set([...Object.keys(result.campaignStates).map(Number), ...touched.filter((id): id is number => id !== undefined)]);
  const behaviors: V1EventResponse['behaviors'] = {};
  const deltas: Record<string, BehaviorChange> = {};
  for (const campaignId of campaignIds) {
    const campaign = rules.campaigns.get(campaignId);
    if (!campaign) continue;
    // A customer in an experiment's variant sees the behaviors they are evaluated against (§20).
    const group = experimentGroup(campaign.rule, result.customer);
    for (const behavior of campaign.behaviors) {
      if (!behaviorApplies(behavior.rule, group)) continue;
      const delta = result.behaviorDeltas[behavior.rule.id];
      const pivots = behavior.goals.flatMap((g) => result.goalDeltas[g.rule.id]?.pivots ?? []);
      // reset: the goals started again from 0 in this request (after a completion, or a period dropped by
      // use_same_period), so a goal answered at current_count 0 and completed false is the next cycle, not lost progress.
      const reset = delta?.reset ? { reset: true as const } : {};
      const own = {
        current_count: delta?.currentCount ?? 0,
        achieved: delta?.achieved ?? 0,
        ...reset,
        ...(pivots.length ? { data: pivots, pivot_count: pivots.length } : {}),
      };
      behaviors[behavior.rule.name] = { ...behaviorView(behavior, progress[behavior.rule.id]), deltas: own };
      // Only evaluated behaviors have deltas: those of campaigns that did not qualify never do.
      if (delta) deltas[behavior.rule.name] = { current_count: delta.currentCount, achieved: delta.achieved, ...reset };
    }
  }
  // read_only stores nothing: its notifications have no id (null).
  const notifications: V1NotificationView[] = result.notifications.map((n, i) => ({
    id: notificationIds[i] ?? null,
    type: n.type,
    campaign_id: n.campaignId,
    behavior_name: n.behaviorName,
    data: n.data,
  }));
  return {
    status: 'ok',
    available_points: result.customer.availablePoints,
    notifications,
    user: { available_points: result.customer.availablePoints, tier: tierName(rules, result.customer.tierId) },
    behaviors,
    deltas,
    qualified: result.state === 'qualified',
    state: result.state,
    ...(explain ? { explanation: result.explanation } : {}),
    ...(result.extensionFailures.length ? { extension_failures: extensionFailureViews(result) } : {}),
  };
}

