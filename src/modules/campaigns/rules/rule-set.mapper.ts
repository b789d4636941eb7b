import type { BehaviorRule, CampaignRule, CreativeRule, ExperimentRule, GoalRule, OutcomeRule, RuleSet, Status, TierRule, TierRules, OfferRule, Criterion } from '../../../engine/index.js';
import { tierPolicy, type StoredTierPolicy } from '../../../database/entities/tier-policy.js';
import type { Behavior, Campaign } from '../../../database/entities/index.js';
import { OUTCOME_BOOKKEEPING, type StoredGoal, type StoredOutcome } from '../../../database/entities/behavior.entity.js';

/** A creative row joined with its group and line item, as the loader reads it. */
export interface CreativeRow {
  id: number;
  campaign_id: number;
  behavior_id: number | null;
  ad_type: string;
  message: string | null;
  url: string | null;
  payload: Record<string, unknown> | null;
  delivery_method: string | null;
  creative_status: Status;
  group_status: Status;
  line_item_status: Status;
  group_targeting: Criterion[];
}

/** A live campaign's columns the rules need. */
export type CampaignRow = Pick<
  Campaign,
  | 'id'
  | 'name'
  | 'permalink'
  | 'status'
  | 'startsAt'
  | 'endsAt'
  | 'divisionId'
  | 'optInRequired'
  | 'prerequisiteCampaignIds'
  | 'targeting'
  | 'budgetMaxCompletions'
  | 'budgetMaxPoints'
  | 'experiment'
  | 'experimentEndedAt'
  | 'experimentWinner'
>;
/** A behavior's columns the rules need. */
export type BehaviorRow = Pick<Behavior, 'id' | 'campaignId' | 'name' | 'tags' | 'points' | 'data' | 'goalGroups' | 'outcomeConfig' | 'variant'>;

/** The organization's columns the rules need (the tier policy, §17). */
export interface OrganizationRow {
  tier_policy: StoredTierPolicy;
  time_zone: string;
  tier_policy_changed_at: Date | null;
}

export interface StoredRules {
  campaigns: CampaignRow[];
  behaviors: BehaviorRow[];
  offers: OfferRule[];
  tiers: TierRule[];
  creatives: CreativeRow[];
  divisions: Array<{ id: number; ancestor_ids: number[] }>;
  /** Absent: lifetime in UTC (a rule set built without an organization). */
  organization?: OrganizationRow;
}

/** Ad types delivered as a message; the others open an ad. */
export const MESSAGE_TYPES = new Set(['email_message', 'push_message', 'messaging_platform']);

function int(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function splitTags(tags: string | null): string[] {
  return (tags ?? '')
    .split('|')
    .map((t) => t.trim())
    .filter(Boolean);
}

function goalRule(goal: StoredGoal, behaviorData: Record<string, unknown>): GoalRule {
  const data = goal.data ?? {};
  const throttle = int(data.min_time_between_events) ?? int(behaviorData.min_time_between_events);
  return {
    id: goal.id,
    name: goal.name,
    eventName: goal.internal_event_name || goal.name,
    type: goal.type,
    uniqueAttribute: goal.unique_attribute,
    eventCount: goal.event_count,
    points: goal.points,
    required: goal.required,
    criteria: goal.criteria ?? [],
    minTimeBetweenEvents: throttle,
    minTimeBetweenEventsCount: int(data.min_time_between_events_count) ?? int(behaviorData.min_time_between_events_count) ?? 1,
    consecutive: (data.consecutive ?? behaviorData.consecutive) === true,
  };
}

/** A stored outcome as the engine takes it: the member naming its reward kind, with that member's value as arguments. */
function outcomeRule(outcome: StoredOutcome): OutcomeRule | null {
  const kind = Object.keys(outcome).find((key) => !OUTCOME_BOOKKEEPING.includes(key));
  return kind === undefined ? null : { kind, args: outcome[kind] };
}

export function behaviorRule(b: BehaviorRow): BehaviorRule {
  const data = b.data ?? {};
  return {
    id: b.id,
    campaignId: b.campaignId,
    name: b.name,
    tags: splitTags(b.tags),
    points: b.points,
    period: int(data.period),
    maxTimesAchievable: int(data.max_times_achievable),
    maxTimesAchievablePerPeriod: int(data.max_times_achievable_per_period),
    maxTimesAchievablePerMonth: int(data.max_times_achievable_per_month),
    maxTimesAchievablePerYear: int(data.max_times_achievable_per_year),
    useSamePeriod: data.use_same_period === true,
    groups: b.goalGroups.map((g) => ({ goalCount: g.goal_count ?? g.goals.length, goals: g.goals.map((goal) => goalRule(goal, data)) })),
    outcomes: b.outcomeConfig.map(outcomeRule).filter((o): o is OutcomeRule => o !== null),
    variant: b.variant ?? null,
  };
}

function campaignRule(c: CampaignRow, behaviors: BehaviorRow[]): CampaignRule {
  return {
    id: c.id,
    name: c.name,
    permalink: c.permalink,
    status: c.status,
    startsAt: c.startsAt.getTime(),
    endsAt: c.endsAt.getTime(),
    divisionId: c.divisionId,
    optInRequired: c.optInRequired,
    prerequisiteCampaignIds: c.prerequisiteCampaignIds,
    targeting: c.targeting ?? [],
    budget: c.budgetMaxCompletions === null && c.budgetMaxPoints === null ? null : { maxCompletions: c.budgetMaxCompletions, maxPoints: c.budgetMaxPoints },
    experiment: experimentRule(c),
    behaviors: behaviors.filter((b) => b.campaignId === c.id).map(behaviorRule),
  };
}

function experimentRule(c: CampaignRow): ExperimentRule | null {
  const e = c.experiment;
  if (!e) return null;
  return {
    holdoutPercent: e.holdout_percent,
    variants: e.variants,
    metric: { event: e.metric.event, attribute: e.metric.attribute ?? null },
    endedAt: c.experimentEndedAt?.getTime() ?? null,
    winner: c.experimentWinner ?? null,
  };
}

function creativeRule(row: CreativeRow): CreativeRule {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    behaviorId: row.delivery_method === 'triggered' ? row.behavior_id : null,
    adType: row.ad_type,
    actionType: MESSAGE_TYPES.has(row.ad_type) ? 'message' : 'open_ad',
    url: row.url,
    message: row.message,
    payload: row.payload,
    statuses: [row.creative_status, row.group_status, row.line_item_status],
    targeting: row.group_targeting ?? [],
  };
}

function tierRules(o: OrganizationRow): TierRules {
  return { policy: tierPolicy(o.tier_policy), timeZone: o.time_zone, policyChangedAt: o.tier_policy_changed_at?.getTime() ?? null };
}

/** The organization's stored configuration as the engine's rule set. */
export function toRuleSet(stored: StoredRules): RuleSet {
  return {
    campaigns: stored.campaigns.map((c) => campaignRule(c, stored.behaviors)),
    offers: stored.offers,
    tiers: stored.tiers,
    ...(stored.organization ? { tierRules: tierRules(stored.organization) } : {}),
    creatives: stored.creatives.map(creativeRule),
    divisionAncestors: Object.fromEntries(stored.divisions.map((d) => [d.id, d.ancestor_ids])),
  };
}
