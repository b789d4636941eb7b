import 'reflect-metadata';
import { getPriority, setPriority } from 'node:os';
import type { INestApplicationContext } from '@nestjs/common';
import { DiscoveryService, NestFactory } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';
import type { Worker } from 'bullmq';
import { createLogger, LOGGER, NestPinoLogger, type Logger } from './common/logging/logger.js';
import { configFromEnv } from './config/config.js';
import { checkPostgres, checkRedis } from './database/preflight.js';
import { checkExtensionsFound, ExtensionRegistry, loadExtensions, withExtensions } from './modules/registry/index.js';
import { runProcess } from './process.js';
import { WorkerModule } from './worker.module.js';

/** The worker process, imported by src/worker.ts once tracing has started (when configured). */
const SHUTDOWN_GRACE_MS = 25_000;

/** The process's BullMQ workers: one per queue processor (@Processor), as @nestjs/bullmq created them. */
function queueWorkers(app: INestApplicationContext): Worker[] {
  return app
    .get(DiscoveryService)
    .getProviders()
    .map((wrapper): unknown => wrapper.instance)
    .filter((instance): instance is WorkerHost => instance instanceof WorkerHost)
    .map((host) => host.worker);
}

await runProcess('worker', async () => {
  const config = configFromEnv();
  const [warnings] = await Promise.all([checkPostgres(config.databaseUrl), checkRedis(config)]);
  const root = withExtensions(WorkerModule.forQueues(config.workerQueues), await loadExtensions(config.extensions));
  const app = await NestFactory.createApplicationContext(root, { logger: new NestPinoLogger(createLogger(config.logLevel, 'worker')) });
  checkExtensionsFound(config.extensions, app.get(ExtensionRegistry));
  // The service's own lines go through the logger the job lines use: one stream, so stdout keeps the order they were
  // logged in (two pino instances write asynchronously, each on its own, and may interleave out of order).
  const logger = app.get<Logger>(LOGGER);
  for (const warning of warnings) logger.warn(warning);
  const workers = queueWorkers(app);
  // On SIGTERM (or SIGINT) the queue workers stop taking jobs at once, and the stop waits for the jobs in flight;
  // only then does the application close (counters flushed, sweepers stopped, connections closed), so those jobs
  // still have all they use. Nest's own shutdown hooks are not used for this: @nestjs/bullmq closes its workers in
  // onApplicationShutdown, the last hook, and until then a worker keeps taking jobs (a job that completes fetches
  // the next one), so jobs started after the signal. Past SHUTDOWN_GRACE_MS the process exits anyway (a job cut short
  // stays in Redis and is taken again as stalled: processing is idempotent).
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, grace_ms: SHUTDOWN_GRACE_MS }, 'worker stopping: finishing jobs in flight');
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    // Worker.close() marks the worker closing before it first awaits: from here no job is fetched.
    Promise.all(workers.map((worker) => worker.close()))
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ signal, err: error instanceof Error ? error.message : String(error) }, 'worker stop failed');
          process.exit(1);
        },
      );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, stop);
  // A process of simulations alone yields the cores to the events worker beside it (WORKER_NICE).
  if (config.workerNice > 0) setPriority(Math.max(getPriority(), config.workerNice));
  // Ready means listening: each queue worker's connections (the blocking one included) are up.
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  logger.info({ queue_prefix: config.queuePrefix, concurrency: config.workerConcurrency, queues: config.workerQueues, nice: getPriority() }, 'worker ready');
});
