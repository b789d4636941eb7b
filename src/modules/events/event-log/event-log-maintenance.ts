import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { LOGGER, type Logger } from '../../../common/logging/logger.js';
import { PeriodicSweep } from '../../../common/scheduling/periodic-sweep.js';
import { APP_CONFIG } from '../../../config/config.module.js';
import type { AppConfig } from '../../../config/config.js';
import { EventPartitionsRepository, partitionName, type MonthPartition } from './event-partitions.repository.js';

/** The advisory lock that makes one process at a time change the partitions (workers and `events:maintain`). */
export const MAINTENANCE_LOCK = 7_700_004;
/** Months kept ready ahead of the current one. */
export const MONTHS_AHEAD = 3;
/** How long a partition's DDL may wait for the statements using the log before it gives up until the next run. */
const LOCK_TIMEOUT_MS = 500;
/** Rows deleted per run from the default partition and from the idempotency keys: a bounded statement each. */
const BATCH = 5_000;
/** Catalog reads and DDL at most this often per process, though the sweep machinery ticks every 5 seconds. */
const EVERY_MS = 60_000;

/** What one maintenance run did. */
export interface MaintenanceReport {
  added: string[];
  dropped: string[];
  /** Events moved from the default partition into a month added. */
  moved: number;
  /** Events deleted from the default partition and idempotency keys forgotten, past the retention. */
  deleted: number;
  forgotten: number;
}

const monthStart = (t: number, plus = 0) => {
  const d = new Date(t);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + plus, 1));
};
const month = (from: Date): MonthPartition => ({ name: partitionName(from), from, to: monthStart(from.getTime(), 1) });

/**
 * The event log's partitions, kept by the workers (one at a time, on the sweep machinery's advisory lock): the
 * current month and MONTHS_AHEAD months ahead exist; with EVENT_RETENTION_DAYS, a month whose every day is past the
 * retention is dropped, and events past it in the default partition and their idempotency keys are deleted in
 * bounded batches. Ledger entries, progress, notifications and offers stay (docs/decisions/0011).
 */
@Injectable()
export class EventLogMaintenance extends PeriodicSweep {
  private readonly partitions = new EventPartitionsRepository();
  private lastRun = -Infinity;

  constructor(
    @InjectDataSource() db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super(db, logger, MAINTENANCE_LOCK, 'event log maintenance');
  }

  protected async sweepLocked(em: EntityManager): Promise<number> {
    const now = this.clock.now();
    if (now - this.lastRun < EVERY_MS) return 0;
    this.lastRun = now;
    const report = await this.maintain(em, now);
    if (report.added.length || report.dropped.length || report.deleted || report.forgotten) this.logger.info(report, 'event log maintained');
    return report.added.length + report.dropped.length;
  }

  /** One run at `now`, on a transaction that holds the maintenance lock. */
  async maintain(em: EntityManager, now: number): Promise<MaintenanceReport> {
    const report: MaintenanceReport = { added: [], dropped: [], moved: 0, deleted: 0, forgotten: 0 };
    await this.partitions.limitLockWaits(em, LOCK_TIMEOUT_MS);
    const existing = new Set((await this.partitions.months(em)).map((p) => p.name));
    for (let i = 0; i <= MONTHS_AHEAD; i++) {
      const wanted = month(monthStart(now, i));
      if (existing.has(wanted.name)) continue;
      report.moved += await this.partitions.addMonth(em, wanted);
      report.added.push(wanted.name);
    }
    const days = this.config.eventRetentionDays;
    if (days === null) return report;
    const horizon = new Date(now - days * 86_400_000);
    for (const past of await this.partitions.months(em)) {
      if (past.to > horizon) break;
      await this.partitions.dropMonth(em, past);
      report.dropped.push(past.name);
    }
    report.deleted = await this.partitions.deleteOldDefaultRows(em, horizon, BATCH);
    report.forgotten = await this.partitions.forgetTransactions(em, horizon, BATCH);
    return report;
  }
}
