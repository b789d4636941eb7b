import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeyGuard, basicCredentials } from './api-key.guard.js';
import { AppError } from '../errors/app-error.js';
import type { Tenant } from '../http/request-context.js';
import { BUSY, type ApiKeyVerifier } from './api-key-verifier.js';
import type { FailureCount, RateLimiter } from './rate-limiter.js';

const basic = (userPass: string, scheme = 'Basic') => `${scheme} ${Buffer.from(userPass, 'utf8').toString('base64')}`;

describe('basicCredentials', () => {
  it('reads api_key and api_secret from a valid header', () => {
    expect(basicCredentials(basic('3f9c2a7e5b1d4c8e9a0b6d2f4e1c7a5b:kq3Zx9-secret_value'))).toEqual({
      key: '3f9c2a7e5b1d4c8e9a0b6d2f4e1c7a5b',
      secret: 'kq3Zx9-secret_value',
    });
  });

  it('accepts the scheme name in any case', () => {
    expect(basicCredentials(basic('key:secret', 'basic'))).toEqual({ key: 'key', secret: 'secret' });
    expect(basicCredentials(basic('key:secret', 'BASIC'))).toEqual({ key: 'key', secret: 'secret' });
  });

  it('splits at the first colon, so a secret may contain colons', () => {
    expect(basicCredentials(basic('key:a:b::c:'))).toEqual({ key: 'key', secret: 'a:b::c:' });
  });

  it('keeps an empty secret or key as empty strings (the guard refuses them)', () => {
    expect(basicCredentials(basic('key:'))).toEqual({ key: 'key', secret: '' });
    expect(basicCredentials(basic(':secret'))).toEqual({ key: '', secret: 'secret' });
  });

  it('decodes UTF-8 credentials', () => {
    expect(basicCredentials(basic('clé:sécret€'))).toEqual({ key: 'clé', secret: 'sécret€' });
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['scheme only', 'Basic'],
    ['scheme and space only', 'Basic '],
  ])('returns null when the header is %s', (_label, header) => {
    expect(basicCredentials(header)).toBeNull();
  });

  it.each([
    ['Bearer', basic('key:secret', 'Bearer')],
    ['Digest', basic('key:secret', 'Digest')],
    ['no scheme', Buffer.from('key:secret').toString('base64')],
    ['scheme glued to the value', `Basic${Buffer.from('key:secret').toString('base64')}`],
  ])('returns null for another or no scheme: %s', (_label, header) => {
    expect(basicCredentials(header)).toBeNull();
  });

  it('returns null when the decoded value has no colon', () => {
    expect(basicCredentials(basic('keyonly'))).toBeNull();
    expect(basicCredentials(basic(''))).toBeNull();
  });

  it.each(['Basic a2V5$c2VjcmV0', 'Basic a2V5OnNlY3JldA==!', 'Basic a2V5 OnNlY3JldA==', 'Basic ***', 'Basic a2V5OnNlY3JldA==\n'])(
    'returns null for characters outside base64: %j',
    (header) => {
      expect(basicCredentials(header)).toBeNull();
    },
  );
});

