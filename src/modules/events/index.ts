/** The events module's face: what other modules may import of it. */
export { BehaviorProgressView, GoalProgressView, GroupProgressView, mapOf, RetrievalBehaviorView } from './dto/behavior-progress.dto.js';
export { enqueueEvents } from './enqueue.js';
export type { QueuedEvent } from './enqueue.js';
export { EventLogMaintenance, MAINTENANCE_LOCK } from './event-log/event-log-maintenance.js';
export { EventLogRepository, submissionStatement } from './event-log/event-log.repository.js';
export type { SubmissionEvent } from './event-log/event-log.repository.js';
export { EventsWorkerModule } from './events-worker.module.js';
export { EventsModule } from './events.module.js';
export { listRejectedEvents } from './rejected-events.js';
export { RetrievalUseCase } from './retrieval.use-case.js';
export type { CampaignKey } from './scope.js';
