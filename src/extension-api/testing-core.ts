import type { INestApplication, INestApplicationContext, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { AppModule } from '../app.module.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { configureApp } from '../api/configure-app.js';
import type { AppConfig } from '../config/config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { useLimits } from '../config/limits.js';
import { WorkerModule } from '../worker.module.js';

/*
 * What the service's own tests (test/support/app.ts, database.ts, worker.ts) and the extension test kit
 * (./testing.ts, the entry extensions import) share: the API and the worker built for a test with a given config and
 * extra modules, a database of a test's own, and the removal of a Redis prefix's keys. Not part of the extension
 * surface: an extension imports ./testing.js, never this file. It uses @nestjs/testing, a dev dependency: nothing of
 * the service loads it in production.
 */

/**
 * The real API application (same modules, filter, pipes, body parser and Swagger as main.ts) on `config`, with
 * `modules` beside AppModule (as a team adds its extensions), served in-process for supertest. `clock` replaces the
 * system clock; `configure` gets the app and the document it serves before init (the service's tests check every
 * response against it).
 */
export async function buildTestApp(
  config: AppConfig,
  modules: Type[] = [],
  options: { clock?: Clock; configure?: (app: NestExpressApplication, document: OpenAPIObject) => void } = {},
): Promise<INestApplication> {
  useLimits(config.limits);
  let builder = Test.createTestingModule({ imports: [AppModule, ...modules] })
    .overrideProvider(APP_CONFIG)
    .useValue(config);
  if (options.clock) builder = builder.overrideProvider(CLOCK).useValue(options.clock);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  const document = configureApp(app, config);
  options.configure?.(app, document);
  await app.init();
  return app;
}

/**
 * The real worker (queue processors and sweepers of `config.workerQueues`, as src/worker.ts) in-process on `config`,
 * with `modules` beside its own. Close it with `close()`, which waits for the jobs it is running.
 */
export async function buildTestWorker(config: AppConfig, modules: Type[] = [], clock?: Clock): Promise<INestApplicationContext> {
  useLimits(config.limits);
  let builder = Test.createTestingModule({ imports: [WorkerModule.forQueues(config.workerQueues), ...modules] })
    .overrideProvider(APP_CONFIG)
    .useValue(config);
  if (clock) builder = builder.overrideProvider(CLOCK).useValue(clock);
  const moduleRef = await builder.compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  return moduleRef;
}

export { createDatabase, deleteRedisKeys, dropDatabase, onServer } from './testing-stores.js';
