import type { Request, Response } from 'express';
import type { AppConfig } from '../../config/config.js';
import { AppError } from '../../common/errors/app-error.js';
import { sourceAddress, tooManyFailures } from '../../common/auth/api-key.guard.js';
import type { RateLimiter } from '../../common/auth/rate-limiter.js';
import { safeEqual } from './secrets.js';

/**
 * ADMIN_TOKEN checked for the admin API and the queue dashboard: compared in constant time, with the failed-attempt
 * budgets of the source address (AUTH_FAILURES_PER_MINUTE for the admin token from it, and as many over every
 * credential). A source over either is answered 429 until the minute turns, whatever token it sends: the token is
 * chosen by people and may be guessable, so no answer may tell a guesser over budget that a guess was right.
 * Throws the AppError to answer; without ADMIN_TOKEN the admin API is closed.
 */
export function checkAdminToken(token: string, req: Request, res: Response, config: AppConfig, limiter: RateLimiter): void {
  if (!config.adminToken) throw new AppError('unauthorized', 'the admin API is disabled: set ADMIN_TOKEN to enable it');
  const address = sourceAddress(req);
  const failures = limiter.failuresOf('admin', address);
  if (failures.used >= failures.limit) throw tooManyFailures(res, failures, 'for the admin token from this address');
  if (safeEqual(token, config.adminToken)) return;
  limiter.recordFailure('admin', address);
  throw new AppError('unauthorized', 'unauthorized');
}
