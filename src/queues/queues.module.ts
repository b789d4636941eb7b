import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { queueTelemetry } from '../tracing.js';
import { queueConnection } from './queue-connection.js';
import { ListenedQueue, QueueErrorLogger } from './queue-errors.js';
import { QueueName } from './queue-names.js';

BullModule.queueClass = ListenedQueue;

/**
 * BullMQ connection and queue registration, shared by the API (producer only) and the worker (which adds processors).
 * QUEUE_PREFIX keeps runs, tests and tenants of one Redis apart. With tracing on (src/tracing.ts), BullMQ's own
 * telemetry traces adding and processing jobs, and each job carries the trace context from its add to its processing.
 */
@Global()
@Module({
  imports: [
    DiscoveryModule,
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ connection: queueConnection(config), prefix: config.queuePrefix, telemetry: queueTelemetry() }),
    }),
    BullModule.registerQueue(...Object.values(QueueName).map((name) => ({ name }))),
  ],
  providers: [QueueErrorLogger],
  exports: [BullModule],
})
export class QueuesModule {}
