/**
 * Rules as compileRules (compile.ts) makes them, once per change: each criterion bound to its operator, each outcome to
 * its reward kind, and indexes from event names to the goals listening to them. Types only.
 */
import type { OperatorDefinition, Reward } from './definitions.js';
import type {
  BehaviorRule,
  CampaignRule,
  CreativeRule,
  Criterion,
  CustomerSnapshot,
  EventInstance,
  GoalRule,
  OfferRule,
  RankedTier,
  RulesView,
  TierRule,
  TierRules,
} from './types.js';

/** A compiled criterion list: null when every criterion holds on the subject, else the first that does not. */
export type Predicate<T> = (subject: T) => CriterionFailure | null;

export interface CriterionFailure {
  criterion: Criterion;
  actual: unknown;
  /** The operator that decided. */
  operator?: OperatorDefinition;
  /** The criterion names an operator the registry does not hold. */
  unregistered?: true;
}

export interface CompiledGoal {
  rule: GoalRule;
  key: string;
  groupIndex: number;
  behavior: CompiledBehavior;
  matches: Predicate<EventInstance>;
  /** The extension operators its criteria hold by, for the explanation (null: built-ins alone). */
  held: string | null;
}

export interface CompiledBehavior {
  rule: BehaviorRule;
  campaign: CompiledCampaign;
  goals: CompiledGoal[];
  /** Per group: how many completed goals it needs at least (max of goal_count and its required goals). */
  groupNeeds: number[];
  /** Creatives this behavior's completion triggers: triggered delivery plus those its rewards deliver (ad_unit). */
  creatives: CompiledCreative[];
  /** Its outcome_config entries, each with the reward kind that awards it (undefined: no kind of that name registered). */
  outcomes: CompiledOutcome[];
  /** The event names its rewards raise. */
  raises: string[];
}

export interface CompiledOutcome {
  kind: string;
  args: unknown;
  reward: Reward | undefined;
}

export interface CompiledCampaign {
  rule: CampaignRule;
  targets: Predicate<TargetingSubject>;
  /** The extension operators its targeting holds by, for the explanation (null: built-ins alone). */
  targetingHeld: string | null;
  behaviors: CompiledBehavior[];
  /** Event name → the behaviors with a goal listening to it, each with those goals, in rule order. */
  listening: Map<string, Map<CompiledBehavior, CompiledGoal[]>>;
}

export interface CompiledCreative {
  rule: CreativeRule;
  targets: Predicate<TargetingSubject>;
}

export interface TargetingSubject {
  customer: CustomerSnapshot;
  tierName: string | null;
}

/**
 * Rules compiled once per change: predicates built, and an index from event name to the goals listening to it. An
 * extension sees them as their RulesView.
 */
export interface CompiledRules extends RulesView {
  campaigns: Map<number, CompiledCampaign>;
  behaviors: Map<number, CompiledBehavior>;
  listeners: Map<string, CompiledGoal[]>;
  /** Event name → the campaigns listening to it (CompiledCampaign.listening), in rule order. */
  campaignsListening: Map<string, CompiledCampaign[]>;
  /** The campaigns running an experiment that has not ended (contract §20): every event may assign or measure in them. */
  experiments: CompiledCampaign[];
  offers: Map<number, OfferRule>;
  /** Ascending by min_points (then id): the order tiers rank in. */
  tiers: TierRule[];
  /** The tier policy (lifetime unless the organization set one) and the tiers as it ranks them. */
  tierRules: TierRules;
  rankedTiers: RankedTier[];
  divisionAncestors: Record<number, number[]>;
}
