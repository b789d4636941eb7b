export * from './types.js';
export { compileRules, compileTargeting, behaviorsInvolved, MAX_EVENT_DEPTH } from './compile.js';
export type { CompiledRules, CompiledBehavior, CompiledCampaign, TargetingSubject } from './compiled.js';
export { CRITERION_OPS } from './criteria.js';
export { CORE_OPERATORS, criteriaOperators } from './operators.js';
export { CORE_REWARDS, defineReward, rewards } from './rewards.js';
export { CORE_EXTENSIONS } from './extensions.js';
export { byName } from './definitions.js';
export type { CriteriaOperators, EngineExtensions, OperatorDefinition, Reward, RewardContext, Rewards } from './definitions.js';
export { evaluate, evaluateStepwise } from './evaluate.js';
export type { EvaluateInput } from './evaluate.js';
export type {
  BehaviorDelta,
  BudgetUse,
  EvaluationResult,
  ExperimentOutcome,
  ExtensionFailureRecord,
  ExtensionKind,
  GoalDelta,
  GroupAddition,
  NotificationDraft,
  PerformFailureReason,
  PerformResult,
  PointsCredit,
  RewardEffect,
  TierMove,
} from './result.js';
export { customerTierStanding, periodMove, tierDirection } from './tier-moves.js';
export { campaignState, tierName } from './campaign-state.js';
export type { CampaignState, EventExplanation } from './explanation.js';
export { instancesFromV1, instanceFromV2 } from './instances.js';
export { behaviorView } from './view.js';
export type { BehaviorView, GoalView, GroupView } from './view.js';
export { emptyBehaviorProgress } from './progress.js';
export { undoCompletions } from './reversal.js';
export { addBudgetUse, spendUse } from './budget.js';
export type { BudgetLeft } from './budget.js';
export type { ReversedCompletion } from './reversal.js';
export { localDay, isDay } from './time.js';
export { behaviorApplies, bucketOf, experimentGroup, groupOfBucket, BUCKETS, HOLDOUT } from './experiments.js';
export { experimentResults } from './experiment-statistics.js';
export type { GroupSums } from './experiment-statistics.js';
export { checkEligibility } from './eligibility.js';
export { ExtensionFailure } from './bulkheads.js';
export type { EligibilityResult, CampaignCheck } from './eligibility.js';
export { perform, performBehaviorsInvolved, performInstance, performQualified, behaviorEligibility } from './perform.js';
export type { PerformInput } from './perform.js';
export { nextReviewAfter, periodAt, reviewTime, tierStanding } from './tier-standing.js';
export type { Period, TierChange, TierInput, TierStanding } from './tier-standing.js';
