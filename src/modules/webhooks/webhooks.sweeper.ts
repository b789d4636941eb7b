import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { PeriodicSweep } from '../../common/scheduling/periodic-sweep.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { QueueName } from '../../queues/queue-names.js';
import { removeFailedJobs } from '../../queues/failed-jobs.js';
import { enqueueDeliveries } from './enqueue-deliveries.js';

/**
 * Queues outbox deliveries still open (pending, or retrying) SWEEP_AFTER_SECONDS after their last change: their job
 * was lost, or failed every attempt without recording it (the database down at the time). A delivery whose job still
 * waits is not queued twice (job ids are the delivery's); a failed one is cleared first; a delivery already sent is
 * skipped by the processor.
 */
@Injectable()
export class WebhooksSweeper extends PeriodicSweep {
  constructor(
    @InjectDataSource() db: DataSource,
    @InjectQueue(QueueName.Webhooks) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(db, logger, 7_700_002, 'webhook');
  }

  protected async sweepLocked(em: EntityManager): Promise<number> {
    const rows: Array<{ id: string }> = await em.query(
      `SELECT id FROM webhook_deliveries WHERE status IN ('pending', 'retrying') AND updated_at < now() - make_interval(secs => $1)
        ORDER BY updated_at LIMIT 1000`,
      [this.config.sweepAfterSeconds],
    );
    if (rows.length === 0) return 0;
    await removeFailedJobs(
      this.queue,
      rows.map((r) => `delivery-${r.id}`),
    );
    await enqueueDeliveries(
      this.queue,
      rows.map((r) => String(r.id)),
    );
    this.logger.info({ deliveries: rows.length }, 'sweeper queued open webhook deliveries');
    return rows.length;
  }
}
