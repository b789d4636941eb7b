/**
 * What an evaluation answers (evaluate, perform): every change to write, and the explanation. Plain data, on the
 * engine's vocabulary (types.ts) and the explanation's (explanation.ts) alone.
 */
import type { CampaignState, EventExplanation } from './explanation.js';
import type { CustomerSnapshot, ExperimentAssignment, ProgressMap, TierChangeReason } from './types.js';

export type CreditReason = 'behavior' | 'goal' | 'offer' | 'outcome';

export interface PointsCredit {
  /** Index of the submitted instance (in `events`) whose evaluation earned it, raised events included. */
  eventIndex: number;
  amount: number;
  reason: CreditReason;
  campaignId: number;
  behaviorId: number;
  goalId?: number;
  offerId?: number;
  at: number;
}

export interface NotificationDraft {
  eventIndex: number;
  creativeId: number;
  campaignId: number;
  behaviorId: number;
  behaviorName: string;
  type: string;
  data: { action_type: string; url: string | null; message: string | null; payload: Record<string, unknown> | null };
}

export interface BehaviorDelta {
  currentCount: number;
  achieved: number;
  /**
   * Set when the behavior's goal progress started again from zero during the request: a completion (the next cycle
   * begins), or with use_same_period, progress of an earlier period dropped. Absent otherwise.
   */
  reset?: true;
}

export interface GoalDelta {
  currentCount: number;
  pivots: string[];
}

/** A reward's after-commit effect, as the evaluation asked for it. */
export interface RewardEffect {
  eventIndex: number;
  kind: string;
  campaignId: number;
  behaviorId: number;
  payload: Record<string, unknown>;
}

/** What completions used of each budgeted campaign in one evaluation: the caller reserves it (contract §14). */
export interface BudgetUse {
  completions: number;
  points: number;
}

export interface TierMove {
  fromTierId: number | null;
  toTierId: number | null;
  toTierName: string | null;
  direction: 'up' | 'down';
  /** `tier_deleted`: the customer's tier no longer exists (a period policy then gives the one the facts qualify for). */
  reason: TierChangeReason | 'tier_deleted';
  /** When it took effect: a review's time, else the evaluation's (its `now`). */
  at: number;
  /**
   * The moves the rules imply from the stored tier to this one, oldest first: what the tier's history records and
   * `tier.changed` sends, one each. One for a move decided now; each tier a request passes through; for a back-dated
   * event under a period policy, the upgrade at the event's time and each review after it.
   */
  steps: TierStep[];
}

/** One move of a tier's path, with its own reason and time. */
export interface TierStep {
  fromTierId: number | null;
  toTierId: number | null;
  reason: TierMove['reason'];
  at: number;
}

/** What one evaluation adds to a group's sums (folded into the experiment's results). */
export interface GroupAddition {
  customers: number;
  converted: number;
  metricSum: number;
  metricSumSquares: number;
  achievements: number;
  points: number;
}

/** An experiment the evaluation assigned the customer to, measured them in or rewarded them in. */
export interface ExperimentOutcome {
  campaignId: number;
  /** The customer's assignment as it now is; `stored`: whether it changed (a row to write). */
  assignment: ExperimentAssignment;
  stored: boolean;
  added: GroupAddition;
}

/** What an extension that fails a campaign defines. */
export type ExtensionKind = 'criteria_operator' | 'reward_kind';

/** An extension's failure as the evaluation's result keeps it (`EvaluationResult.extensionFailures`). */
export interface ExtensionFailureRecord {
  /** The campaign skipped for it. */
  campaignId: number;
  /** The submitted instance whose evaluation met it. */
  eventIndex: number;
  kind: ExtensionKind;
  /** The operator's or reward kind's name. */
  extension: string;
  /** The extension (module) that defined it. */
  source: string;
  /** What was called: `test`, `apply`, `points`, `raises` or `creatives`. */
  call: string;
  /** The rule it was called for: `goal 12`, `campaign 4 targeting`, `behavior 7 outcome 2`. */
  at: string;
  /** The error's name and first line, at most 300 characters. */
  message: string;
  /** What was thrown (its stack, for the log). */
  error: unknown;
}

export interface EvaluationResult {
  /** `qualified` if any campaign qualified, else the first failure among campaigns that listened (contract §8). */
  state: CampaignState;
  campaignStates: Record<number, CampaignState>;
  customer: CustomerSnapshot;
  /** Only the behaviors whose progress changed. */
  progress: ProgressMap;
  behaviorDeltas: Record<number, BehaviorDelta>;
  goalDeltas: Record<number, GoalDelta>;
  credits: PointsCredit[];
  tagsAdded: string[];
  /** The customer's tier moved (from the stored one): where to, and why (contract §17). */
  tierChange: TierMove | null;
  offersIssued: Array<{ eventIndex: number; offerId: number; campaignId: number; behaviorId: number; at: number }>;
  notifications: NotificationDraft[];
  completions: Array<{ eventIndex: number; campaignId: number; behaviorId: number; achieved: number; at: number }>;
  qualifiedCampaignIds: number[];
  completedCampaignIds: number[];
  explanation: EventExplanation[];
  /** Budgeted campaigns: what this evaluation's completions used (to reserve), and those that refused one. */
  budgetUse: Record<number, BudgetUse>;
  budgetRefused: number[];
  /** After-commit effects the rewards asked for, in order (RewardContext.effect). */
  effects: RewardEffect[];
  /** Tier outcomes awarded, whether or not they moved the tier: they qualify for their tier in their event's period (§17). */
  tierOutcomes: Array<{ eventIndex: number; tierId: number; at: number }>;
  /** Each instance a campaign evaluated (live, the customer targeted, listening to its name): campaign analytics (§19). */
  evaluated: Array<{ eventIndex: number; campaignId: number; at: number }>;
  /** Goals that took their first progress of a cycle or completed, and which (the analytics' goal funnel, §19). */
  goalsAdvanced: Array<{ goalId: number; completed: boolean }>;
  /** Experiments (§20) that assigned the customer, measured them or rewarded them in this evaluation. */
  experiments: ExperimentOutcome[];
  /** Extensions that threw, each failing its campaign, skipped for the whole evaluation (decision 0025). Empty mostly. */
  extensionFailures: ExtensionFailureRecord[];
}

/** Why a perform could not complete the campaign (the service answers 422 failed_to_perform). */
export type PerformFailureReason = 'campaign_not_live' | 'campaign_not_started' | 'campaign_over' | 'already_completed' | 'nothing_to_complete' | 'holdout' | 'extension_failed';

export interface PerformResult extends EvaluationResult {
  /** Null when the campaign was completed; then the result holds every change to write. */
  failure: { reason: PerformFailureReason; detail: string } | null;
  /** Whether the customer meets the campaign's conditions (targeting, division, prerequisites; opt-in counts as met). */
  qualified: boolean;
}
