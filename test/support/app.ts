import type { INestApplication, Type } from '@nestjs/common';
import type { Clock } from '../../src/common/clock.js';
import { AppConfig, loadConfig } from '../../src/config/config.js';
import { buildTestApp } from '../../src/extension-api/testing-core.js';
import { validateResponses } from './response-validation.js';

/**
 * The real API application (same modules, filter, pipes, body parser and Swagger as main.ts) on this run's database
 * and Redis prefix, served in-process for supertest. `config` overrides single settings for one spec; `extensions` are
 * modules added beside AppModule, as a team adds its extensions (docs/decisions/0018-extension-surface.md). `clock`
 * replaces the system clock (a SettableClock: the spec sets the time the service sees). Every response is checked
 * against the document the app serves (./response-validation.ts). Built as the extension test kit builds its app
 * (src/extension-api/testing-core.ts).
 */
export async function createTestApp(config: Partial<AppConfig> = {}, extensions: Type[] = [], clock?: Clock): Promise<INestApplication> {
  return buildTestApp({ ...loadConfig(process.env), ...config }, extensions, { clock, configure: validateResponses });
}
