import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/config.js';
import type { Logger } from '../../common/logging/logger.js';

// Every comparison of a secret must go through crypto.timingSafeEqual: watch it, without changing what it does.
// Checked by what is called, never by measuring time.
const crypto = await import('node:crypto');
const timingSafeEqual = jest.fn(crypto.timingSafeEqual);
jest.unstable_mockModule('node:crypto', () => ({ ...crypto, timingSafeEqual }));

const { hashSecret, safeEqual, verifySecret } = await import('./secrets.js');
const { AdminGuard } = await import('./admin.guard.js');
const { ApiKeyService } = await import('./api-key.service.js');
const { AppError } = await import('../../common/errors/app-error.js');

/** The lengths of the buffers of each timingSafeEqual call since the last reset. */
const comparedLengths = () => timingSafeEqual.mock.calls.map(([a, b]) => [(a as Buffer).length, (b as Buffer).length]);

beforeEach(() => timingSafeEqual.mockClear());

describe('safeEqual', () => {
  it.each([
    ['equal strings', 'test-admin-token-0123456789', 'test-admin-token-0123456789', true],
    ['a different last character', 'test-admin-token-0123456789', 'test-admin-token-012345678x', false],
    ['a shorter string', 'test-admin-token-0123456789', 'test', false],
    ['a longer string', 'test', 'test-admin-token-0123456789', false],
    ['an empty string', '', 'test-admin-token-0123456789', false],
    ['two empty strings', '', '', true],
  ])('%s → %s, through one timingSafeEqual of two equal-length digests', (_label, a, b, expected) => {
    expect(safeEqual(a, b)).toBe(expected);
    expect(comparedLengths()).toEqual([[32, 32]]);
  });
});

describe('verifySecret', () => {
  it('compares the scrypt hash through timingSafeEqual, for the right and for a wrong secret', async () => {
    const stored = await hashSecret('the-secret');
    timingSafeEqual.mockClear();
    await expect(verifySecret('the-secret', stored)).resolves.toBe(true);
    await expect(verifySecret('the-secreT', stored)).resolves.toBe(false);
    expect(comparedLengths()).toEqual([
      [32, 32],
      [32, 32],
    ]);
  });
});

describe('AdminGuard', () => {
  const token = 'test-admin-token-0123456789';
  const guard = new AdminGuard({ adminToken: token } as AppConfig);
  const context = (authorization: string | undefined) =>
    ({ switchToHttp: () => ({ getRequest: () => ({ header: () => authorization }) }) }) as unknown as ExecutionContext;

  it('lets the right token in through one timingSafeEqual', () => {
    expect(guard.canActivate(context(`Bearer ${token}`))).toBe(true);
    expect(comparedLengths()).toEqual([[32, 32]]);
  });

  it.each([
    ['no header', undefined],
    ['an empty token', 'Bearer '],
    ['a token one character short', `Bearer ${token.slice(0, -1)}`],
    ['a token one character long', `Bearer ${token}x`],
    ['a wrong last character', `Bearer ${token.slice(0, -1)}x`],
    ['another scheme', `Basic ${token}`],
  ])('refuses %s with unauthorized, still comparing in constant time', (_label, header) => {
    expect(() => guard.canActivate(context(header))).toThrow(AppError);
    expect(comparedLengths()).toEqual([[32, 32]]);
  });
});

describe('ApiKeyService.verify', () => {
  const key = '0123456789abcdef0123456789abcdef';

  async function service() {
    const row = {
      id: 1,
      key,
      secret_hash: await hashSecret('right-secret'),
      active: true,
      organization_id: 2,
      application_id: 3,
      multi_org_enabled: false,
      time_zone: 'UTC',
      root_division_id: 4,
    };
    const query = jest.fn(async () => [row]);
    const config = { queuePrefix: 'timing-safe-spec', apiKeyCacheSeconds: 30 } as AppConfig;
    return { keys: new ApiKeyService({ query } as unknown as DataSource, {} as Redis, config, {} as Logger), query };
  }

  it('compares a cached secret through timingSafeEqual of two SHA-256 digests, right or wrong', async () => {
    const { keys } = await service();
    await expect(keys.verify(key, 'right-secret')).resolves.toEqual(expect.objectContaining({ organizationId: 2, apiKey: key }));
    timingSafeEqual.mockClear();
    await expect(keys.verify(key, 'wrong-secret')).resolves.toBeNull();
    await expect(keys.verify(key, 'right-secret')).resolves.toEqual(expect.objectContaining({ organizationId: 2 }));
    await expect(keys.verify(key, '')).resolves.toBeNull();
    expect(comparedLengths()).toEqual([
      [32, 32],
      [32, 32],
      [32, 32],
    ]);
  });

  it('compares an uncached secret through the scrypt hash', async () => {
    const { keys } = await service();
    await expect(keys.verify(key, 'wrong-secret')).resolves.toBeNull();
    expect(comparedLengths()).toEqual([[32, 32]]);
  });

  it('refuses a path key that is not of the api key form without any query', async () => {
    const { keys, query } = await service();
    for (const other of ["' OR 1=1 --", 'a\u0000b', key.toUpperCase(), `${key}0`]) await expect(keys.verify(other, 'right-secret')).resolves.toBeNull();
    expect(query).not.toHaveBeenCalled();
    expect(timingSafeEqual).not.toHaveBeenCalled();
  });
});
