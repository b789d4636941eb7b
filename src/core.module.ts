import { Module } from '@nestjs/common';
import { ClockModule } from './common/clock.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { ExtensionsModule } from './modules/extensions/extensions.module.js';
import { QueuesModule } from './queues/queues.module.js';
import { RedisModule } from './redis/redis.module.js';

/** What both processes share: configuration, the clock, PostgreSQL, Redis, the queues and the extensions. */
@Module({ imports: [ConfigModule, ClockModule, DatabaseModule, RedisModule, QueuesModule, ExtensionsModule] })
export class CoreModule {}
