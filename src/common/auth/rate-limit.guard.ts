import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '../errors/app-error.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * RATE_LIMIT_PER_MINUTE requests per api key (see RateLimiter). Runs after ApiKeyGuard, so only authenticated
 * requests count: wrong secrets have their own budget per key and source (ApiKeyGuard) and cannot spend this one.
 * Authenticated answers carry the x-ratelimit headers (a 401 does not: the key's usage is none of a stranger's business).
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const apiKey = req.tenant?.apiKey;
    if (apiKey === undefined) return true;
    const res = http.getResponse<Response>();
    const { used, limit, resetSeconds } = this.limiter.hit(apiKey);
    res.setHeader('x-ratelimit-limit', limit);
    res.setHeader('x-ratelimit-remaining', Math.max(0, limit - used));
    if (used > limit) {
      res.setHeader('retry-after', resetSeconds);
      throw new AppError('rate_limited', `more than ${limit} requests in one minute for this api key`);
    }
    return true;
  }
}
