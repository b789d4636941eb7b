import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import type { Job } from 'bullmq';
import { LOGGER, type Logger } from '../../../common/logging/logger.js';
import { QueueName } from '../../../queues/queue-names.js';
import { BuildAudienceUseCase } from './build-audience.use-case.js';
import type { AudienceJobData } from './enqueue-audience-jobs.js';

/**
 * The worker side of the audience-jobs queue: a job only wakes the worker at the scheduled time; the use case claims
 * the row and decides. One JSON log line per job. A failed run throws so BullMQ retries it; the last failure marks the
 * row `failed`.
 */
@Processor(QueueName.AudienceJobs)
export class AudienceJobsProcessor extends WorkerHost {
  constructor(
    private readonly useCase: BuildAudienceUseCase,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
  }

  async process(job: Job<AudienceJobData>): Promise<void> {
    const started = this.clock.now();
    const base = { job_id: job.id, job: job.name, audience_job_id: job.data.audienceJobId };
    try {
      const result = await this.useCase.execute(job.data.audienceJobId);
      this.logger.info(
        {
          ...base,
          outcome: result.outcome,
          ...('creativeId' in result ? { creative_id: result.creativeId } : {}),
          ...(result.outcome === 'completed' ? { customer_count: result.customerCount, file: result.file } : {}),
          duration_ms: this.clock.now() - started,
        },
        'audience job',
      );
    } catch (error) {
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const attempt = (error as { claimedAttempt?: number }).claimedAttempt;
      if (attempt !== undefined) await this.useCase.fail(job.data.audienceJobId, attempt, last, (error as Error).message);
      this.logger.warn({ ...base, outcome: last ? 'failed' : 'retrying', err: (error as Error).message, duration_ms: this.clock.now() - started }, 'audience job');
      throw error;
    }
  }
}
