import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { CLOCK, type Clock } from '../../common/clock.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { QueueName } from '../../queues/queue-names.js';
import { DeliverWebhookUseCase } from './deliver-webhook.use-case.js';
import type { DeliverJobData, EffectJobData } from './enqueue-deliveries.js';
import { RunRewardEffect } from '../extensions/effects/run-reward-effect.use-case.js';
import { EventCounters } from '../metrics/event-counters.js';

/** Deliveries wait on remote servers, not on CPU: more run at once than event jobs. */
const MIN_CONCURRENCY = 16;

/**
 * The worker side of the webhooks queue: one job per delivery, one HTTP attempt per run, and one job per reward's
 * after-commit effect, one attempt per run; a failed attempt throws so BullMQ retries it with exponential backoff. One
 * JSON log line per job, without the URL's secret, the body or the effect's payload, and each delivery attempt counted
 * by outcome (`webhook_deliveries_total` on /metrics).
 */
@Processor(QueueName.Webhooks)
export class WebhooksProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly useCase: DeliverWebhookUseCase,
    private readonly effects: RunRewardEffect,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly counters: EventCounters,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = Math.max(this.config.workerConcurrency, MIN_CONCURRENCY);
  }

  async process(job: Job<DeliverJobData | EffectJobData>): Promise<void> {
    const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if ('effectId' in job.data) return this.effect(job as Job<EffectJobData>, last);
    return this.deliver(job as Job<DeliverJobData>, last);
  }

  /** A reward's after-commit effect (an extension's): one attempt per run, retried like a delivery. */
  private async effect(job: Job<EffectJobData>, last: boolean): Promise<void> {
    const started = this.clock.now();
    const result = await this.effects.execute(job.data.effectId, job.attemptsMade + 1, last);
    const line = { job_id: job.id, job: job.name, effect_id: result.effectId, kind: result.kind, attempt: job.attemptsMade + 1, outcome: result.outcome, duration_ms: this.clock.now() - started };
    if (!result.error) {
      this.logger.info(line, 'reward effect');
      return;
    }
    this.logger.warn({ ...line, err: result.error }, 'reward effect');
    if (!last) throw new Error(result.error);
  }

  private async deliver(job: Job<DeliverJobData>, last: boolean): Promise<void> {
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
