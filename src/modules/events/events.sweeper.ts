import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { PeriodicSweep } from '../../common/scheduling/periodic-sweep.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { EventsJob, QueueName } from '../../queues/queue-names.js';
import { occurredKey } from '../evaluation/index.js';
import { enqueueEvents, type QueuedEvent } from './enqueue.js';

/**
 * Queues stored events that are still pending SWEEP_AFTER_SECONDS after they were stored: their job was lost (Redis
 * down when they were accepted, Redis flushed, a crash between commit and enqueue). Queueing an event twice is
 * harmless (processing is idempotent).
 */
@Injectable()
export class EventsSweeper extends PeriodicSweep {
  constructor(
    @InjectDataSource() db: DataSource,
    @InjectQueue(QueueName.Events) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super(db, logger, 7_700_001, 'events');
  }

  protected async sweepLocked(em: EntityManager): Promise<number> {
    const rows: QueuedEvent[] = await em.query(
      `SELECT id, customer_id AS "customerId", organization_id AS "organizationId", ${occurredKey('occurred_at')} AS "occurredAt" FROM events WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT 5000`,
      [this.config.sweepAfterSeconds],
    );
    if (rows.length === 0) return 0;
    // One sweep job per event per SWEEP_AFTER_SECONDS window: a backlog is not queued again every 5 seconds.
    const window = Math.floor(this.clock.now() / (this.config.sweepAfterSeconds * 1000));
    await enqueueEvents(this.queue, rows, EventsJob.Evaluate, `sweep-${window}`, false);
    this.logger.info({ events: rows.length }, 'sweeper queued pending events');
    return rows.length;
  }
}
