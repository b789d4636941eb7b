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
import { RewardEffectsWorkerModule } from './modules/reward-effects/reward-effects-worker.module.js';
import { TierReviewsWorkerModule } from './modules/evaluation/tier-reviews-worker.module.js';
import { SimulationsWorkerModule } from './modules/simulations/simulations-worker.module.js';
import { WebhooksWorkerModule } from './modules/webhooks/webhooks-worker.module.js';

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
