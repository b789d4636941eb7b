import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { createLogger, NestPinoLogger } from './common/logging/logger.js';
import { configFromEnv } from './config/config.js';
import { checkPostgres, checkRedis } from './database/preflight.js';
import { runProcess } from './process.js';
import { WorkerModule } from './worker.module.js';

const SHUTDOWN_GRACE_MS = 25_000;

await runProcess('worker', async () => {
  const config = configFromEnv();
  await Promise.all([checkPostgres(config.databaseUrl), checkRedis(config)]);
  const logger = createLogger(config.logLevel, 'worker');
  const app = await NestFactory.createApplicationContext(WorkerModule, { logger: new NestPinoLogger(logger) });
  app.enableShutdownHooks(undefined, { useProcessExit: true });
  // On SIGTERM the workers stop taking jobs and wait for the ones in flight; past SHUTDOWN_GRACE_MS the process
  // exits anyway (a job cut short stays in Redis and is taken again as stalled: processing is idempotent).
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal, grace_ms: SHUTDOWN_GRACE_MS }, 'worker stopping: finishing jobs in flight');
      setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    });
  }
  logger.info({ queue_prefix: config.queuePrefix, concurrency: config.workerConcurrency }, 'worker ready');
});
