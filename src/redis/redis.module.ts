import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';

export const REDIS = Symbol('REDIS');

/**
 * A shared client for the service's own short Redis calls (rate limits, cache invalidation, health). It fails fast
 * instead of queueing commands while Redis is away, so callers can fall back at once.
 */
export function createRedis(url: string, options: { lazy?: boolean } = {}): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    lazyConnect: options.lazy ?? false,
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
        const redis = createRedis(config.redisUrl);
        redis.on('error', () => undefined); // reconnects on its own; callers see failures as rejected commands
        return redis;
      },
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
