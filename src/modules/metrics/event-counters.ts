import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { REDIS } from '../../redis/redis.module.js';

/** Event counters shared by every API and worker process, kept in Redis so one scrape of any API sees them all. */
export const EVENT_COUNTERS = ['accepted', 'duplicates', 'processed', 'rejected', 'failed'] as const;
export type EventCounter = (typeof EVENT_COUNTERS)[number];

export function counterKey(prefix: string, name: EventCounter): string {
  return `${prefix}:metrics:events_${name}`;
}

const FLUSH_MS = 1000;

/**
 * Counts events locally and adds the counts to the shared Redis counters once a second (no Redis round trip on the
 * request path). A Redis outage loses counts, never a request; counts pending at shutdown are flushed.
 */
@Injectable()
export class EventCounters implements OnModuleDestroy {
  private pending: Partial<Record<EventCounter, number>> = {};
  private readonly timer: NodeJS.Timeout;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  add(counts: Partial<Record<EventCounter, number>>): void {
    for (const [name, n] of Object.entries(counts) as Array<[EventCounter, number]>) if (n > 0) this.pending[name] = (this.pending[name] ?? 0) + n;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  async flush(): Promise<void> {
    const entries = Object.entries(this.pending) as Array<[EventCounter, number]>;
    if (entries.length === 0) return;
    this.pending = {};
    const pipeline = this.redis.pipeline();
    for (const [name, n] of entries) pipeline.incrby(counterKey(this.config.queuePrefix, name), n);
    await pipeline.exec().catch(() => undefined);
  }
}
