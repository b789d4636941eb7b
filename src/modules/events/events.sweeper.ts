import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { EventsJob, QueueName } from '../../queues/queue-names.js';
import { enqueueEvents } from './enqueue.js';

const SWEEP_EVERY_MS = 5_000;
const SWEEP_LOCK = 7_700_001;

/**
 * Queues stored events that are still pending SWEEP_AFTER_SECONDS after they were stored: their job was lost (Redis
 * down when they were accepted, Redis flushed, a crash between commit and enqueue). Safe with several workers: one
 * sweeps at a time (an advisory lock), and queueing an event twice is harmless (processing is idempotent).
 */
@Injectable()
export class EventsSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.Events) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sweep().finally(() => (this.running = null));
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One sweep; answers how many events it queued. */
  async sweep(): Promise<number> {
    try {
      return await this.db.transaction(async (em) => {
        const [{ locked }] = await em.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [SWEEP_LOCK]);
        if (!locked) return 0;
        const rows: Array<{ id: string; customer_id: string | null }> = await em.query(
          `SELECT id, customer_id FROM events WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1)
            ORDER BY created_at LIMIT 5000`,
          [this.config.sweepAfterSeconds],
        );
        if (rows.length === 0) return 0;
        // One sweep job per event per SWEEP_AFTER_SECONDS window: a backlog is not queued again every 5 seconds.
        const window = Math.floor(Date.now() / (this.config.sweepAfterSeconds * 1000));
        await enqueueEvents(this.queue, rows, EventsJob.Evaluate, `sweep-${window}`);
        this.logger.info({ events: rows.length }, 'sweeper queued pending events');
        return rows.length;
      });
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'sweep failed; next one retries');
      return 0;
    }
  }
}
