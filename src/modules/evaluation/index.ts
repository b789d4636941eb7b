/** The evaluation module's face: what other modules may import of it. */
export { AfterCommit } from './after-commit.js';
export { CustomerTransactions } from './customer-transactions.js';
export { EvaluationModule } from './evaluation.module.js';
export { EvaluationPipeline } from './evaluation.pipeline.js';
export type { Decision, Loaded } from './evaluation.pipeline.js';
export { customerSnapshot, DuplicateTransaction, EvaluationRepository, PROFILE_COLUMNS, storedInstance } from './evaluation.repository.js';
export type { CustomerKey, LoadedCustomer, ProfileRow } from './evaluation.repository.js';
export { occurredKey } from './event-keys.js';
export type { EventKey } from './event-keys.js';
export { eventOutcome, eventResult, extensionFailureViews } from './event-outcome.js';
export { HistoryReplay } from './history-replay.js';
export type { ReplayedCustomer } from './history-replay.js';
export { involvedBehaviors } from './involved-behaviors.js';
export { StoredEventsEvaluation } from './stored-events.evaluation.js';
export { TierReviewsWorkerModule } from './tier-reviews-worker.module.js';
export { newEventRows, planWrite } from './write-plan.js';
export type { EventOutcome, NewEvent } from './write-plan.js';
