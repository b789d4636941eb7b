import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { createLogger, NestPinoLogger } from './common/logging/logger.js';
import { configFromEnv } from './config/config.js';
import { checkPostgres, checkRedis } from './database/preflight.js';
import { runProcess } from './process.js';
import { WorkerModule } from './worker.module.js';

await runProcess('worker', async () => {
  const config = configFromEnv();
  await Promise.all([checkPostgres(config.databaseUrl), checkRedis(config.redisUrl)]);
  const logger = createLogger(config.logLevel, 'worker');
  const app = await NestFactory.createApplicationContext(WorkerModule, { logger: new NestPinoLogger(logger) });
  app.enableShutdownHooks(undefined, { useProcessExit: true });
  logger.info({ queue_prefix: config.queuePrefix }, 'worker ready');
});
