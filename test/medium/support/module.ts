import type { INestApplicationContext, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { CLOCK, SettableClock } from '../../../src/common/clock.js';
import { LoggingModule } from '../../../src/common/logging/logging.module.js';
import { APP_CONFIG } from '../../../src/config/config.module.js';
import { AppConfig, loadConfig } from '../../../src/config/config.js';
import { CoreModule } from '../../../src/core.module.js';
import { EvaluationModule } from '../../../src/modules/evaluation/evaluation.module.js';
import { V1EventsUseCase } from '../../../src/modules/events/v1-events.use-case.js';
import { EventCountersModule } from '../../../src/modules/metrics/metrics.module.js';

/** 2026-03-02T00:00:00Z, a Monday: where a medium spec's clock starts unless told. */
export const START = Date.UTC(2026, 2, 2);

export interface MediumContext {
  app: INestApplicationContext;
  db: DataSource;
  clock: SettableClock;
  close(): Promise<void>;
}

/**
 * The evaluation pipeline without HTTP: the worker's core modules (config, clock, PostgreSQL, Redis, queues), logging,
 * event counters, EvaluationModule and V1EventsUseCase, on this run's database and Redis prefix. The clock is a
 * SettableClock the spec moves; `config` overrides single settings (databasePoolSize, ...); `modules` adds a spec's own.
 */
export async function createMediumContext(config: Partial<AppConfig> = {}, at = START, modules: Array<Type<unknown>> = []): Promise<MediumContext> {
  const clock = new SettableClock(at);
  const moduleRef = await Test.createTestingModule({
    imports: [CoreModule, LoggingModule.forRoot('worker'), EventCountersModule, EvaluationModule, ...modules],
    providers: [V1EventsUseCase],
  })
    .overrideProvider(APP_CONFIG)
    .useValue({ ...loadConfig(process.env), ...config })
    .overrideProvider(CLOCK)
    .useValue(clock)
    .compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  return { app: moduleRef, db: moduleRef.get(DataSource), clock, close: () => moduleRef.close() };
}
