import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';

/** Redis as a terminus health indicator: up when it answers PING within the timeout. */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  async pingCheck<Key extends string>(key: Key, timeoutMs: number) {
    const indicator = this.indicators.check(key);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), timeoutMs).unref();
    });
    try {
      await Promise.race([this.redis.ping(), timeout]);
      return indicator.up();
    } catch {
      return indicator.down({ message: 'unreachable' });
    } finally {
      clearTimeout(timer);
    }
  }
}
