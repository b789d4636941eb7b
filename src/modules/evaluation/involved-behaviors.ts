import { behaviorsInvolved, type CompiledRules, type EventInstance } from '../../engine/index.js';

/** The behaviors whose progress an evaluation reads: those involved by the event names, and the scoped campaign's. */
export function involvedBehaviors(rules: CompiledRules, instances: EventInstance[], campaignId: number | null): number[] {
  const ids = new Set(behaviorsInvolved(rules, instances.map((i) => i.name)));
  for (const behavior of campaignId === null ? [] : (rules.campaigns.get(campaignId)?.behaviors ?? [])) ids.add(behavior.rule.id);
  return [...ids];
}
