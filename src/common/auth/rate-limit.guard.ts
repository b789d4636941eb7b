import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '../errors/app-error.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * RATE_LIMIT_PER_MINUTE requests per api key (see RateLimiter), counted by the path's api key before its secret is
 * checked, so wrong secrets are limited too (each costs a scrypt hash). Answers carry the x-ratelimit headers.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const apiKey = req.params.api_key;
    if (typeof apiKey !== 'string') return true;
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
