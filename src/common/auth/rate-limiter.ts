import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';

const FLUSH_MS = 200;

interface Window {
  minute: number;
  /** Requests every process has reported for this minute, as Redis last answered. */
  shared: number;
  /** Requests this process counted and has not reported yet. */
  unreported: number;
}

/**
 * Requests per api key per clock minute, shared by every API process through Redis without a Redis round trip per
 * request: each process counts locally and reports its counts every 200 ms (INCRBY), learning the others' totals in
 * the answer. A burst spread over several processes can overshoot the limit by what they admit within 200 ms. When
 * Redis cannot answer, each process still limits what it counted itself.
 */
@Injectable()
export class RateLimiter implements OnModuleDestroy {
  private readonly windows = new Map<string, Window>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.timer = setInterval(() => void this.report(), FLUSH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Counts one request; answers how many the key has made this minute, this one included. */
  hit(apiKey: string, now = Date.now()): { used: number; limit: number; resetSeconds: number } {
    const minute = Math.floor(now / 60_000);
    let window = this.windows.get(apiKey);
    if (!window || window.minute !== minute) {
      window = { minute, shared: 0, unreported: 0 };
      this.windows.set(apiKey, window);
    }
    window.unreported += 1;
    return { used: window.shared + window.unreported, limit: this.config.rateLimitPerMinute, resetSeconds: 60 - Math.floor((now / 1000) % 60) };
  }

  private async report(): Promise<void> {
    const pending = [...this.windows].filter(([, w]) => w.unreported > 0);
    const current = Math.floor(Date.now() / 60_000);
    for (const [id, w] of this.windows) if (w.minute < current && w.unreported === 0) this.windows.delete(id);
    if (pending.length === 0) return;
    const pipeline = this.redis.pipeline();
    const sent = pending.map(([id, w]) => {
      const key = `${this.config.queuePrefix}:rate:${id}:${w.minute}`;
      pipeline.incrby(key, w.unreported).expire(key, 120);
      return { window: w, count: w.unreported };
    });
    for (const s of sent) s.window.unreported -= s.count;
    try {
      const results = await pipeline.exec();
      sent.forEach((s, i) => {
        const total = Number(results?.[i * 2]?.[1] ?? NaN);
        if (Number.isFinite(total)) s.window.shared = Math.max(s.window.shared, total);
      });
    } catch {
      for (const s of sent) s.window.shared += s.count; // Redis away: keep what this process counted
    }
  }
}
