import type { INestApplication, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module.js';
import { configureApp } from '../../src/common/http/configure-app.js';
import { APP_CONFIG } from '../../src/config/config.module.js';
import { CLOCK, type Clock } from '../../src/common/clock.js';
import { AppConfig, loadConfig } from '../../src/config/config.js';
import { useLimits } from '../../src/config/limits.js';
import { validateResponses } from './response-validation.js';

/**
 * The real API application (same modules, filter, pipes, body parser and Swagger as main.ts) on this run's database
 * and Redis prefix, served in-process for supertest. `config` overrides single settings for one spec; `extensions` are
 * modules added beside AppModule, as a team adds its extensions (docs/decisions/0018-extension-surface.md). `clock`
 * replaces the system clock (a SettableClock: the spec sets the time the service sees).
 */
export async function createTestApp(config: Partial<AppConfig> = {}, extensions: Type[] = [], clock?: Clock): Promise<INestApplication> {
  const merged = { ...loadConfig(process.env), ...config };
  useLimits(merged.limits);
  let builder = Test.createTestingModule({ imports: [AppModule, ...extensions] })
    .overrideProvider(APP_CONFIG)
    .useValue(merged);
  if (clock) builder = builder.overrideProvider(CLOCK).useValue(clock);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  validateResponses(app, configureApp(app, merged));
  await app.init();
  return app;
}
