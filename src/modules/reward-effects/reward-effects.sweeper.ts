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
import { removeFailedJobs } from '../../queues/failed-jobs.js';
import { QueueName } from '../../queues/queue-names.js';
import { enqueueEffects } from '../../queues/enqueue-effects.js';
import { RewardEffectsRepository } from './reward-effects.repository.js';

const DAY_MS = 86_400_000;
/** The sweep's advisory lock: one process at a time queues lost effects and keeps the retention. */
export const REWARD_EFFECTS_SWEEP_LOCK = 7_700_008;
/** A dead effect is kept this many times REWARD_EFFECTS_RETENTION_DAYS from its last attempt: to be listed, mended and replayed. */
export const DEAD_EFFECTS_KEPT_TIMES = 3;
/** Effects one retention statement reads (a page in id order), deleting those past the retention. */
export const RETENTION_PAGE = 1_000;
/** Effects the retention deletes per second at most: a backlog is spread over sweeps (pacedBatches). */
export const RETENTION_RATE = 5_000;
/** The retention runs at most this often (by the clock), though the sweep ticks every 5 seconds. */
export const RETENTION_EVERY_MS = 60_000;

/**
 * Queues rewards' after-commit effects still open (pending, or retrying) SWEEP_AFTER_SECONDS after their last change:
 * their job was lost, or failed every attempt without recording it (the database down at the time). An effect whose job
 * still waits is not queued twice (job ids are the effect's); a failed one is cleared first; one already done is
 * skipped by the processor.
 *
 * It keeps the effects' retention too, at most every RETENTION_EVERY_MS: effects done more than
 * REWARD_EFFECTS_RETENTION_DAYS ago, and dead ones whose last attempt is DEAD_EFFECTS_KEPT_TIMES as old, are deleted, in
 * pages of RETENTION_PAGE statements of their own (each commits alone) at most RETENTION_RATE a second, while the
 * sweep's advisory lock keeps every other process out.
 */
@Injectable()
export class RewardEffectsSweeper extends PeriodicSweep {
  /** When the retention last went through every effect due (by the clock). */
  private lastRetention = -Infinity;
  /** Where a retention cut short by the sweep's time goes on from (the id of the last effect it read). */
  private retentionFrom = '0';

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.RewardEffects) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: Logger,
    private readonly effects: RewardEffectsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super(db, logger, REWARD_EFFECTS_SWEEP_LOCK, 'reward effect');
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
    const effects = await this.effects.open(em, this.config.sweepAfterSeconds);
    if (effects.length === 0) return 0;
    await removeFailedJobs(
      this.queue,
      effects.map((id) => `effect-${id}`),
    );
    await enqueueEffects(this.queue, effects);
    this.logger.info({ effects: effects.length }, 'sweeper queued open reward effects');
    return effects.length;
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
