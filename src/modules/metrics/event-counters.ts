import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';

/** Event counters and latency histograms shared by every API and worker process, kept in Redis so one scrape of any API sees them all. */
export const EVENT_COUNTERS = ['accepted', 'duplicates', 'processed', 'rejected', 'failed'] as const;
export type EventCounter = (typeof EVENT_COUNTERS)[number];

export function counterKey(prefix: string, name: EventCounter): string {
  return `${prefix}:metrics:events_${name}`;
}

/** Latency histograms shared the same way: bucket counts, sum and count in one Redis hash each. */
export const EVENT_HISTOGRAMS = {
  events_processing_lag_seconds: 'Seconds from an event stored to its evaluation committed by a worker, per event',
  events_job_duration_seconds: 'Seconds a worker spent on one job of the events queue',
} as const;
export type EventHistogram = keyof typeof EVENT_HISTOGRAMS;
/** Upper bounds (seconds) of the buckets, +Inf apart. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function histogramKey(prefix: string, name: EventHistogram): string {
  return `${prefix}:metrics:${name}`;
}

/**
 * Counters of the other queues' work, shared the same way: each one metric with an `outcome` label, counted by the
 * worker that did the work and served by every API.
 */
export const OUTCOME_COUNTERS = {
  webhook_deliveries_total: {
    help: 'Webhook delivery attempts across every worker, by outcome: delivered, retrying (the attempt failed, another will follow), failed (the last attempt failed)',
    outcomes: ['delivered', 'retrying', 'failed'],
  },
  simulations_total: {
    help: 'Simulation runs ended across every worker, by outcome: completed, cancelled, failed (a run that failed for good)',
    outcomes: ['completed', 'cancelled', 'failed'],
  },
  reward_effects_total: {
    help: "Attempts of rewards' after-commit effects across every worker, by outcome: done, retrying (the attempt failed, another will follow), dead (the last attempt failed)",
    outcomes: ['done', 'retrying', 'dead'],
  },
} as const;
export type OutcomeCounter = keyof typeof OUTCOME_COUNTERS;
export type Outcome<M extends OutcomeCounter> = (typeof OUTCOME_COUNTERS)[M]['outcomes'][number];

export function outcomeKey(prefix: string, metric: OutcomeCounter, outcome: string): string {
  return `${prefix}:metrics:${metric}:${outcome}`;
}

interface PendingHistogram {
  /** Observations per bucket, not cumulative; the last one is +Inf. */
  buckets: number[];
  sum: number;
  count: number;
}

const FLUSH_MS = 1000;

/**
 * Counts events, latency observations and other jobs' outcomes (OUTCOME_COUNTERS) locally and adds them to the shared
 * Redis counters once a second (no Redis round trip on the request path). A Redis outage loses counts, never a request;
 * counts pending at shutdown are flushed.
 */
@Injectable()
export class EventCounters implements OnModuleDestroy {
  private pending: Partial<Record<EventCounter, number>> = {};
  /** Outcome counts by their Redis key. */
  private outcomes = new Map<string, number>();
  private histograms = new Map<EventHistogram, PendingHistogram>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  add(counts: Partial<Record<EventCounter, number>>): void {
    for (const [name, n] of Object.entries(counts) as Array<[EventCounter, number]>) if (n > 0) this.pending[name] = (this.pending[name] ?? 0) + n;
  }

  /** One more job of another queue ended with this outcome (a webhook delivery attempt, a simulation run, a reward effect's attempt). */
  count<M extends OutcomeCounter>(metric: M, outcome: Outcome<M>): void {
    const key = outcomeKey(this.config.queuePrefix, metric, outcome);
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
  }

  observe(name: EventHistogram, seconds: number[]): void {
    if (seconds.length === 0) return;
    let h = this.histograms.get(name);
    if (!h) this.histograms.set(name, (h = { buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
    for (const value of seconds) {
      const bucket = LATENCY_BUCKETS.findIndex((le) => value <= le);
      h.buckets[bucket === -1 ? LATENCY_BUCKETS.length : bucket] += 1;
      h.sum += value;
      h.count += 1;
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  async flush(): Promise<void> {
    const entries = Object.entries(this.pending) as Array<[EventCounter, number]>;
    const histograms = [...this.histograms];
    const outcomes = [...this.outcomes];
    if (entries.length === 0 && histograms.length === 0 && outcomes.length === 0) return;
    this.pending = {};
    this.histograms = new Map();
    this.outcomes = new Map();
    const pipeline = this.redis.pipeline();
    for (const [name, n] of entries) pipeline.incrby(counterKey(this.config.queuePrefix, name), n);
    for (const [key, n] of outcomes) pipeline.incrby(key, n);
    for (const [name, h] of histograms) {
      const key = histogramKey(this.config.queuePrefix, name);
      h.buckets.forEach((n, i) => n > 0 && pipeline.hincrby(key, `b${i}`, n));
      pipeline.hincrby(key, 'count', h.count);
      pipeline.hincrbyfloat(key, 'sum', h.sum);
    }
    await pipeline.exec().catch(() => undefined);
  }
}
