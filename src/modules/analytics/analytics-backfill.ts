import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Queryable } from '../../common/database/unit-of-work.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { AnalyticsBackfillRepository } from './analytics-backfill.repository.js';

/** The session advisory lock that makes one process at a time run the analytics backfill (workers and the CLI). */
export const ANALYTICS_BACKFILL_LOCK = 7_700_043;
/** The shortest pause between two batches; a longer batch is followed by a pause as long as it took. */
const MIN_PAUSE_MS = 10;
const PROGRESS_EVERY_MS = 60_000;

export interface AnalyticsBackfillOptions {
  /** Pause between batches: as long as the batch took, at least MIN_PAUSE_MS. Off: no pause (by hand, unloaded). */
  paced: boolean;
  /** Wait for the lock when another process holds it (the CLI) instead of leaving the work to it (a worker). */
  wait: boolean;
  /** Asked before each batch: true stops the run there (a worker shutting down). */
  stop?: () => boolean;
}

/** What one run did; null when another process held the lock. */
export interface AnalyticsBackfillReport {
  events: number;
  counted: number;
  batches: number;
  /** Whether the walk reached its end (false: stopped; the next run goes on from the cursor). */
  complete: boolean;
  seconds: number;
}

/**
 * Campaign analytics of the events processed before migration 1765900000000 (AnalyticsBackfillRepository). Every
 * worker process that takes `events` work starts it when it starts; one at a time runs it (a session advisory lock
 * on a connection of its own). Each batch commits on its own with its cursor, so a run stopped or killed goes on
 * where it was; paced: after each batch a pause as long as the batch took. Once done, a run reads one row and ends.
 */
@Injectable()
export class AnalyticsBackfill implements OnApplicationBootstrap, OnApplicationShutdown {
  private running: Promise<unknown> | null = null;
  private stopping = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly repository: AnalyticsBackfillRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.run({ paced: true, wait: false, stop: () => this.stopping }).catch((error: unknown) => {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'analytics backfill failed; the next worker start goes on with it');
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  async run(options: AnalyticsBackfillOptions): Promise<AnalyticsBackfillReport | null> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      if (options.wait) await runner.query(`SELECT pg_advisory_lock($1)`, [ANALYTICS_BACKFILL_LOCK]);
      else {
        const [{ locked }] = (await runner.query(`SELECT pg_try_advisory_lock($1) AS locked`, [ANALYTICS_BACKFILL_LOCK])) as Array<{ locked: boolean }>;
        if (!locked) return null;
      }
      try {
        return await this.walk(runner, options);
      } finally {
        await runner.query(`SELECT pg_advisory_unlock($1)`, [ANALYTICS_BACKFILL_LOCK]).catch(() => undefined);
      }
    } finally {
      await runner.release();
    }
  }

  private async walk(db: Queryable, options: AnalyticsBackfillOptions): Promise<AnalyticsBackfillReport> {
    const started = performance.now();
    const report: AnalyticsBackfillReport = { events: 0, counted: 0, batches: 0, complete: false, seconds: 0 };
    let logged = started;
    while (!options.stop?.()) {
      const batchStarted = performance.now();
      const step = await this.repository.step(db);
      report.batches += 1;
      report.events += step.read;
      report.counted += step.counted;
      if (step.done) {
        report.complete = true;
        break;
      }
      const now = performance.now();
      if (now - logged >= PROGRESS_EVERY_MS) {
        logged = now;
        this.logger.info({ events: report.events, counted: report.counted }, 'analytics backfill: in progress');
      }
      if (options.paced) await sleep(Math.max(MIN_PAUSE_MS, now - batchStarted));
    }
    report.seconds = Math.round(performance.now() - started) / 1000;
    if (report.events > 0) this.logger.info({ ...report }, 'analytics backfill: run ended');
    return report;
  }
}
