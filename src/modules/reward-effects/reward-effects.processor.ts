import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import type { Job } from 'bullmq';
import { CLOCK, type Clock } from '../../common/clock.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { QueueName } from '../../queues/queue-names.js';
import type { EffectJobData } from '../../queues/enqueue-effects.js';
import { EventCounters } from '../metrics/index.js';
import { EFFECT_CONCURRENCY, RunRewardEffect } from './run-reward-effect.use-case.js';

/**
 * The worker side of the reward-effects queue: one job per reward's after-commit effect (an extension's), one attempt
 * per run; a failed attempt throws so BullMQ retries it with exponential backoff. One JSON log line per job, without
 * the effect's payload, and each attempt counted by outcome (`reward_effects_total` on /metrics).
 */
@Processor(QueueName.RewardEffects, { concurrency: EFFECT_CONCURRENCY })
export class RewardEffectsProcessor extends WorkerHost {
  constructor(
    private readonly effects: RunRewardEffect,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly counters: EventCounters,
  ) {
    super();
  }

  async process(job: Job<EffectJobData>): Promise<void> {
    const attempt = job.attemptsMade + 1;
    const last = attempt >= (job.opts.attempts ?? 1);
    const started = this.clock.now();
    const result = await this.effects.execute(job.data.effectId, attempt, last);
    // A failed attempt is retried: by BullMQ, or by the sweeper when no worker with the effect's extension took it.
    if (result.outcome !== 'skipped') this.counters.count('reward_effects_total', result.outcome === 'failed' ? 'retrying' : result.outcome);
    const line = { job_id: job.id, job: job.name, effect_id: result.effectId, kind: result.kind, attempt, outcome: result.outcome, duration_ms: this.clock.now() - started };
    if (!result.error) {
      this.logger.info(line, 'reward effect');
      return;
    }
    this.logger.warn({ ...line, err: result.error }, 'reward effect');
    if (!last) throw new Error(result.error);
  }
}
