import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { QueueName, WebhooksJob } from '../../queues/queue-names.js';
import { DeliverWebhookUseCase } from './deliver-webhook.use-case.js';
import type { DeliverJobData } from './enqueue-deliveries.js';
import { EventCounters } from '../metrics/index.js';

/** Deliveries wait on remote servers, not on CPU: more run at once than event jobs. */
const MIN_CONCURRENCY = 16;

/**
 * The worker side of the webhooks queue: one job per delivery, one HTTP attempt per run; a failed attempt throws so
 * BullMQ retries it with exponential backoff. One JSON log line per job, without the URL's secret or the body, and each
 * attempt counted by outcome (`webhook_deliveries_total` on /metrics). Rewards' effects have a queue of their own
 * (src/modules/reward-effects).
 */
@Processor(QueueName.Webhooks)
export class WebhooksProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly useCase: DeliverWebhookUseCase,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly counters: EventCounters,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = Math.max(this.config.workerConcurrency, MIN_CONCURRENCY);
  }

  async process(job: Job<DeliverJobData>): Promise<void> {
    // A reward effect's job queued here before effects had a queue of their own: its effect stays open, and the
    // reward effects' sweeper queues it on theirs.
    if (job.name !== WebhooksJob.Deliver) {
      this.logger.info({ job_id: job.id, job: job.name, outcome: 'skipped' }, 'job left on the webhooks queue by an earlier version');
      return;
    }
    const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const result = await this.useCase.execute(job.data.deliveryId, last);
    if (!result) {
      this.logger.info({ job_id: job.id, job: job.name, delivery_id: job.data.deliveryId, outcome: 'skipped' }, 'webhook delivery');
      return;
    }
    this.counters.count('webhook_deliveries_total', result.status);
    const line = {
      job_id: job.id,
      job: job.name,
      delivery_id: result.deliveryId,
      webhook_id: result.webhookId,
      type: result.type,
      attempt: result.attempt,
      outcome: result.status,
      response_code: result.responseCode,
      duration_ms: result.durationMs,
      ...(result.error ? { err: result.error } : {}),
    };
    if (result.ok) {
      this.logger.info(line, 'webhook delivery');
      return;
    }
    this.logger.warn(line, 'webhook delivery');
    if (!last) throw new Error(result.error ?? 'delivery failed');
  }
}
