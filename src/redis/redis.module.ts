import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { createRedisClient, type RedisClient, type RedisTarget } from './connection.js';

export const REDIS = Symbol('REDIS');

/**
 * A shared client for the service's own short Redis calls (rate limits, cache invalidation, health). It fails fast
 * instead of queueing commands while Redis is away, so callers can fall back at once.
 */
export function createRedis(target: RedisTarget): RedisClient {
  return createRedisClient(target, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        const redis = createRedis(config);
        redis.on('error', () => undefined); // reconnects on its own; callers see failures as rejected commands
        return redis;
      },
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
