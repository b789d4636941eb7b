/** The evaluation module's face: what other modules may import of it. */
export { AfterCommit } from './after-commit.js';
export { CustomerTransactions } from './customer-transactions.js';
export { EvaluationModule } from './evaluation.module.js';
export { EvaluationPipeline } from './evaluation.pipeline.js';
export type { CustomerEvaluation, Decision, Involved, Loaded } from './evaluation.pipeline.js';
export type { EventsToStore } from './customer-plan.js';
export { customerSnapshot, DuplicateTransaction, EvaluationRepository, PROFILE_COLUMNS, storedInstance } from './evaluation.repository.js';
export type { CustomerKey, LoadedCustomer, ProfileRow } from './evaluation.repository.js';
export { occurredKey } from './event-keys.js';
export type { EventKey } from './event-keys.js';
export { extensionFailureViews } from './event-outcome.js';
export { HistoryReplay } from './history-replay.js';
export type { ReplayedCustomer } from './history-replay.js';
export { StoredEventsEvaluation } from './stored-events.evaluation.js';
export { TierReviewsWorkerModule } from './tier-reviews-worker.module.js';
export { newEventRows } from './write-plan.js';
export type { EventToStore } from './write-plan.js';
