/**
 * The engine's vocabulary: rules as the management API stores them, the customer and their progress as the
 * database holds them, event instances as requests carry them. Plain data only; times are epoch milliseconds. It
 * imports nothing: every other file of the engine stands on it.
 */

/** A value of a customer's attributes or an event's context: a string, a number or a boolean. */
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

/** A variant of an experiment, and its share of the customers outside the holdout. */
export interface ExperimentVariant {
  name: string;
  weight: number;
}

/** A campaign's experiment as the engine takes it. */
export interface ExperimentRule {
  holdoutPercent: number;
  variants: ExperimentVariant[];
  /** The event whose instances measure the customers, and the numeric attribute summed (null: instances counted). */
  metric: { event: string; attribute: string | null };
  /** When it ended (epoch ms; null: running), and the variant everyone is evaluated as from then on. */
  endedAt: number | null;
  winner: string | null;
}

/** A customer's assignment to one campaign's experiment, and their metric value so far. */
export interface ExperimentAssignment {
  group: string;
  assignedAt: number;
  /** x: the metric summed over the customer's metric events from their assignment on (§20). */
  metricSum: number;
  /** How many metric events x counts (a customer with one or more converted). */
  metricEvents: number;
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

/** An offer of the organization: what a `deal` outcome issues, with its points. */
export interface OfferRule {
  id: number;
  name: string;
  /** The points issuing it credits. */
  points: number;
}

/** A tier of the organization. */
export interface TierRule {
  id: number;
  name: string;
  /** The points that qualify for it: lifetime points, or a period's qualifying points under a period policy. */
  minPoints: number;
  /** Qualifying points in a period that keep the tier at its review (contract §17); default `minPoints`. */
  retainPoints?: number;
}

/** How an organization's tiers qualify (contract §17): lifetime points, or calendar periods reviewed at their end. */
export type TierPolicy =
  | { basis: 'lifetime' }
  | { basis: 'period'; periodMonths: 1 | 3 | 6 | 12; downgrade: 'one_level' | 'to_qualified'; graceDays: number };

/** A tier as a policy ranks it; the list is ascending by `minPoints` (the order CompiledRules.tiers has). */
export interface RankedTier {
  id: number;
  name: string;
  minPoints: number;
  /** Qualifying points in a period that keep the tier at its review (default `minPoints`). */
  retainPoints: number;
}

/**
 * What moves a tier, at the `occurred_at` of its event: points a credit gave (a reversal's are negative, at the time of
 * the event it reversed), or a tier outcome naming a tier.
 */
export type TierFact = { at: number; points: number } | { at: number; tierId: number };

/** Why a tier moved: points, a tier outcome, a period's review, a policy change. */
export type TierChangeReason = 'points' | 'outcome' | 'review' | 'policy';

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

/**
 * The organization's rules as an extension sees them: its offers by id, and its tiers from the lowest. What a reward
 * reads of them; a domain action hands them to behaviorsInvolved and performBehaviorsInvolved as it gets them.
 */
export interface RulesView {
  /** By id. */
  readonly offers: ReadonlyMap<number, OfferRule>;
  /** Ascending by `minPoints` (then id): the order tiers rank in. */
  readonly tiers: readonly TierRule[];
}

/** A customer as an extension sees them: who they are, their profile, points, tier and campaigns. */
export interface CustomerView {
  /** The customer's id (a UUID). */
  id: string;
  /** Their IANA time zone: the days and months of their goals and caps are local to it. */
  timeZone: string;
  divisionId: number;
  tags: string[];
  /** What the customer's profile holds (a birthday month, say). */
  attributes: Record<string, FlatValue>;
  availablePoints: number;
  lifetimePoints: number;
  /** Null: no tier. */
  tierId: number | null;
  /** The opt-in campaigns the customer qualified for. */
  qualifiedCampaignIds: number[];
  completedCampaignIds: number[];
}

/** The customer as the engine takes them: the view, and what only the engine reads. */
export interface CustomerSnapshot extends CustomerView {
  /**
   * Under a period tier policy: the customer's stored qualifying facts (credits not reversed, summed per local month
   * and placed at its start; tier outcomes likewise), for the engine to add the evaluation's own to. Absent otherwise.
   */
  tierFacts?: readonly TierFact[];
  /** The tier the customer had at the last policy change (kept until the first review after it). */
  tierFloorId?: number | null;
  /** When the customer's next tier review takes effect (period policies; null: none, or no tier to review). */
  tierReviewAt?: number | null;
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
