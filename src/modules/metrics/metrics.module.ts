import { Global, Module } from '@nestjs/common';
import { EventCounters } from './event-counters.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';

/** /metrics on the API. */
@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService, EventCounters], exports: [MetricsService, EventCounters] })
export class MetricsModule {}

/** Event counters only, for the worker (which serves no HTTP). */
@Global()
@Module({ providers: [EventCounters], exports: [EventCounters] })
export class EventCountersModule {}
