import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { QueueName } from '../../queues/queue-names.js';
import { enqueueDeliveries } from './enqueue-deliveries.js';

const SWEEP_EVERY_MS = 5_000;
const SWEEP_LOCK = 7_700_002;

/**
 * Queues outbox deliveries still open (pending, or retrying) SWEEP_AFTER_SECONDS after their last change: their job
 * was lost (Redis down at commit, Redis flushed, a crash between commit and enqueue). A delivery whose job still exists
 * is not queued twice (job ids are the delivery's), and a delivery already sent is skipped by the processor.
 */
@Injectable()
export class WebhooksSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.Webhooks) private readonly queue: Queue,
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

  /** One sweep; answers how many deliveries it queued (jobs that already existed included). */
  async sweep(): Promise<number> {
    try {
      return await this.db.transaction(async (em) => {
        const [{ locked }] = await em.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [SWEEP_LOCK]);
        if (!locked) return 0;
        const rows: Array<{ id: string }> = await em.query(
          `SELECT id FROM webhook_deliveries WHERE status IN ('pending', 'retrying') AND updated_at < now() - make_interval(secs => $1)
            ORDER BY updated_at LIMIT 1000`,
          [this.config.sweepAfterSeconds],
        );
        if (rows.length === 0) return 0;
        await enqueueDeliveries(
          this.queue,
          rows.map((r) => String(r.id)),
        );
        this.logger.info({ deliveries: rows.length }, 'sweeper queued open webhook deliveries');
        return rows.length;
      });
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'webhook sweep failed; next one retries');
      return 0;
    }
  }
}
