/** The analytics module's face: what other modules may import of it. */
export { AnalyticsBackfillRepository } from './analytics-backfill.repository.js';
export { AnalyticsBackfill } from './analytics-backfill.js';
export { AnalyticsWorkerModule } from './analytics-worker.module.js';
export { AnalyticsModule } from './analytics.module.js';
export { AnalyticsRepository } from './analytics.repository.js';
