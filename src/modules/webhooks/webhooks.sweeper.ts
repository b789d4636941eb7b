import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { pacedBatches, PeriodicSweep } from '../../common/scheduling/periodic-sweep.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { QueueName } from '../../queues/queue-names.js';
import { removeFailedJobs } from '../../queues/failed-jobs.js';
import { enqueueDeliveries, enqueueEffects } from './enqueue-deliveries.js';
import { RewardEffectsRepository } from '../extensions/effects/reward-effects.repository.js';

const DAY_MS = 86_400_000;
/** A dead effect is kept this many times REWARD_EFFECTS_RETENTION_DAYS from its last attempt: to be listed, mended and replayed. */
export const DEAD_EFFECTS_KEPT_TIMES = 3;
/** Effects one retention statement reads (a page in id order), deleting those past the retention. */
export const RETENTION_PAGE = 1_000;
/** Effects the retention deletes per second at most: a backlog is spread over sweeps (pacedBatches). */
export const RETENTION_RATE = 5_000;
/** The retention runs at most this often (by the clock), though the sweep ticks every 5 seconds. */
export const RETENTION_EVERY_MS = 60_000;

/**
 * Queues outbox deliveries and rewards' after-commit effects still open (pending, or retrying) SWEEP_AFTER_SECONDS after their last change: their job
 * was lost, or failed every attempt without recording it (the database down at the time). A delivery whose job still
 * waits is not queued twice (job ids are the delivery's); a failed one is cleared first; a delivery already sent is
 * skipped by the processor.
 *
 * It keeps the effects' retention too, at most every RETENTION_EVERY_MS: effects done more than
 * REWARD_EFFECTS_RETENTION_DAYS ago, and dead ones whose last attempt is DEAD_EFFECTS_KEPT_TIMES as old, are deleted, in
 * pages of RETENTION_PAGE statements of their own (each commits alone) at most RETENTION_RATE a second, while the
 * sweep's advisory lock keeps every other process out.
 */
@Injectable()
export class WebhooksSweeper extends PeriodicSweep {
  /** When the retention last went through every effect due (by the clock). */
  private lastRetention = -Infinity;
  /** Where a retention cut short by the sweep's time goes on from (the id of the last effect it read). */
  private retentionFrom = '0';

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.Webhooks) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: Logger,
    private readonly effects: RewardEffectsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super(db, logger, 7_700_002, 'webhook');
  }

  protected async sweepLocked(em: EntityManager): Promise<number> {
    const queued = await this.requeue(em);
    const now = this.clock.now();
    if (now - this.lastRetention >= RETENTION_EVERY_MS) {
      const deleted = await this.retain(now);
      if (deleted > 0) this.logger.info({ effects: deleted, retention_days: this.config.rewardEffectsRetentionDays }, 'reward effects past their retention deleted');
    }
    return queued;
  }

  private async requeue(em: EntityManager): Promise<number> {
    const rows: Array<{ id: string }> = await em.query(
      `SELECT id FROM webhook_deliveries WHERE status IN ('pending', 'retrying') AND updated_at < now() - make_interval(secs => $1)
        ORDER BY updated_at LIMIT 1000`,
      [this.config.sweepAfterSeconds],
    );
    const effects = await this.effects.open(em, this.config.sweepAfterSeconds);
    if (rows.length === 0 && effects.length === 0) return 0;
    await removeFailedJobs(this.queue, [...rows.map((r) => `delivery-${r.id}`), ...effects.map((id) => `effect-${id}`)]);
    await enqueueDeliveries(
      this.queue,
      rows.map((r) => String(r.id)),
    );
    await enqueueEffects(this.queue, effects);
    this.logger.info({ deliveries: rows.length, effects: effects.length }, 'sweeper queued open webhook deliveries and reward effects');
    return rows.length + effects.length;
  }

  /**
   * The effects' retention at `now` (the clock's), from where the last one stopped: answers how many were deleted. One
   * cut short by the sweep's time goes on at the next sweep; one that went through every effect due starts again from
   * the first after RETENTION_EVERY_MS.
   */
  private async retain(now: number): Promise<number> {
    const days = this.config.rewardEffectsRetentionDays;
    const doneBefore = new Date(now - days * DAY_MS);
    const deadBefore = new Date(now - DEAD_EFFECTS_KEPT_TIMES * days * DAY_MS);
    return pacedBatches(RETENTION_RATE, async () => {
      if (this.stopping) return { items: 0, last: true };
      const page = await this.effects.purge(this.db, this.retentionFrom, RETENTION_PAGE, doneBefore, deadBefore);
      this.retentionFrom = page.end ? '0' : (page.last ?? '0');
      if (page.end) this.lastRetention = now;
      return { items: page.deleted, last: page.end };
    });
  }
}
