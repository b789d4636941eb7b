/**
 * Experiments (contract §20): each customer of a campaign that runs one is assigned, once and for good, to its
 * holdout or one of its variants, deterministically from the campaign and the customer.
 */
import type { GroupAddition } from './result.js';
import type { BehaviorRule, CampaignRule, CustomerSnapshot, EventInstance, ExperimentAssignment, ExperimentRule } from './types.js';

/** The group the campaign does nothing for. */
export const HOLDOUT = 'holdout';
/** Customers are hashed into this many buckets; the settings' shares are whole buckets (0.01% each). */
export const BUCKETS = 10_000;

/** The customer's bucket in the campaign's experiment: FNV-1a of "campaign:customer" with murmur3's finalizer. */
export function bucketOf(campaignId: number, customerId: string): number {
  const key = `${campaignId}:${customerId}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) % BUCKETS;
}

/** The group of a bucket: the first holdout_percent × 100 buckets are the holdout, the rest split by the weights. */
export function groupOfBucket(experiment: Pick<ExperimentRule, 'holdoutPercent' | 'variants'>, bucket: number): string {
  const holdout = experiment.holdoutPercent * (BUCKETS / 100);
  if (bucket < holdout) return HOLDOUT;
  const total = experiment.variants.reduce((sum, v) => sum + v.weight, 0);
  let cumulative = 0;
  for (const variant of experiment.variants) {
    cumulative += variant.weight;
    if (bucket < holdout + Math.floor(((BUCKETS - holdout) * cumulative) / total)) return variant.name;
  }
  return experiment.variants[experiment.variants.length - 1].name;
}

/**
 * The group the customer is evaluated as in the campaign's experiment: the winner once it ended, else their stored
 * assignment, else the group they would be assigned to. Null when the campaign runs no experiment.
 */
export function experimentGroup(campaign: CampaignRule, customer: CustomerSnapshot): string | null {
  const experiment = campaign.experiment;
  if (!experiment) return null;
  if (experiment.endedAt !== null) return experiment.winner;
  return customer.experiments?.[campaign.id]?.group ?? groupOfBucket(experiment, bucketOf(campaign.id, customer.id));
}

/** Whether a customer of the group is evaluated against the behavior: one without a variant, or of their variant. */
export function behaviorApplies(behavior: BehaviorRule, group: string | null): boolean {
  return behavior.variant == null || group === null || behavior.variant === group;
}

/**
 * What one instance adds to x: its metric attribute (in attributes, then context; 0 when absent or not a number), or
 * 1 when the metric counts instances.
 */
export function metricValue(experiment: ExperimentRule, instance: EventInstance): number {
  const name = experiment.metric.attribute;
  if (name === null) return 1;
  const raw = name in instance.attributes ? instance.attributes[name] : instance.context[name];
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** What the change of a customer's assignment from `before` (none: new) to `after` adds to their group's sums. */
export function groupAddition(before: ExperimentAssignment | undefined, after: ExperimentAssignment, achievements: number, points: number): GroupAddition {
  const x0 = before?.metricSum ?? 0;
  return {
    customers: before ? 0 : 1,
    converted: (before?.metricEvents ?? 0) === 0 && after.metricEvents > 0 ? 1 : 0,
    metricSum: after.metricSum - x0,
    metricSumSquares: after.metricSum * after.metricSum - x0 * x0,
    achievements,
    points,
  };
}
