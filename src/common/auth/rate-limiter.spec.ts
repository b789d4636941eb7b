import { RateLimiter } from './rate-limiter.js';
import { SettableClock } from '../clock.js';
import type { AppConfig } from '../../config/config.js';
import type { RedisClient } from '../../redis/connection.js';

describe('RateLimiter: the request budget and the failed-attempt budget', () => {
  const KEY = '0123456789abcdef0123456789abcdef';
  const NOW = Date.UTC(2026, 0, 5, 10, 0, 15);
  let limiter: RateLimiter;

  beforeEach(() => {
    // Reports to Redis are not what is checked here: a pipeline that answers nothing.
    const pipeline = { incrby: () => pipeline, expire: () => pipeline, exec: async () => [] };
    const redis = { pipeline: () => pipeline } as unknown as RedisClient;
    limiter = new RateLimiter(redis, { rateLimitPerMinute: 5, authFailuresPerMinute: 3, queuePrefix: 'rate-limiter-spec' } as AppConfig);
  });
  afterEach(() => limiter.onModuleDestroy());

  it('counts failures per key and address, apart from the requests of the key', () => {
    expect(limiter.failuresOf(KEY, '203.0.113.7', NOW)).toEqual({ used: 0, limit: 3, resetSeconds: 45, scope: 'credential' });
    expect(limiter.recordFailure(KEY, '203.0.113.7', NOW).used).toBe(1);
    expect(limiter.recordFailure(KEY, '203.0.113.7', NOW).used).toBe(2);
    expect(limiter.failuresOf(KEY, '203.0.113.7', NOW)).toEqual({ used: 2, limit: 3, resetSeconds: 45, scope: 'credential' });
    expect(limiter.failuresOf(KEY, '198.51.100.9', NOW).used).toBe(0);
    // The key's request budget is untouched by its failures.
    expect(limiter.hit(KEY, NOW)).toEqual({ used: 1, limit: 5, resetSeconds: 45 });
  });

  it('counts failures per address over every key too: made-up keys each have a budget, the address has one', () => {
    const madeUp = ['11111111111111111111111111111111', '22222222222222222222222222222222', 'admin'];
    for (const key of madeUp) expect(limiter.recordFailure(key, '203.0.113.7', NOW).used).toBe(madeUp.indexOf(key) + 1);
    // A fourth key, never tried from there: the address's budget is spent.
    expect(limiter.failuresOf(KEY, '203.0.113.7', NOW)).toEqual({ used: 3, limit: 3, resetSeconds: 45, scope: 'address' });
    expect(limiter.failuresOf(KEY, '198.51.100.9', NOW)).toEqual({ used: 0, limit: 3, resetSeconds: 45, scope: 'credential' });
  });

  it('does not count failures as requests, nor requests as failures', () => {
    for (let i = 0; i < 4; i++) limiter.hit(KEY, NOW);
    expect(limiter.failuresOf(KEY, '203.0.113.7', NOW).used).toBe(0);
  });

  it('starts both budgets again when the minute turns', () => {
    limiter.recordFailure(KEY, '203.0.113.7', NOW);
    limiter.hit(KEY, NOW);
    expect(limiter.failuresOf(KEY, '203.0.113.7', NOW + 60_000).used).toBe(0);
    expect(limiter.hit(KEY, NOW + 60_000).used).toBe(1);
  });

  it('keeps counting what it is reporting while Redis has not answered (no dip between a report and its answer)', async () => {
    let answer!: (results: Array<[null, number]>) => void;
    // Resolves when the limiter sends its report (its own 200 ms timer), which Redis then leaves unanswered.
    let reported!: () => void;
    const sent = new Promise<void>((resolve) => (reported = resolve));
    const pipeline = {
      incrby: () => pipeline,
      expire: () => pipeline,
      exec: () =>
        new Promise((resolve) => {
          answer = resolve;
          reported();
        }),
    };
    const reporting = new RateLimiter({ pipeline: () => pipeline } as unknown as RedisClient, {
      rateLimitPerMinute: 5,
      authFailuresPerMinute: 3,
      queuePrefix: 'rate-limiter-spec',
    } as AppConfig, new SettableClock(NOW));
    try {
      for (let i = 0; i < 3; i++) reporting.recordFailure(KEY, '203.0.113.7');
      await sent; // a report is on its way
      expect(reporting.failuresOf(KEY, '203.0.113.7').used).toBe(3);
      answer([[null, 3], [null, 1]]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(reporting.failuresOf(KEY, '203.0.113.7').used).toBe(3);
    } finally {
      reporting.onModuleDestroy();
    }
  });
});
