import type { INestApplication, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module.js';
import { configureApp } from '../../src/common/http/configure-app.js';
import { APP_CONFIG } from '../../src/config/config.module.js';
import { AppConfig, loadConfig } from '../../src/config/config.js';
import { useLimits } from '../../src/config/limits.js';
import { validateResponses } from './response-validation.js';

/**
 * The real API application (same modules, filter, pipes, body parser and Swagger as main.ts) on this run's database
 * and Redis prefix, served in-process for supertest. `config` overrides single settings for one spec; `extensions` are
 * modules added beside AppModule, as a team adds its extensions (docs/decisions/0018-extension-surface.md).
 */
export async function createTestApp(config: Partial<AppConfig> = {}, extensions: Type[] = []): Promise<INestApplication> {
  const merged = { ...loadConfig(process.env), ...config };
  useLimits(merged.limits);
  const moduleRef = await Test.createTestingModule({ imports: [AppModule, ...extensions] })
    .overrideProvider(APP_CONFIG)
    .useValue(merged)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  validateResponses(app, configureApp(app, merged));
  await app.init();
  return app;
}
