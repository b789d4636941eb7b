import { DynamicModule, Module, type Type } from '@nestjs/common';
import { LoggingModule } from './common/logging/logging.module.js';
import { WORKER_QUEUES, type WorkerQueue } from './config/config.js';
import { CoreModule } from './core.module.js';
import { AnalyticsWorkerModule } from './modules/analytics/analytics-worker.module.js';
import { EventsWorkerModule } from './modules/events/events-worker.module.js';
import { DataRightsWorkerModule } from './modules/data-rights/data-rights-worker.module.js';
import { AudienceJobsWorkerModule } from './modules/creatives/audience-jobs/audience-jobs-worker.module.js';
import { EventCountersModule } from './modules/metrics/metrics.module.js';
import { PointsWorkerModule } from './modules/points/points-worker.module.js';
import { TiersWorkerModule } from './modules/customers-state/tiers/tiers-worker.module.js';
import { SimulationsWorkerModule } from './modules/simulations/simulations-worker.module.js';
import { WebhooksWorkerModule } from './modules/webhooks/webhooks-worker.module.js';

/** Each kind of work a worker process may take, and the modules that run it (processors and sweepers). */
const WORK: Record<WorkerQueue, Type[]> = {
  // The analytics fold of what the event path appends, and erasures' worker (it removes customers' events).
  events: [EventsWorkerModule, AnalyticsWorkerModule, DataRightsWorkerModule],
  webhooks: [WebhooksWorkerModule],
  'audience-jobs': [AudienceJobsWorkerModule],
  // Points' expiry and tiers' reviews: the sweepers of balances and standings.
  points: [PointsWorkerModule, TiersWorkerModule],
  simulations: [SimulationsWorkerModule],
};

/**
 * The worker process: queue processors (events, webhook deliveries, audience jobs, simulations) and sweepers, no HTTP
 * listener. `queues` (WORKER_QUEUES) picks the work it takes: all of it by default; `npm start` runs simulations in a
 * process of their own (docs/operations.md).
 */
@Module({})
export class WorkerModule {
  static forQueues(queues: readonly WorkerQueue[] = WORKER_QUEUES): DynamicModule {
    return { module: WorkerModule, imports: [CoreModule, LoggingModule.forRoot('worker'), EventCountersModule, ...queues.flatMap((queue) => WORK[queue])] };
  }
}
