import 'reflect-metadata';
import cluster from 'node:cluster';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { configureApp } from './api/configure-app.js';
import { listen } from './common/http/listen.js';
import { createLogger, NestPinoLogger } from './common/logging/logger.js';
import { configFromEnv } from './config/config.js';
import { checkPostgres, checkRedis } from './database/preflight.js';
import { checkExtensionsFound, ExtensionRegistry, loadExtensions, withExtensions } from './modules/registry/index.js';
import { runProcess } from './process.js';

/**
 * The API process, imported by src/main.ts once tracing has started (when configured). With API_PROCESSES > 1 this process forks that many API processes sharing the port (node:cluster), so one
 * machine's cores all serve HTTP; a process that dies is replaced.
 */
await runProcess('api', async () => {
  const config = configFromEnv();
  const logger = createLogger(config.logLevel, 'api');
  // Loaded here, before any fork: an entry that cannot be loaded stops the process instead of each API process in turn.
  const extensions = await loadExtensions(config.extensions);
  if (cluster.isPrimary && config.apiProcesses > 1) {
    const [warnings] = await Promise.all([checkPostgres(config.databaseUrl), checkRedis(config)]);
    for (const warning of warnings) logger.warn(warning);
    for (let i = 0; i < config.apiProcesses; i += 1) cluster.fork();
    let stopping = false;
    cluster.on('exit', (worker, code) => {
      if (stopping) return;
      logger.warn({ pid: worker.process.pid, code }, 'api process exited; starting another');
      cluster.fork();
    });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (!stopping) logger.info({ signal, processes: config.apiProcesses }, 'api stopping: passing the signal to the api processes');
        stopping = true;
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
      });
    }
    return;
  }
  if (cluster.isPrimary) {
    const [warnings] = await Promise.all([checkPostgres(config.databaseUrl), checkRedis(config)]);
    for (const warning of warnings) logger.warn(warning);
  }
  if (!config.adminToken && cluster.isPrimary) logger.warn('ADMIN_TOKEN is not set: the admin API answers 401 until it is');
  const root = withExtensions(AppModule, extensions);
  const app = await NestFactory.create<NestExpressApplication>(root, { bodyParser: false, logger: new NestPinoLogger(logger) });
  configureApp(app, config);
  checkExtensionsFound(config.extensions, app.get(ExtensionRegistry));
  // Nest's shutdown hooks (configureApp) close the app and exit on these signals; this says so first, once.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => logger.info({ signal, pid: process.pid }, 'api stopping: closing the HTTP server and connections'));
  }
  await listen(app, config.port);
  logger.info({ port: config.port, docs: `http://localhost:${config.port}/docs` }, 'api listening');
});
