import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { LOGGER, type Logger } from '../../../common/logging/logger.js';
import { PeriodicSweep } from '../../../common/scheduling/periodic-sweep.js';
import { APP_CONFIG } from '../../../config/config.module.js';
import type { AppConfig } from '../../../config/config.js';
import { QueueName } from '../../../queues/queue-names.js';
import { LEASE_SECONDS } from './build-audience.use-case.js';
import { removeFailedJobs } from '../../../queues/failed-jobs.js';
import { enqueueAudienceJobs } from './enqueue-audience-jobs.js';

/**
 * Queues audience jobs whose delayed job was lost (Redis down or flushed when the row was written, a job that woke
 * before its row was committed): `scheduled` rows SWEEP_AFTER_SECONDS past their time, and `running` rows whose lease
 * expired (their worker died). Job ids are the rows', so a job that still exists is not queued twice, and the claim
 * makes a second run a no-op.
 */
@Injectable()
export class AudienceJobsSweeper extends PeriodicSweep {
  constructor(
    @InjectDataSource() db: DataSource,
    @InjectQueue(QueueName.AudienceJobs) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super(db, logger, 7_700_003, 'audience job');
  }

  protected async sweepLocked(em: EntityManager): Promise<number> {
    const rows: Array<{ id: number }> = await em.query(
      `SELECT id FROM audience_jobs
        WHERE (status = 'scheduled' AND scheduled_at < now() - make_interval(secs => $1))
           OR (status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => $2)))
        ORDER BY scheduled_at LIMIT 1000`,
      [this.config.sweepAfterSeconds, LEASE_SECONDS],
    );
    if (rows.length === 0) return 0;
    await removeFailedJobs(
      this.queue,
      rows.map((r) => `audience-job-${r.id}`),
    );
    await enqueueAudienceJobs(
      this.queue,
      rows.map((r) => ({ id: Number(r.id), scheduledAt: new Date(0) })),
      this.clock.now(),
    );
    this.logger.info({ audience_jobs: rows.length }, 'sweeper queued due audience jobs');
    return rows.length;
  }
}
