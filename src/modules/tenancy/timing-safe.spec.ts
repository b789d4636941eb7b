import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/config.js';
import type { Logger } from '../../common/logging/logger.js';
import { SettableClock, systemClock } from '../../common/clock.js';

// Every comparison of a secret must go through crypto.timingSafeEqual: watch it, without changing what it does.
// Checked by what is called, never by measuring time.
const crypto = await import('node:crypto');
const timingSafeEqual = jest.fn(crypto.timingSafeEqual);
// Watched the same way: which secrets go through scrypt (the work that costs the time of a refusal).
const scrypt = jest.fn(crypto.scrypt);
jest.unstable_mockModule('node:crypto', () => ({ ...crypto, timingSafeEqual, scrypt }));

const { hashSecret, safeEqual, verifySecret } = await import('./secrets.js');
const { AdminGuard } = await import('./admin.guard.js');
const { RateLimiter } = await import('../../common/auth/rate-limiter.js');
const { ApiKeyService } = await import('./api-key.service.js');
const { BUSY } = await import('../../common/auth/api-key-verifier.js');
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
  // A budget far from reached: what is checked here is the comparison.
  const pipeline = { incrby: () => pipeline, expire: () => pipeline, exec: async () => [] };
  const limiter = new RateLimiter({ pipeline: () => pipeline } as unknown as Redis, { authFailuresPerMinute: 1000, queuePrefix: 'timing-safe-spec' } as AppConfig);
  afterAll(() => limiter.onModuleDestroy());
  const guard = new AdminGuard({ adminToken: token } as AppConfig, limiter);
  const context = (authorization: string | undefined) =>
    ({
      switchToHttp: () => ({ getRequest: () => ({ header: () => authorization, ip: '203.0.113.7' }), getResponse: () => ({ setHeader: () => undefined }) }),
    }) as unknown as ExecutionContext;

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

  async function service(options: { active?: boolean; known?: boolean } = {}) {
    const row = {
      id: 1,
      key,
      secret_hash: await hashSecret('right-secret'),
      organization_id: 2,
      application_id: 3,
      multi_org_enabled: false,
      time_zone: 'UTC',
      root_division_id: 4,
      active: options.active ?? true,
    };
    const query = jest.fn(async () => (options.known === false ? [] : [row]));
    const config = { queuePrefix: 'timing-safe-spec', apiKeyCacheSeconds: 30 } as AppConfig;
    return { keys: new ApiKeyService({ query } as unknown as DataSource, {} as Redis, config, {} as Logger, systemClock), query };
  }

  it('compares a cached secret through timingSafeEqual of two SHA-256 digests, right or wrong (a wrong one then through scrypt)', async () => {
    const { keys } = await service();
    await expect(keys.verify(key, 'right-secret')).resolves.toEqual(expect.objectContaining({ organizationId: 2, apiKey: key }));
    timingSafeEqual.mockClear();
    await expect(keys.verify(key, 'wrong-secret')).resolves.toBeNull();
    await expect(keys.verify(key, 'right-secret')).resolves.toEqual(expect.objectContaining({ organizationId: 2 }));
    await expect(keys.verify(key, '')).resolves.toBeNull();
    expect(comparedLengths()).toEqual([
      [32, 32], // wrong-secret: the cached digest
      [32, 32], // wrong-secret: the scrypt hash
      [32, 32], // right-secret: the cached digest only
      [32, 32], // '': the cached digest
      [32, 32], // '': the scrypt hash
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

  describe('the same work for every refusal, so its time does not tell which keys exist (counted, never timed)', () => {
    /** Database lookups and scrypt runs of `secret` that one verify did. */
    async function work(keys: InstanceType<typeof ApiKeyService>, query: jest.Mock, secret: string) {
      query.mockClear();
      scrypt.mockClear();
      const tenant = await keys.verify(key, secret);
      return { tenant, lookups: query.mock.calls.length, scrypts: scrypt.mock.calls.filter(([password]) => password === secret).length };
    }

    const REFUSED = { tenant: null, lookups: 1, scrypts: 1 };

    it('an unknown key: one lookup and one scrypt verification, against a dummy hash of the same cost', async () => {
      const { keys, query } = await service({ known: false });
      expect(await work(keys, query, 'any-secret')).toEqual(REFUSED);
      const [, salt, keyLength, params] = scrypt.mock.calls.find(([password]) => password === 'any-secret')!;
      expect({ saltBytes: (salt as Buffer).length, keyLength, params }).toEqual({ saltBytes: 16, keyLength: 32, params: { N: 16384, r: 8, p: 1 } });
    });

    it('a known key with a wrong secret: the same one lookup and one scrypt verification', async () => {
      const { keys, query } = await service();
      expect(await work(keys, query, 'wrong-secret')).toEqual(REFUSED);
    });

    it('an inactive key, with its right secret or a wrong one: the same work', async () => {
      const { keys, query } = await service({ active: false });
      expect(await work(keys, query, 'right-secret')).toEqual(REFUSED);
      expect(await work(keys, query, 'wrong-secret')).toEqual(REFUSED);
    });

    it('a wrong secret for a cached key: the same work; the right secret still answers from the cache without either', async () => {
      const { keys, query } = await service();
      expect(await work(keys, query, 'right-secret')).toEqual({ tenant: expect.objectContaining({ organizationId: 2 }), lookups: 1, scrypts: 1 });
      expect(await work(keys, query, 'wrong-secret')).toEqual(REFUSED);
      expect(await work(keys, query, 'right-secret')).toEqual({ tenant: expect.objectContaining({ organizationId: 2 }), lookups: 0, scrypts: 0 });
    });

    describe('secrets hashed at once', () => {
      async function keysWith(atOnce: number) {
        const row = { id: 1, key, secret_hash: await hashSecret('right-secret'), active: true, organization_id: 2, application_id: 3, multi_org_enabled: false, time_zone: 'UTC', root_division_id: 4 };
        const query = jest.fn(async () => [row]);
        const config = { queuePrefix: 'timing-safe-spec', apiKeyCacheSeconds: 30, authVerificationsAtOnce: atOnce } as AppConfig;
        return { keys: new ApiKeyService({ query } as unknown as DataSource, {} as Redis, config, {} as Logger, systemClock), query };
      }
      const scryptsOf = (secret: string) => scrypt.mock.calls.filter(([password]) => password === secret).length;

      it('requests with the same key and secret at the same moment share one lookup and one scrypt', async () => {
        const { keys, query } = await keysWith(2);
        scrypt.mockClear();
        const answers = await Promise.all(Array.from({ length: 10 }, () => keys.verify(key, 'right-secret')));
        expect(answers.every((a) => a !== null && a !== BUSY && a.organizationId === 2)).toBe(true);
        expect({ lookups: query.mock.calls.length, scrypts: scryptsOf('right-secret') }).toEqual({ lookups: 1, scrypts: 1 });
      });

      it('past AUTH_VERIFICATIONS_AT_ONCE, a verification that needs a hash answers BUSY without hashing', async () => {
        const { keys } = await keysWith(1);
        scrypt.mockClear();
        const answers = await Promise.all([keys.verify(key, 'guess-1'), keys.verify(key, 'guess-2'), keys.verify(key, 'right-secret')]);
        expect(answers).toEqual([null, BUSY, BUSY]);
        expect([scryptsOf('guess-1'), scryptsOf('guess-2'), scryptsOf('right-secret')]).toEqual([1, 0, 0]);
        // Once the hash is done, the next one is verified.
        await expect(keys.verify(key, 'right-secret')).resolves.toEqual(expect.objectContaining({ organizationId: 2 }));
      });
    });

    describe('past API_KEY_CACHE_SECONDS', () => {
      /** A verified right secret, then the clock moved past its cache entry; the row can be changed before each lookup. */
      async function expired() {
        const clock = new SettableClock(Date.UTC(2026, 0, 1));
        const row = { id: 1, key, secret_hash: await hashSecret('right-secret'), active: true, organization_id: 2, application_id: 3, multi_org_enabled: false, time_zone: 'UTC', root_division_id: 4 };
        const query = jest.fn(async () => [{ ...row }]);
        const keys = new ApiKeyService({ query } as unknown as DataSource, {} as Redis, { queuePrefix: 'timing-safe-spec', apiKeyCacheSeconds: 30 } as AppConfig, {} as Logger, clock);
        await keys.verify(key, 'right-secret');
        clock.advance(30_000);
        return { keys, query, row };
      }

      it('the right secret of an unchanged key: one lookup (what the tenant holds read again), no scrypt', async () => {
        const { keys, query, row } = await expired();
        row.time_zone = 'Europe/Paris';
        expect(await work(keys, query, 'right-secret')).toEqual({ tenant: expect.objectContaining({ organizationId: 2, timeZone: 'Europe/Paris' }), lookups: 1, scrypts: 0 });
        expect(await work(keys, query, 'right-secret')).toEqual({ tenant: expect.objectContaining({ timeZone: 'Europe/Paris' }), lookups: 0, scrypts: 0 });
      });

      it('a key deactivated meanwhile (no invalidation received): refused, with the work of every refusal', async () => {
        const { keys, query, row } = await expired();
        row.active = false;
        expect(await work(keys, query, 'right-secret')).toEqual(REFUSED);
      });

      it('a secret replaced meanwhile: the old one goes through scrypt against the new hash and is refused', async () => {
        const { keys, query, row } = await expired();
        row.secret_hash = await hashSecret('new-secret');
        expect(await work(keys, query, 'right-secret')).toEqual(REFUSED);
        expect(await work(keys, query, 'new-secret')).toEqual({ tenant: expect.objectContaining({ organizationId: 2 }), lookups: 1, scrypts: 1 });
      });

      it('a wrong secret: the same work as every refusal', async () => {
        const { keys, query } = await expired();
        expect(await work(keys, query, 'wrong-secret')).toEqual(REFUSED);
      });
    });

    it('without the cache (API_KEY_CACHE_SECONDS=0) the right secret costs the same lookup and scrypt every time', async () => {
      const row = { id: 1, key, secret_hash: await hashSecret('right-secret'), active: true, organization_id: 2, application_id: 3, multi_org_enabled: false, time_zone: 'UTC', root_division_id: 4 };
      const query = jest.fn(async () => [row]);
      const keys = new ApiKeyService({ query } as unknown as DataSource, {} as Redis, { queuePrefix: 'timing-safe-spec', apiKeyCacheSeconds: 0 } as AppConfig, {} as Logger, systemClock);
      for (let i = 0; i < 2; i++) expect(await work(keys, query, 'right-secret')).toEqual({ tenant: expect.objectContaining({ organizationId: 2 }), lookups: 1, scrypts: 1 });
    });
  });
});
