import { Module } from '@nestjs/common';
import { LoggingModule } from './common/logging/logging.module.js';
import { CoreModule } from './core.module.js';
import { EventsWorkerModule } from './modules/events/events-worker.module.js';
import { AudienceJobsWorkerModule } from './modules/creatives/audience-jobs/audience-jobs-worker.module.js';
import { EventCountersModule } from './modules/metrics/metrics.module.js';
import { PointsWorkerModule } from './modules/points/points-worker.module.js';
import { SimulationsWorkerModule } from './modules/simulations/simulations-worker.module.js';
import { WebhooksWorkerModule } from './modules/webhooks/webhooks-worker.module.js';

/** The worker process: queue processors (events, webhook deliveries, audience jobs, simulations) and their sweepers, no HTTP listener. */
@Module({ imports: [CoreModule, LoggingModule.forRoot('worker'), EventCountersModule, EventsWorkerModule, WebhooksWorkerModule, AudienceJobsWorkerModule, PointsWorkerModule, SimulationsWorkerModule] })
export class WorkerModule {}
