import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { LOGGER, type Logger } from '../../../common/logging/logger.js';
import { APP_CONFIG } from '../../../config/config.module.js';
import type { AppConfig } from '../../../config/config.js';
import { QueueName } from '../../../queues/queue-names.js';
import { LEASE_SECONDS } from './build-audience.use-case.js';
import { enqueueAudienceJobs } from './enqueue-audience-jobs.js';

const SWEEP_EVERY_MS = 5_000;
const SWEEP_LOCK = 7_700_003;

/**
 * Queues audience jobs whose delayed job was lost (Redis down or flushed when the row was written, a job that woke
 * before its row was committed): `scheduled` rows SWEEP_AFTER_SECONDS past their time, and `running` rows whose lease
 * expired (their worker died). Job ids are the rows', so a job that still exists is not queued twice, and the claim
 * makes a second run a no-op.
 */
@Injectable()
export class AudienceJobsSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.AudienceJobs) private readonly queue: Queue,
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

  /** One sweep; answers how many audience jobs it queued (jobs that already existed included). */
  async sweep(): Promise<number> {
    try {
      return await this.db.transaction(async (em) => {
        const [{ locked }] = await em.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [SWEEP_LOCK]);
        if (!locked) return 0;
        const rows: Array<{ id: number }> = await em.query(
          `SELECT id FROM audience_jobs
            WHERE (status = 'scheduled' AND scheduled_at < now() - make_interval(secs => $1))
               OR (status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => $2)))
            ORDER BY scheduled_at LIMIT 1000`,
          [this.config.sweepAfterSeconds, LEASE_SECONDS],
        );
        if (rows.length === 0) return 0;
        await enqueueAudienceJobs(
          this.queue,
          rows.map((r) => ({ id: Number(r.id), scheduledAt: new Date(0) })),
        );
        this.logger.info({ audience_jobs: rows.length }, 'sweeper queued due audience jobs');
        return rows.length;
      });
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'audience job sweep failed; next one retries');
      return 0;
    }
  }
}
