import { Module } from '@nestjs/common';
import { ClockModule } from './common/clock.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { RegistryModule } from './modules/registry/index.js';
import { QueuesModule } from './queues/queues.module.js';
import { RedisModule } from './redis/redis.module.js';
import { TracingShutdown } from './tracing/tracing-shutdown.js';

/**
 * What both processes share: configuration, the clock, PostgreSQL, Redis, the queues and the extensions; and, when
 * tracing runs, the export of its last spans at shutdown.
 */
@Module({ imports: [ConfigModule, ClockModule, DatabaseModule, RedisModule, QueuesModule, RegistryModule], providers: [TracingShutdown] })
export class CoreModule {}
