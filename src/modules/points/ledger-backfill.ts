import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Queryable } from '../../common/database/unit-of-work.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { BACKFILL_BATCH, LedgerBackfillRepository } from './ledger-backfill.repository.js';

/** The session advisory lock that makes one process at a time run the backfill (workers and `ledger:backfill`). */
export const BACKFILL_LOCK = 7_700_007;
/** The shortest pause between two batches; a longer batch is followed by a pause as long as it took. */
const MIN_PAUSE_MS = 10;
/** A window whose rows the event path held locked is read again, at most this many times in a row, before moving on. */
const RETRIES = 100;
/** A progress line at most this often. */
const PROGRESS_EVERY_MS = 60_000;

export interface BackfillOptions {
  /** Pause between batches (pacing): as long as the batch took, at least MIN_PAUSE_MS. Off: no pause (by hand, unloaded). */
  paced: boolean;
  /** Wait for the lock when another process holds it (the CLI) instead of leaving the job to it (a worker). */
  wait: boolean;
  /** Asked before each batch: true stops the run there (a worker shutting down). */
  stop?: () => boolean;
}

/** What one run did; null when another process held the lock (it is running the backfill). */
export interface BackfillReport {
  /** Credits given their occurred_at. */
  rows: number;
  /** Of those, credits found reversed (reversed_at set). */
  reversed: number;
  /** Statements run. */
  batches: number;
  /** Credits left null because the event path held them locked every time they were read (the next run fills them). */
  skipped: number;
  /** Whether the run went through the whole ledger (false: stopped). */
  complete: boolean;
  seconds: number;
}

/**
 * The backfill of the ledger rows written before migration 1765500000000 (decision 0019, step 3): each credit's
 * occurred_at (its event's time) and reversed_at (LedgerBackfillRepository). Every worker process starts it once, when
 * it starts; one at a time runs it (a session advisory lock on a connection of its own), the others leave it to that
 * one. It walks the whole ledger by id in batches of BACKFILL_BATCH rows, each one statement that commits on its own,
 * paced (after each batch a pause as long as the batch took), until no row is left. The cursor lives in the run: a run
 * killed at any point leaves only whole batches done, and the next run (the next worker start, or
 * `npm run cli -- ledger:backfill`) walks again from the start, writing only what is still null: the same result.
 * It starts at the first credit still lacking its occurred_at (an index holds them): once everything is filled, a run
 * reads one index page and ends.
 */
@Injectable()
export class LedgerBackfill implements OnApplicationBootstrap, OnApplicationShutdown {
  private running: Promise<unknown> | null = null;
  private stopping = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly repository: LedgerBackfillRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.run({ paced: true, wait: false, stop: () => this.stopping }).catch((error: unknown) => {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'ledger backfill failed; the next worker start runs it again');
    });
  }

  /** Stops the run after its current batch. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** One run through the ledger, when this process holds (or, with `wait`, gets) the lock. */
  async run(options: BackfillOptions): Promise<BackfillReport | null> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      if (options.wait) await runner.query(`SELECT pg_advisory_lock($1)`, [BACKFILL_LOCK]);
      else {
        const [{ locked }] = (await runner.query(`SELECT pg_try_advisory_lock($1) AS locked`, [BACKFILL_LOCK])) as Array<{ locked: boolean }>;
        if (!locked) {
          this.logger.debug('ledger backfill: another process runs it');
          return null;
        }
      }
      try {
        return await this.walk(runner, options);
      } finally {
        // A connection lost mid-run took the lock with it; an error here must not hide the run's own.
        await runner.query(`SELECT pg_advisory_unlock($1)`, [BACKFILL_LOCK]).catch(() => undefined);
      }
    } finally {
      await runner.release();
    }
  }

  private async walk(db: Queryable, options: BackfillOptions): Promise<BackfillReport> {
    const started = performance.now();
    const report: BackfillReport = { rows: 0, reversed: 0, batches: 0, skipped: 0, complete: false, seconds: 0 };
    const start = await this.repository.start(db);
    let cursor = start ?? '0';
    let retries = 0;
    let logged = started;
    if (start === null) report.complete = true;
    for (; start !== null; ) {
      if (options.stop?.()) break;
      const batchStarted = performance.now();
      const step = await this.repository.step(db, cursor, BACKFILL_BATCH);
      report.batches += 1;
      report.rows += step.filled;
      report.reversed += step.reversed;
      if (step.lastId === null) {
        report.complete = true;
        break;
      }
      // Rows the event path held are read again (they are the only ones left null in the window), a few times at most.
      if (step.filled < step.needed && retries < RETRIES) retries += 1;
      else {
        report.skipped += step.needed - step.filled;
        cursor = step.lastId;
        retries = 0;
      }
      const now = performance.now();
      if (now - logged >= PROGRESS_EVERY_MS) {
        logged = now;
        this.logger.info({ rows: report.rows, reversed: report.reversed, last_id: cursor }, 'ledger backfill: in progress');
      }
      if (options.paced) await sleep(Math.max(MIN_PAUSE_MS, now - batchStarted));
    }
    report.seconds = Math.round(performance.now() - started) / 1000;
    const line = { rows: report.rows, reversed: report.reversed, batches: report.batches, skipped: report.skipped, complete: report.complete, seconds: report.seconds };
    if (report.rows > 0 || report.skipped > 0 || !report.complete) this.logger.info(line, 'ledger backfill: run ended');
    else this.logger.debug(line, 'ledger backfill: nothing left');
    return report;
  }
}
