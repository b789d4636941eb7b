import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '../clock.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';

const FLUSH_MS = 200;

interface Window {
  minute: number;
  /** Counts every process has reported for this minute, as Redis last answered. */
  shared: number;
  /** Counts this process made and has not reported yet. */
  unreported: number;
  /** Counts this process is reporting now (not yet in `shared`: Redis has not answered). */
  reporting: number;
}

export interface MinuteCount {
  /** This minute's count, this hit included. */
  used: number;
  limit: number;
  /** Seconds until the minute turns. */
  resetSeconds: number;
}

/**
 * Counts per id per clock minute, shared by every API process through Redis without a Redis round trip per count:
 * each process counts locally and reports its counts every 200 ms (INCRBY under `<QUEUE_PREFIX>:<name>:<id>:<minute>`),
 * learning the others' totals in the answer. A burst spread over several processes can overshoot a limit by what
 * they admit within 200 ms. When Redis cannot answer, each process still limits what it counted itself.
 */
class MinuteCounter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly name: string,
    private readonly limit: () => number,
  ) {}

  /** Counts one; answers the minute's count, this one included. */
  hit(id: string, now: number): MinuteCount {
    const window = this.window(id, now, true)!;
    window.unreported += 1;
    return this.count(window, now);
  }

  /** The minute's count so far, without counting. */
  peek(id: string, now: number): MinuteCount {
    const window = this.window(id, now, false);
    return window ? this.count(window, now) : { used: 0, limit: this.limit(), resetSeconds: resetSeconds(now) };
  }

  private window(id: string, now: number, create: boolean): Window | undefined {
    const minute = Math.floor(now / 60_000);
    let window = this.windows.get(id);
    if (window && window.minute === minute) return window;
    if (!create) return undefined;
    window = { minute, shared: 0, unreported: 0, reporting: 0 };
    this.windows.set(id, window);
    return window;
  }

  private count(window: Window, now: number): MinuteCount {
    return { used: window.shared + window.reporting + window.unreported, limit: this.limit(), resetSeconds: resetSeconds(now) };
  }

  async report(redis: RedisClient, prefix: string, now: number): Promise<void> {
    const pending = [...this.windows].filter(([, w]) => w.unreported > 0);
    const current = Math.floor(now / 60_000);
    for (const [id, w] of this.windows) if (w.minute < current && w.unreported === 0 && w.reporting === 0) this.windows.delete(id);
    if (pending.length === 0) return;
    const pipeline = redis.pipeline();
    const sent = pending.map(([id, w]) => {
      const key = `${prefix}:${this.name}:${id}:${w.minute}`;
      pipeline.incrby(key, w.unreported).expire(key, 120);
      return { window: w, count: w.unreported };
    });
    // Counted as `reporting` until Redis answers: the count never dips while the report is on its way.
    for (const s of sent) {
      s.window.unreported -= s.count;
      s.window.reporting += s.count;
    }
    try {
      const results = await pipeline.exec();
      sent.forEach((s, i) => {
        const total = Number(results?.[i * 2]?.[1] ?? NaN);
        s.window.shared = Number.isFinite(total) ? Math.max(s.window.shared, total) : s.window.shared + s.count;
      });
    } catch {
      for (const s of sent) s.window.shared += s.count; // Redis away: keep what this process counted
    } finally {
      for (const s of sent) s.window.reporting -= s.count;
    }
  }
}

function resetSeconds(now: number): number {
  return 60 - Math.floor((now / 1000) % 60);
}

/** A failure budget's count, and which budget it is: the credential's from that address, or the address's over all. */
export interface FailureCount extends MinuteCount {
  scope: 'credential' | 'address';
}

/**
 * Budgets per clock minute, shared by every API process (see MinuteCounter):
 * - requests: RATE_LIMIT_PER_MINUTE authenticated requests per api key;
 * - failures: AUTH_FAILURES_PER_MINUTE failed authentications per credential (an api key, or the admin token) and
 *   source address, and as many per source address over every credential (made-up keys each have a budget of their
 *   own, the address's is one); kept apart from the requests so that wrong secrets never spend the key's own request
 *   budget, and one source that guesses is stopped alone.
 */
@Injectable()
export class RateLimiter implements OnModuleDestroy {
  private readonly requests: MinuteCounter;
  private readonly failures: MinuteCounter;
  private readonly timer: NodeJS.Timeout;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    this.requests = new MinuteCounter('rate', () => config.rateLimitPerMinute);
    this.failures = new MinuteCounter('auth-fail', () => config.authFailuresPerMinute);
    this.timer = setInterval(() => void this.report(), FLUSH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Counts one authenticated request of the key; answers how many it has made this minute, this one included. */
  hit(apiKey: string, now = this.clock.now()): MinuteCount {
    return this.requests.hit(apiKey, now);
  }

  /**
   * Failed authentications from the address this minute: for the credential (an api key, `malformed`, or `admin`) and
   * over every credential; answers the fuller of the two budgets.
   */
  failuresOf(credential: string, address: string, now = this.clock.now()): FailureCount {
    const own = this.failures.peek(failureId(credential, address), now);
    const all = this.failures.peek(addressId(address), now);
    return all.used > own.used ? { ...all, scope: 'address' } : { ...own, scope: 'credential' };
  }

  /** Counts one failed authentication for the credential from the address (in both of its budgets). */
  recordFailure(credential: string, address: string, now = this.clock.now()): FailureCount {
    const own = this.failures.hit(failureId(credential, address), now);
    const all = this.failures.hit(addressId(address), now);
    return all.used > own.used ? { ...all, scope: 'address' } : { ...own, scope: 'credential' };
  }

  private async report(): Promise<void> {
    await Promise.all([this.requests.report(this.redis, this.config.queuePrefix, this.clock.now()), this.failures.report(this.redis, this.config.queuePrefix, this.clock.now())]);
  }
}

function failureId(credential: string, address: string): string {
  return `${credential}:${address}`;
}

/** The address's budget over every credential (no credential is `*`). */
function addressId(address: string): string {
  return `*:${address}`;
}