describe('ApiKeyGuard', () => {
  const tenant: Tenant = {
    organizationId: 1,
    applicationId: 2,
    apiKeyId: 3,
    apiKey: 'abc123',
    multiOrgEnabled: false,
    timeZone: 'UTC',
    rootDivisionId: 4,
  };

  const FAILURE_LIMIT = 3;

  /** A failed-attempt budget in memory, as the RateLimiter keeps it (per key and address, FAILURE_LIMIT a minute). */
  function fakeLimiter() {
    const failures = new Map<string, number>();
    const count = (id: string): FailureCount => ({ used: failures.get(id) ?? 0, limit: FAILURE_LIMIT, resetSeconds: 42, scope: 'credential' });
    return {
      failures,
      failuresOf: jest.fn((key: string, address: string) => count(`${key}|${address}`)),
      recordFailure: jest.fn((key: string, address: string) => {
        failures.set(`${key}|${address}`, (failures.get(`${key}|${address}`) ?? 0) + 1);
        return count(`${key}|${address}`);
      }),
      hit: jest.fn(),
    };
  }

  function setup(
    params: Record<string, string>,
    authorization: string | undefined,
    verified: Tenant | null | typeof BUSY,
    options: { limiter?: ReturnType<typeof fakeLimiter>; ip?: string; cached?: Tenant | null } = {},
  ) {
    const verify = jest.fn(async (_key: string, _secret: string): Promise<Tenant | null | typeof BUSY> => verified);
    const verifyCached = jest.fn((_key: string, _secret: string): Tenant | null => options.cached ?? null);
    const limiter = options.limiter ?? fakeLimiter();
    const guard = new ApiKeyGuard({ verify, verifyCached } as unknown as ApiKeyVerifier, limiter as unknown as RateLimiter);
    const headers: Record<string, unknown> = {};
    const req = {
      params,
      ip: options.ip ?? '203.0.113.7',
      header: (name: string) => (name.toLowerCase() === 'authorization' ? authorization : undefined),
    } as unknown as Request;
    const res = { setHeader: (name: string, value: unknown) => (headers[name] = value) };
    const context = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ExecutionContext;
    return { guard, verify, verifyCached, limiter, req, context, headers };
  }

  async function refusal(promise: Promise<boolean>): Promise<AppError> {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      return error as AppError;
    }
    throw new Error('the guard let the request in');
  }

  it('lets a matching key with a verified secret in and attaches the tenant', async () => {
    const { guard, verify, req, context } = setup({ api_key: 'abc123' }, basic('abc123:s3cret'), tenant);
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(verify).toHaveBeenCalledWith('abc123', 's3cret');
    expect(req.tenant).toEqual(tenant);
  });

  it.each([
    ['no Authorization header', { api_key: 'abc123' }, undefined],
    ['a Bearer header', { api_key: 'abc123' }, basic('abc123:s3cret', 'Bearer')],
    ['a path key different from the Basic user', { api_key: 'abc123' }, basic('other:s3cret')],
    ['an empty secret', { api_key: 'abc123' }, basic('abc123:')],
    ['no :api_key path segment', {}, basic('abc123:s3cret')],
  ])('answers unauthorized without checking the secret for %s', async (_label, params, header) => {
    const { guard, verify, req, context } = setup(params, header, tenant);
    const error = await refusal(guard.canActivate(context));
    expect(error.code).toBe('unauthorized');
    expect(error.status).toBe(401);
    expect(verify).not.toHaveBeenCalled();
    expect(req.tenant).toBeUndefined();
  });

  it('answers the same unauthorized when the key service refuses (unknown, inactive key or wrong secret)', async () => {
    const refused = setup({ api_key: 'abc123' }, basic('abc123:wrong'), null);
    const refusedError = await refusal(refused.guard.canActivate(refused.context));
    const missing = setup({ api_key: 'abc123' }, undefined, tenant);
    const missingError = await refusal(missing.guard.canActivate(missing.context));
    expect(refused.verify).toHaveBeenCalledWith('abc123', 'wrong');
    expect(refusedError.code).toBe('unauthorized');
    expect(refusedError.message).toBe(missingError.message);
    expect(refused.req.tenant).toBeUndefined();
  });

  describe('failed attempts: a budget per key and source address, apart from the request budget', () => {
    it('counts every refusal for the path key and the address, and never spends the request budget', async () => {
      const limiter = fakeLimiter();
      for (const [header, verified] of [
        [basic('abc123:wrong'), null],
        [undefined, tenant],
        [basic('other:s3cret'), tenant],
      ] as const) {
        const { guard, context } = setup({ api_key: 'abc123' }, header, verified, { limiter });
        expect((await refusal(guard.canActivate(context))).code).toBe('unauthorized');
      }
      expect([...limiter.failures]).toEqual([['malformed|203.0.113.7', 3]]);
      expect(limiter.hit).not.toHaveBeenCalled();
    });

    it('counts a key of the api key form under its own name', async () => {
      const key = '0123456789abcdef0123456789abcdef';
      const { guard, context, limiter } = setup({ api_key: key }, basic(`${key}:wrong`), null);
      await refusal(guard.canActivate(context));
      expect([...limiter.failures]).toEqual([[`${key}|203.0.113.7`, 1]]);
    });

    it('does not count a success', async () => {
      const { guard, context, limiter } = setup({ api_key: 'abc123' }, basic('abc123:s3cret'), tenant);
      await expect(guard.canActivate(context)).resolves.toBe(true);
      expect(limiter.recordFailure).not.toHaveBeenCalled();
    });

    it(`answers 429 rate_limited with retry-after to a source over the budget, without verifying the secret`, async () => {
      const limiter = fakeLimiter();
      limiter.failures.set('malformed|203.0.113.7', FAILURE_LIMIT);
      const { guard, context, verify, headers, req } = setup({ api_key: 'abc123' }, basic('abc123:another-guess'), null, { limiter });
      const error = await refusal(guard.canActivate(context));
      expect({ code: error.code, status: error.status }).toEqual({ code: 'rate_limited', status: 429 });
      expect(headers['retry-after']).toBe(42);
      expect(verify).not.toHaveBeenCalled();
      expect(req.tenant).toBeUndefined();
      expect(limiter.failures.get('malformed|203.0.113.7')).toBe(FAILURE_LIMIT);
    });

    it('still verifies requests from another address for the same key', async () => {
      const limiter = fakeLimiter();
      limiter.failures.set('malformed|203.0.113.7', FAILURE_LIMIT);
      const { guard, context, verify } = setup({ api_key: 'abc123' }, basic('abc123:s3cret'), tenant, { limiter, ip: '198.51.100.9' });
      await expect(guard.canActivate(context)).resolves.toBe(true);
      expect(verify).toHaveBeenCalledWith('abc123', 's3cret');
    });

    it('answers 429 with retry-after 1 when the process hashes as many secrets as it may, not counted as a failure', async () => {
      const { guard, context, limiter, headers, req } = setup({ api_key: 'abc123' }, basic('abc123:s3cret'), BUSY);
      const error = await refusal(guard.canActivate(context));
      expect({ code: error.code, status: error.status, message: error.message }).toEqual({ code: 'rate_limited', status: 429, message: 'too many authentications at once; retry in a second' });
      expect(headers['retry-after']).toBe(1);
      expect(limiter.recordFailure).not.toHaveBeenCalled();
      expect(req.tenant).toBeUndefined();
    });

    it('lets a source over the budget in with the right secret of a key verified recently (the cache, no hashing)', async () => {
      const limiter = fakeLimiter();
      limiter.failures.set('malformed|203.0.113.7', FAILURE_LIMIT);
      const { guard, context, verify, verifyCached, req } = setup({ api_key: 'abc123' }, basic('abc123:s3cret'), null, { limiter, cached: tenant });
      await expect(guard.canActivate(context)).resolves.toBe(true);
      expect(verifyCached).toHaveBeenCalledWith('abc123', 's3cret');
      expect(verify).not.toHaveBeenCalled();
      expect(req.tenant).toEqual(tenant);
    });
  });
});
