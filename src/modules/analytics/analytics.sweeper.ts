import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { PeriodicSweep } from '../../common/scheduling/periodic-sweep.js';
import { AnalyticsRepository, FOLD_BATCH, FOLD_LOCK } from './analytics.repository.js';

/** A sweep starts no batch after this long, so that a backlog never holds the fold's lock (and reads) for long. */
const SWEEP_BUDGET_MS = 3_000;

/**
 * Folds campaign_activity into the analytics' read model every 5 seconds (decision 0022): the table the event path
 * appends to stays a few seconds long, and a read (which folds the rest first) has little left to do.
 */
@Injectable()
export class AnalyticsSweeper extends PeriodicSweep {
  constructor(
    @InjectDataSource() db: DataSource,
    private readonly repository: AnalyticsRepository,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(db, logger, FOLD_LOCK, 'analytics fold');
  }

  protected async sweepLocked(em: EntityManager): Promise<number> {
    const started = performance.now();
    let total = 0;
    for (;;) {
      const folded = await this.repository.foldBatch(em);
      total += folded;
      if (folded < FOLD_BATCH || performance.now() - started > SWEEP_BUDGET_MS) return total;
    }
  }
}
