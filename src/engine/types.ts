/**
 * The engine's vocabulary: rules as the management API stores them, the customer and their progress as the
 * database holds them, event instances as requests carry them. Plain data only; times are epoch milliseconds.
 */
import type { ExperimentAssignment, ExperimentRule } from './experiments.js';
import type { TierFact, TierPolicy } from './tier-standing.js';

export type FlatValue = string | number | boolean;

/** The built-in operators' names (operators.ts). */
export type CriterionOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin' | 'exists' | 'contains';

export interface Criterion {
  field: string;
  op: CriterionOp;
  value?: unknown;
}

export type Status = 'draft' | 'inreview' | 'live' | 'paused' | 'completed';

export interface GoalRule {
  id: number;
  name: string;
  /** The event name the goal listens to: `internal_event_name`, else its name. */
  eventName: string;
  type: 'count' | 'unique';
  uniqueAttribute: string | null;
  /** Count (or distinct values, or days in a row) that completes the goal; at least 1. */
  eventCount: number;
  points: number;
  required: boolean;
  criteria: Criterion[];
  /** Throttle: T seconds and K instances per T (K defaults to 1). Null T: no throttle. */
  minTimeBetweenEvents: number | null;
  minTimeBetweenEventsCount: number;
  consecutive: boolean;
}

export interface GroupRule {
  /** Goals that must be complete for the group (default: all its goals). */
  goalCount: number;
  goals: GoalRule[];
}

/**
 * One entry of a behavior's `outcome_config`: the reward kind that its one member names (rewards.ts) and that member's
 * value as stored, such as `{ kind: 'points', args: 10 }` or `{ kind: 'deal', args: { id: 12 } }`.
 */
export interface OutcomeRule {
  kind: string;
  args: unknown;
}

export interface BehaviorRule {
  id: number;
  campaignId: number;
  name: string;
  tags: string[];
  points: number;
  /** Seconds; windows counted from the campaign's start, for the per-period cap and use_same_period. */
  period: number | null;
  maxTimesAchievable: number | null;
  maxTimesAchievablePerPeriod: number | null;
  maxTimesAchievablePerMonth: number | null;
  maxTimesAchievablePerYear: number | null;
  useSamePeriod: boolean;
  groups: GroupRule[];
  outcomes: OutcomeRule[];
  /** The experiment variant whose customers alone it evaluates (contract §20); null or absent: every customer. */
  variant?: string | null;
}

export interface CampaignRule {
  id: number;
  name: string;
  permalink: string;
  status: Status;
  startsAt: number;
  endsAt: number;
  divisionId: number | null;
  optInRequired: boolean;
  prerequisiteCampaignIds: number[];
  targeting: Criterion[];
  behaviors: BehaviorRule[];
  /** Contract §14: null when the campaign has no budget. */
  budget: CampaignBudget | null;
  /** Contract §20: absent or null when the campaign runs no experiment. */
  experiment?: ExperimentRule | null;
}

/** A campaign budget's limits, across all its customers (null: no limit on that side). */
export interface CampaignBudget {
  maxCompletions: number | null;
  maxPoints: number | null;
}

export interface OfferRule {
  id: number;
  name: string;
  points: number;
}

export interface TierRule {
  id: number;
  name: string;
  minPoints: number;
  /** Qualifying points in a period that keep the tier at its review (contract §17); default `minPoints`. */
  retainPoints?: number;
}

/** How the organization's tiers qualify (contract §17); absent: lifetime. */
export interface TierRules {
  policy: TierPolicy;
  /** The organization's time zone: periods are calendar-aligned in it. */
  timeZone: string;
  /** When the policy last changed (epoch ms; null: never): customers keep their tier until the first review after. */
  policyChangedAt: number | null;
}

/** A creative tied to a behavior (triggered delivery, or named by an ad_unit outcome). */
export interface CreativeRule {
  id: number;
  campaignId: number;
  /** The behavior whose completion triggers it (triggered delivery); null when only an ad_unit outcome names it. */
  behaviorId: number | null;
  adType: string;
  actionType: string;
  url: string | null;
  message: string | null;
  payload: Record<string, unknown> | null;
  /** Statuses of the creative, its group, its line item; all must be live (the campaign's is checked too). */
  statuses: Status[];
  /** The creative group's targeting, evaluated on the customer. */
  targeting: Criterion[];
}

export interface RuleSet {
  campaigns: CampaignRule[];
  offers: OfferRule[];
  tiers: TierRule[];
  tierRules?: TierRules;
  creatives: CreativeRule[];
  /** Division id → ids from the root down to it (itself included). */
  divisionAncestors: Record<number, number[]>;
}

export interface CustomerSnapshot {
  id: string;
  timeZone: string;
  divisionId: number;
  tags: string[];
  attributes: Record<string, FlatValue>;
  availablePoints: number;
  lifetimePoints: number;
  tierId: number | null;
  /**
   * Under a period tier policy: the customer's stored qualifying facts (credits not reversed, summed per local month
   * and placed at its start; tier outcomes likewise), for the engine to add the evaluation's own to. Absent otherwise.
   */
  tierFacts?: readonly TierFact[];
  /** The tier the customer had at the last policy change (kept until the first review after it). */
  tierFloorId?: number | null;
  /** When the customer's next tier review takes effect (period policies; null: none, or no tier to review). */
  tierReviewAt?: number | null;
  qualifiedCampaignIds: number[];
  completedCampaignIds: number[];
  /** The customer's experiment assignments by campaign id (contract §20); absent: none. */
  experiments?: Record<number, ExperimentAssignment>;
}

/** One event instance (contract §7). */
export interface EventInstance {
  name: string;
  count: number;
  attributes: Record<string, unknown>;
  context: Record<string, FlatValue>;
  occurredAt: number;
  /** `occurred_on` (YYYY-MM-DD) when the request gave one; else the customer-local date of occurredAt. */
  day: string | null;
}

export interface GoalProgress {
  /** Toward eventCount: summed counts, distinct pivots, or days in a row. */
  count: number;
  completed: boolean;
  /** unique: pivot values seen this cycle. */
  pivots: string[];
  /** consecutive: the last customer-local day counted. */
  lastDay: string | null;
  /** Throttle: times of the latest counted instances (at most K), kept across cycles. */
  countedAt: number[];
}

export interface BehaviorProgress {
  achieved: number;
  /** Completion times; kept for as long as a periodic cap can look back at them. */
  completions: number[];
  /** use_same_period: the period window the current cycle's progress belongs to. */
  window: number | null;
  goals: Record<string, GoalProgress>;
}

export type ProgressMap = Record<number, BehaviorProgress>;
