import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { pacedBatches, PeriodicSweep } from '../../common/scheduling/periodic-sweep.js';
import { AfterCommit, CustomerTransactions } from '../evaluation/index.js';
import { PointsRepository } from './points.repository.js';

/**
 * What one transaction expires at most: the customers of this many soonest-due credits, and this many of their due
 * credits. Its customers are locked briefly, and its WAL is small.
 */
export const EXPIRY_BATCH = { customers: 50, credits: 500 };

/**
 * Contract §13: credits past their `expires_at` leave the balance within 60 seconds, for every customer, active or not.
 * Every 5 seconds one worker process at a time (the sweep machinery's advisory lock) expires what is due, in
 * transactions of at most EXPIRY_BATCH that skip customers locked by an evaluation or a debit (the next batch takes
 * them), at most POINTS_EXPIRY_RATE credits a second: a backlog (a million credits due at once) is spread out, so that
 * its writes do not take evaluations' latency with them (docs/performance.md measures V1's p99 while it runs). The
 * partial index `points_ledger_due` holds only unexpired expiring credits, so a sweep with nothing due reads one index
 * page.
 */
@Injectable()
export class PointsExpirySweeper extends PeriodicSweep {
  constructor(
    @InjectDataSource() db: DataSource,
    private readonly transactions: CustomerTransactions,
    private readonly points: PointsRepository,
    private readonly afterCommit: AfterCommit,
    @Inject(LOGGER) logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super(db, logger, 7_700_005, 'points expiry');
  }

  /** Batches until nothing more is due (or every due customer is busy), or the sweep's time is up; answers the credits expired. */
  protected async sweepLocked(): Promise<number> {
    const expired = await pacedBatches(this.config.pointsExpiryRate, async () => {
      const now = new Date(this.clock.now()).toISOString();
      const batch = await this.transactions.run(null, (tx) => tx.commitWith(this.points.expireDue(tx.uow, now, EXPIRY_BATCH)));
      void this.afterCommit.run(batch, {});
      return { items: batch.credits, last: batch.credits === 0 };
    });
    if (expired > 0) this.logger.info({ credits: expired }, 'points expired');
    return expired;
  }
}
