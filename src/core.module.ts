import { Module } from '@nestjs/common';
import { ClockModule } from './common/clock.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { QueuesModule } from './queues/queues.module.js';
import { RedisModule } from './redis/redis.module.js';

/** What both processes share: configuration, the clock, PostgreSQL, Redis and the queues. */
@Module({ imports: [ConfigModule, ClockModule, DatabaseModule, RedisModule, QueuesModule] })
export class CoreModule {}
