import { DynamicModule, Module, type Type } from '@nestjs/common';
import { LoggingModule } from './common/logging/logging.module.js';
import { WORKER_QUEUES, type WorkerQueue } from './config/config.js';
import { CoreModule } from './core.module.js';
import { AnalyticsWorkerModule } from './modules/analytics/index.js';
import { EventsWorkerModule } from './modules/events/index.js';
import { DataRightsWorkerModule } from './modules/data-rights/index.js';
import { AudienceJobsWorkerModule } from './modules/creatives/index.js';
import { EventCountersModule } from './modules/metrics/index.js';
import { PointsWorkerModule } from './modules/points/index.js';
import { RewardEffectsWorkerModule } from './modules/reward-effects/index.js';
import { TierReviewsWorkerModule } from './modules/evaluation/index.js';
import { SimulationsWorkerModule } from './modules/simulations/index.js';
import { WebhooksWorkerModule } from './modules/webhooks/index.js';

/** Each kind of work a worker process may take, and the modules that run it (processors and sweepers). */
const WORK: Record<WorkerQueue, Type[]> = {
  // The analytics fold of what the event path appends, and erasures' worker (it removes customers' events).
  events: [EventsWorkerModule, AnalyticsWorkerModule, DataRightsWorkerModule],
  // Rewards' effects ran on the webhooks queue before they had one of their own: a process that takes webhooks runs them.
  webhooks: [WebhooksWorkerModule, RewardEffectsWorkerModule],
  'reward-effects': [RewardEffectsWorkerModule],
  'audience-jobs': [AudienceJobsWorkerModule],
  // Points' expiry and tiers' reviews: the sweepers of balances and standings.
  points: [PointsWorkerModule, TierReviewsWorkerModule],
  simulations: [SimulationsWorkerModule],
};

/**
 * The worker process: queue processors (events, webhook deliveries, audience jobs, simulations, reward effects) and
 * sweepers, no HTTP listener. `queues` (WORKER_QUEUES) picks the work it takes: all of it by default; `npm start` runs
 * simulations in a process of their own (docs/operations.md).
 */
@Module({})
export class WorkerModule {
  static forQueues(queues: readonly WorkerQueue[] = WORKER_QUEUES): DynamicModule {
    return { module: WorkerModule, imports: [CoreModule, LoggingModule.forRoot('worker'), EventCountersModule, ...new Set(queues.flatMap((queue) => WORK[queue]))] };
  }
}
