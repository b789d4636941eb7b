import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import type { ExtensionFailureRecord } from '../../engine/index.js';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';

/** What an extension's failure counts under: `<kind>:<name>` (`criteria_operator:within_km`). */
export type FailureKey = `${string}:${string}`;

/** An extension's failures in an organization, as the listing answers them. */
export interface FailureSummary {
  count: number;
  last_error: string;
  last_failed_at: string;
  last_campaign_id: number | null;
}

interface Pending {
  count: number;
  last: Omit<FailureSummary, 'count'>;
}

const FLUSH_MS = 1000;
const LOG_EVERY_MS = 1000;
/** How long an organization's failure counts are kept after the last one. */
const KEEP_SECONDS = 7 * 24 * 3600;

export const failuresMetricKey = (prefix: string) => `${prefix}:metrics:extension_failures_total`;
const organizationKey = (prefix: string, organizationId: number) => `${prefix}:extensions:failures:${organizationId}`;

/** An extension's failure outside the engine (an enricher, a domain action, an effect): what record() takes besides. */
export type ExtensionCallFailure = Omit<ExtensionFailureRecord, 'kind' | 'campaignId' | 'eventIndex'> & {
  kind: 'event_enricher' | 'domain_action' | 'reward_kind';
  campaignId?: number | null;
};

/**
 * Where extensions' failures go once the evaluation that met them has settled (decision 0025): a log line with the
 * extension's name and the stack (at most one a second per extension and process, saying how many it left out), the
 * metric `extension_failures_total{extension,kind}` shared by every process, and each organization's counts and last
 * error for `GET .../management/extensions`. Counted locally and added to Redis once a second, as the event counters
 * are: a Redis outage loses counts, never an evaluation. Kept per organization: an error's text may hold its data.
 */
@Injectable()
export class ExtensionFailures implements OnModuleDestroy {
  private totals = new Map<FailureKey, number>();
  private organizations = new Map<number, Map<FailureKey, Pending>>();
  private readonly logged = new Map<FailureKey, { at: number; left: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  record(organizationId: number, failures: ReadonlyArray<ExtensionFailureRecord | ExtensionCallFailure>, log: Record<string, unknown> = {}): void {
    if (failures.length === 0) return;
    const now = this.clock.now();
    const organization = this.organizations.get(organizationId) ?? new Map<FailureKey, Pending>();
    this.organizations.set(organizationId, organization);
    for (const f of failures) {
      const key: FailureKey = `${f.kind}:${f.extension}`;
      this.totals.set(key, (this.totals.get(key) ?? 0) + 1);
      const last = { last_error: `${f.call} at ${f.at}: ${f.message}`, last_failed_at: new Date(now).toISOString(), last_campaign_id: f.campaignId ?? null };
      organization.set(key, { count: (organization.get(key)?.count ?? 0) + 1, last });
      this.log(key, f, { ...log, organization_id: organizationId }, now);
    }
  }

  /** The organization's failures by `<kind>:<name>`; null when Redis cannot be read. */
  async of(organizationId: number): Promise<Map<FailureKey, FailureSummary> | null> {
    const hash = await this.redis.hgetall(organizationKey(this.config.queuePrefix, organizationId)).catch(() => null);
    if (!hash) return null;
    const out = new Map<FailureKey, FailureSummary>();
    for (const [field, value] of Object.entries(hash)) {
      if (!field.endsWith(':count')) continue;
      const key = field.slice(0, -':count'.length) as FailureKey;
      const last = JSON.parse(hash[`${key}:last`] ?? 'null') as Omit<FailureSummary, 'count'> | null;
      out.set(key, { count: Number(value), last_error: last?.last_error ?? '', last_failed_at: last?.last_failed_at ?? '', last_campaign_id: last?.last_campaign_id ?? null });
    }
    return out;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  async flush(): Promise<void> {
    if (this.totals.size === 0) return;
    const [totals, organizations] = [this.totals, this.organizations];
    this.totals = new Map();
    this.organizations = new Map();
    const prefix = this.config.queuePrefix;
    const pipeline = this.redis.pipeline();
    for (const [key, n] of totals) pipeline.hincrby(failuresMetricKey(prefix), key, n);
    for (const [organizationId, failures] of organizations) {
      const hash = organizationKey(prefix, organizationId);
      for (const [key, { count, last }] of failures) {
        pipeline.hincrby(hash, `${key}:count`, count);
        pipeline.hset(hash, `${key}:last`, JSON.stringify(last));
      }
      pipeline.expire(hash, KEEP_SECONDS);
    }
    await pipeline.exec().catch(() => undefined);
  }

  private log(key: FailureKey, f: ExtensionFailureRecord | ExtensionCallFailure, context: Record<string, unknown>, now: number): void {
    const seen = this.logged.get(key);
    if (seen && now - seen.at < LOG_EVERY_MS) {
      seen.left += 1;
      return;
    }
    this.logged.set(key, { at: now, left: 0 });
    const error = f.error instanceof Error ? f.error : new Error(String(f.error));
    this.logger.warn(
      {
        ...context,
        extension: f.extension,
        source: f.source,
        kind: f.kind,
        call: f.call,
        at: f.at,
        campaign_id: f.campaignId ?? null,
        ...('eventIndex' in f ? { event_index: f.eventIndex } : {}),
        repeated: seen?.left ?? 0,
        err: { type: error.name, message: error.message, stack: error.stack },
      },
      'eventIndex' in f ? 'extension failed; its campaign skipped for the event' : 'extension failed',
    );
  }
}
