import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Redis } from 'ioredis';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { REDIS } from '../../redis/redis.module.js';
import { AppError } from '../errors/app-error.js';

/**
 * RATE_LIMIT_PER_MINUTE requests per api key per clock minute, counted in Redis so every API process shares one
 * budget. When Redis cannot answer, requests pass (availability over strictness) rather than fail.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    if (!req.tenant) return true;
    const minute = Math.floor(Date.now() / 60_000);
    const key = `${this.config.queuePrefix}:rate:${req.tenant.apiKeyId}:${minute}`;
    let used: number;
    try {
      const results = await this.redis.multi().incr(key).expire(key, 120).exec();
      used = Number(results?.[0]?.[1] ?? 0);
    } catch {
      return true;
    }
    const limit = this.config.rateLimitPerMinute;
    res.setHeader('x-ratelimit-limit', limit);
    res.setHeader('x-ratelimit-remaining', Math.max(0, limit - used));
    if (used > limit) {
      res.setHeader('retry-after', 60 - Math.floor((Date.now() / 1000) % 60));
      throw new AppError('rate_limited', `more than ${limit} requests in one minute for this api key`);
    }
    return true;
  }
}
