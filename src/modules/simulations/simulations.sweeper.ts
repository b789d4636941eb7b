import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { PeriodicSweep } from '../../common/scheduling/periodic-sweep.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { removeFailedJobs } from '../../queues/failed-jobs.js';
import { QueueName } from '../../queues/queue-names.js';
import { enqueueSimulation, simulationJobId } from './enqueue-simulation.js';
import { SimulationsRepository } from './simulations.repository.js';

/**
 * Queues simulations whose job may be lost: queued for longer than SWEEP_AFTER_SECONDS (Redis down when it was
 * created, or flushed), and running ones whose runner stopped renewing its lease (its worker died). The job id names
 * the row's attempt: a job that still exists is not queued twice, and the claim makes a second run a no-op.
 */
@Injectable()
export class SimulationsSweeper extends PeriodicSweep {
  constructor(
    @InjectDataSource() db: DataSource,
    private readonly simulations: SimulationsRepository,
    @InjectQueue(QueueName.Simulations) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(db, logger, 7_700_006, 'simulation');
  }

  protected async sweepLocked(): Promise<number> {
    const rows = await this.simulations.unattended(this.config.sweepAfterSeconds);
    if (rows.length === 0) return 0;
    await removeFailedJobs(
      this.queue,
      rows.map((r) => simulationJobId(r.id, r.attempt)),
    );
    for (const row of rows) await enqueueSimulation(this.queue, row.id, row.attempt);
    this.logger.info({ simulations: rows.length }, 'sweeper queued simulations');
    return rows.length;
  }
}
