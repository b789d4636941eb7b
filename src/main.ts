import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { configureApp } from './common/http/configure-app.js';
import { createLogger, NestPinoLogger } from './common/logging/logger.js';
import { loadConfig } from './config/config.js';
import { checkPostgres, checkRedis } from './database/preflight.js';
import { runProcess } from './process.js';

await runProcess('api', async () => {
  const config = loadConfig(process.env);
  await Promise.all([checkPostgres(config.databaseUrl), checkRedis(config.redisUrl)]);
  const logger = createLogger(config.logLevel, 'api');
  if (!config.adminToken) logger.warn('ADMIN_TOKEN is not set: the admin API answers 401 until it is');
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bodyParser: false, logger: new NestPinoLogger(logger) });
  configureApp(app, config);
  await app.listen(config.port);
  logger.info({ port: config.port, docs: `http://localhost:${config.port}/docs` }, 'api listening');
});
