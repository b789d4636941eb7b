import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import type { Job, Queue } from 'bullmq';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { OrganizationBacklog } from '../../queues/organization-backlog.js';
import { ApiSaturation, SATURATION_EVERY_MS } from '../../queues/api-saturation.js';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';
import { QueueName } from '../../queues/queue-names.js';
import { EventCounters } from '../metrics/index.js';
import { queueJobs, type EvaluateJobData } from './enqueue.js';
import type { EventKey } from '../evaluation/index.js';
import { EVALUATION_FAILED } from '../../database/entities/event.entity.js';
import { StoredEventsEvaluation } from '../evaluation/index.js';
import { markActiveSpan, ORGANIZATION_ATTRIBUTE, REQUEST_ID_ATTRIBUTE } from '../../tracing.js';

/**
 * The worker side of the events queue: each job names stored events to evaluate (one JSON log line per job). It takes
 * WORKER_CONCURRENCY jobs at once, and one while an API process says its event loop is saturated (ApiSaturation): on
 * a machine the API shares, event processing then yields the cores to the requests.
 */
@Processor(QueueName.Events)
export class EventsProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly backlog: OrganizationBacklog;
  private readonly saturation: ApiSaturation;
  private following: NodeJS.Timeout | undefined;

  constructor(
    private readonly evaluation: StoredEventsEvaluation,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly counters: EventCounters,
    @InjectQueue(QueueName.Events) private readonly eventsQueue: Queue,
    @Inject(REDIS) redis: RedisClient,
  ) {
    super();
    this.backlog = new OrganizationBacklog(eventsQueue);
    this.saturation = new ApiSaturation(redis, config.queuePrefix, () => performance.now());
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.workerConcurrency;
    this.following = setInterval(() => void this.followApi(), SATURATION_EVERY_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.following);
  }

  /** One job at a time while an API process is saturated, WORKER_CONCURRENCY otherwise. */
  private async followApi(): Promise<void> {
    const concurrency = (await this.saturation.anySaturated()) ? 1 : this.config.workerConcurrency;
    if (this.worker.concurrency === concurrency) return;
    this.worker.concurrency = concurrency;
    this.logger.info({ concurrency }, concurrency === 1 ? 'an API process is saturated: one events job at a time' : 'events jobs at full concurrency again');
  }

  async process(job: Job<EvaluateJobData>): Promise<void> {
    // With tracing on, the job's span (BullMQ's, in the trace of the request that queued it) names both.
    markActiveSpan({ [REQUEST_ID_ATTRIBUTE]: job.data.requestId, [ORGANIZATION_ATTRIBUTE]: job.data.organizationId });
    let ended = true;
    try {
      await this.evaluate(job);
    } catch (error) {
      ended = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      throw error;
    } finally {
      // Counted out of its organization's backlog once it ends: done, split, or failed for the last time.
      const { organizationId, inBacklog } = job.data;
      if (ended && inBacklog && organizationId !== undefined) {
        await this.backlog.done(organizationId).catch((error: Error) => this.logger.warn({ job_id: job.id, err: error.message }, 'backlog not counted down'));
      }
    }
  }

  private async evaluate(job: Job<EvaluateJobData>): Promise<void> {
    const started = process.hrtime.bigint();
    let keys: EventKey[] = [];
    try {
      keys = await this.keys(job.data);
      const { lagSeconds, deliveries, ...summary } = await this.evaluation.execute(keys, { job_id: job.id });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.counters.observe('events_processing_lag_seconds', lagSeconds);
      this.counters.observe('events_job_duration_seconds', [seconds]);
      this.logger.info({ job_id: job.id, job: job.name, events: job.data.eventIds.length, ...summary, webhook_deliveries: deliveries, duration_ms: seconds * 1000 }, 'job');
    } catch (error) {
      // A job of several customers evaluates them in one transaction: one customer's failure must not hold back (or,
      // out of attempts, fail) the others. Split it into one job per customer; each then retries, or fails, alone.
      const customers = keys.length ? await this.evaluation.pendingByCustomer(keys).catch(() => []) : [];
      if (customers.length > 1) {
        const { organizationId } = job.data;
        await queueJobs(this.eventsQueue, customers.map((keys) => ({ organizationId, keys })), job.name, `split-${job.id}`, true, job.data.requestId);
        this.logger.warn({ job_id: job.id, job: job.name, customers: customers.length, err: (error as Error).message }, 'job failed; split into one job per customer');
        return;
      }
      this.counters.add({ failed: job.data.eventIds.length });
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      this.logger.warn({ job_id: job.id, job: job.name, attempt: job.attemptsMade + 1, last, err: (error as Error).message }, 'job failed');
      // Out of attempts: the events keep a failed state (the sweeper leaves them) until an operator replays them. Their
      // reason is a code, answered later by the routes: the error's own text (a database's, say) is in the log alone.
      if (last && keys.length) await this.evaluation.markFailed(keys, EVALUATION_FAILED).catch(() => undefined);
      throw error;
    }
  }

  /** The job's events by key; a job queued before jobs carried their events' times names ids alone (looked up). */
  private keys({ eventIds, occurredAt }: EvaluateJobData): Promise<EventKey[]> {
    if (occurredAt?.length === eventIds.length) return Promise.resolve(eventIds.map((id, i) => ({ id, occurredAt: occurredAt[i] })));
    return this.evaluation.keysOf(eventIds);
  }
}
