import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { PeriodicSweep, sweepPace } from '../../common/scheduling/periodic-sweep.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { AnalyticsRepository } from '../analytics/index.js';
import { ERASURE_BATCH, ERASURE_STEPS, type StepContext } from './erasure-steps.repository.js';
import { ErasureRepository, type ErasureJob } from './erasure.repository.js';

/** A sweep starts no batch after this long (the next one, 5 seconds later, goes on where it stopped). */
const SWEEP_BUDGET_MS = 20_000;
/** Erasures one sweep looks at, at most. */
const OPEN_JOBS = 100;
/** The sweep's advisory lock: held by the one worker process finishing erasures. */
export const ERASURE_LOCK = 7_700_044;

/**
 * Finishes erasures (contract §21, decision 0024): every 5 seconds one worker process at a time (the sweep's advisory
 * lock) takes the unfinished erasures, oldest first, and runs each one's steps from the one it reached, batch after
 * batch, at most ERASURE_RATE rows a second so that other customers' evaluations keep their latency. A step is
 * recorded done once its last batch is committed: a worker killed at any point leaves the job at a step whose batches
 * the next sweep runs again, and every batch only touches what is still there.
 */
@Injectable()
export class ErasureSweeper extends PeriodicSweep {
  /** A worker restarted in the middle of an erasure goes on at once. */
  protected override readonly sweepAtBoot = true;

  constructor(
    @InjectDataSource() db: DataSource,
    private readonly erasures: ErasureRepository,
    private readonly analytics: AnalyticsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(db, logger, ERASURE_LOCK, 'erasure');
  }

  /** Answers the rows deleted or rewritten. */
  protected async sweepLocked(): Promise<number> {
    let rows = 0;
    const next = sweepPace(this.config.erasureRate, SWEEP_BUDGET_MS, () => !this.stopping);
    const pace = () => next(rows);
    // A job that waits (a run of its organization still going) or fails does not hold up the ones after it.
    for (const job of await this.erasures.open(OPEN_JOBS)) {
      if ((await this.finish(job, pace, (n) => (rows += n))) === 'out_of_time') break;
    }
    return rows;
  }

  /** Runs the job's steps from the one it reached, until it is done, the sweep's time is up, or a step waits or fails. */
  private async finish(job: ErasureJob, pace: () => Promise<boolean>, done: (rows: number) => void): Promise<'done' | 'out_of_time' | 'waiting' | 'failed'> {
    const ctx: StepContext = {
      job,
      query: (text, values) => this.erasures.query(text, values),
      foldAnalytics: () => this.analytics.foldAll(),
      storageDir: this.config.storageDir,
    };
    for (let i = ERASURE_STEPS.findIndex((s) => s.name === job.step); i >= 0 && i < ERASURE_STEPS.length; i++) {
      const step = ERASURE_STEPS[i];
      for (;;) {
        let rows: number | null;
        try {
          rows = await step.batch(ctx);
        } catch (error) {
          await this.erasures.failed(job, (error as Error).message);
          this.logger.warn({ user_id: job.customer_id, step: step.name, err: (error as Error).message }, 'erasure step failed; next sweep retries');
          return 'failed';
        }
        if (rows === null) return 'waiting';
        done(rows);
        if (rows < ERASURE_BATCH) break;
        if (!(await pace())) return 'out_of_time';
      }
      const next = ERASURE_STEPS[i + 1]?.name ?? null;
      if (!(await this.erasures.advance(job, next))) return 'failed';
      job.step = next ?? job.step;
      if (!next) this.logger.info({ user_id: job.customer_id }, 'erasure finished');
      if (!(await pace())) return 'out_of_time';
    }
    return 'done';
  }
}
