import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '../errors/app-error.js';
import { ApiKeyVerifier, BUSY, isApiKeyForm } from './api-key-verifier.js';
import { RateLimiter, type FailureCount } from './rate-limiter.js';

/** Parses `Authorization: Basic base64(api_key:api_secret)`; null when absent or malformed. */
export function basicCredentials(header: string | undefined): { key: string; secret: string } | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { key: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/** The 429 of a source over a failure budget (`credential` says whose, when it is the credential's). */
export function tooManyFailures(res: Response, failures: FailureCount, credential: string): AppError {
  res.setHeader('retry-after', failures.resetSeconds);
  const whose = failures.scope === 'address' ? 'from this address' : credential;
  return new AppError('rate_limited', `more than ${failures.limit} failed authentications in one minute ${whose}`);
}

/** The source of a request for the failed-attempt budget: Express's req.ip (see TRUST_PROXY), else the socket's. */
export function sourceAddress(req: Request): string {
  return req.ip ?? req.socket?.remoteAddress ?? 'unknown';
}

/**
 * Every /priv route: the :api_key path segment and HTTP Basic `api_key:api_secret` must name the same active key
 * with its secret. Unknown key, inactive key, missing or wrong secret all answer the same 401.
 *
 * Failed attempts have budgets of their own, per path key and source address and per source address over all keys
 * (AUTH_FAILURES_PER_MINUTE each, see RateLimiter): they never spend the key's request budget. Once a source is over
 * either, its requests answer 429 without a secret being hashed, until the minute turns; only the right secret of a
 * key verified recently (answered from the cache, no hashing) still gets in, so a guesser behind the same address as
 * a working client does not lock that client out. Other sources are not affected. When the process already hashes
 * AUTH_VERIFICATIONS_AT_ONCE secrets, a request that needs one more answers 429 (retry after a second), not counted
 * as a failure.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly apiKeys: ApiKeyVerifier,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const pathKey = req.params.api_key;
    const credentials = basicCredentials(req.header('authorization'));
    const denied = () => new AppError('unauthorized', 'unknown or inactive api key, or missing or wrong api secret');
    if (typeof pathKey !== 'string') throw denied();
    // A path that names no possible key shares one budget per address (no counter per made-up key).
    const budgetKey = isApiKeyForm(pathKey) ? pathKey : 'malformed';
    const address = sourceAddress(req);
    const usable = credentials !== null && credentials.key === pathKey && credentials.secret.length > 0;

    const failures = this.limiter.failuresOf(budgetKey, address);
    if (failures.used >= failures.limit) {
      const tenant = usable ? this.apiKeys.verifyCached(pathKey, credentials.secret) : null;
      if (!tenant) throw tooManyFailures(http.getResponse<Response>(), failures, 'for this api key from this address');
      req.tenant = tenant;
      return true;
    }

    const tenant = usable ? await this.apiKeys.verify(pathKey, credentials.secret) : null;
    if (tenant === BUSY) {
      http.getResponse<Response>().setHeader('retry-after', 1);
      throw new AppError('rate_limited', 'too many authentications at once; retry in a second');
    }
    if (!tenant) {
      this.limiter.recordFailure(budgetKey, address);
      throw denied();
    }
    req.tenant = tenant;
    return true;
  }
}
