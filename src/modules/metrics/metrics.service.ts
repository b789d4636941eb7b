import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { QueueName } from '../../queues/queue-names.js';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';
import { failuresMetricKey } from '../registry/index.js';
import { counterKey, EVENT_COUNTERS, EVENT_HISTOGRAMS, EventHistogram, histogramKey, LATENCY_BUCKETS } from './event-counters.js';
import { registerExpiryBacklogGauge, registerOutcomeCounters, registerPoolGauge, registerRewardEffectsGauges } from './service-gauges.js';

/**
 * Prometheus metrics of this API process (requests by route and status, their latency, its PostgreSQL pool, Node's
 * own), plus the cluster's event, webhook delivery, simulation and reward effect counters (from Redis), the events
 * queue's depth, the points expiry backlog and the reward effects open and dead, read at scrape time.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  constructor(
    @Inject(REDIS) redis: RedisClient,
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectQueue(QueueName.Events) queue: Queue,
    @InjectDataSource() db: DataSource,
    @Inject(CLOCK) clock: Clock,
  ) {
    collectDefaultMetrics({ register: this.registry });
    registerOutcomeCounters(this.registry, redis, config.queuePrefix);
    registerPoolGauge(this.registry, db);
    registerExpiryBacklogGauge(this.registry, db, clock);
    registerRewardEffectsGauges(this.registry, db, clock);
    new Gauge({
      name: 'events_total',
      help: 'Events by outcome across every process: accepted (stored), duplicates (ignored transaction ids), processed, rejected (unknown customer), failed (job attempts failed)',
      labelNames: ['outcome'],
      registers: [this.registry],
      async collect() {
        const values = await redis.mget(...EVENT_COUNTERS.map((name) => counterKey(config.queuePrefix, name))).catch(() => null);
        EVENT_COUNTERS.forEach((name, i) => this.set({ outcome: name }, Number(values?.[i] ?? 0)));
      },
    });
    new Gauge({
      name: 'events_queue_jobs',
      help: 'Jobs of the events queue by state',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed').catch(() => null);
        if (!counts) return;
        // Jobs queued at their organization's place (docs/queue.md) wait as `prioritized` in BullMQ: waiting all the same.
        const { prioritized = 0, ...rest } = counts;
        for (const [state, n] of Object.entries({ ...rest, waiting: (rest.waiting ?? 0) + prioritized })) this.set({ state }, n);
      },
    });
    new Gauge({
      name: 'extension_failures_total',
      help: "Extensions' throws and timeouts across every process, by extension (its name) and kind: criteria_operator and reward_kind (the campaign was skipped for the event; a reward's after-commit effect counts under its kind), event_enricher, domain_action",
      labelNames: ['extension', 'kind'],
      registers: [this.registry],
      async collect() {
        const counts = await redis.hgetall(failuresMetricKey(config.queuePrefix)).catch(() => null);
        for (const [key, n] of Object.entries(counts ?? {})) {
          const at = key.indexOf(':');
          this.set({ extension: key.slice(at + 1), kind: key.slice(0, at) }, Number(n));
        }
      },
    });
    for (const [name, help] of Object.entries(EVENT_HISTOGRAMS) as Array<[EventHistogram, string]>) {
      this.registry.registerMetric(sharedHistogram(name, help, () => redis.hgetall(histogramKey(config.queuePrefix, name)).catch(() => ({}))));
    }
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status });
    this.latency.observe({ method, route }, seconds);
  }
}

/**
 * A histogram whose bucket counts live in a Redis hash written by every process (EventCounters.observe), read at
 * scrape time: prom-client's own Histogram only knows this process's observations.
 */
function sharedHistogram(name: string, help: string, read: () => Promise<Record<string, string>>): Metric {
  return {
    name,
    help,
    async get() {
      const hash = await read();
      let cumulative = 0;
      const buckets = LATENCY_BUCKETS.map((le, i) => {
        cumulative += Number(hash[`b${i}`] ?? 0);
        return { metricName: `${name}_bucket`, labels: { le }, value: cumulative };
      });
      const count = Number(hash.count ?? 0);
      return {
        name,
        help,
        type: 'histogram',
        aggregator: 'sum',
        values: [
          ...buckets,
          { metricName: `${name}_bucket`, labels: { le: '+Inf' }, value: count },
          { metricName: `${name}_sum`, labels: {}, value: Number(hash.sum ?? 0) },
          { metricName: `${name}_count`, labels: {}, value: count },
        ],
      };
    },
  } as unknown as Metric;
}
