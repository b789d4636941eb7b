import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { CLOCK, type Clock } from '../../common/clock.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { QueueName } from '../../queues/queue-names.js';
import { EventCounters } from '../metrics/index.js';
import type { SimulationJobData } from './enqueue-simulation.js';
import { RunSimulationUseCase, SimulationImpossible } from './run-simulation.use-case.js';

/** How long a simulation waits for its organization's turn (SIMULATIONS_PER_ORGANIZATION) before it asks again. */
const BUSY_RETRY_MS = 2_000;

/**
 * The worker side of the simulations queue, one simulation at a time per worker process (a replay keeps a core
 * busy). One JSON log line per run. A simulation whose organization already runs its share waits, delayed; a failed
 * run throws so that BullMQ retries it, and the last failure (or the simulation's third run, SimulationsRepository)
 * leaves the simulation failed. Each run that ends is counted by outcome (`simulations_total` on /metrics).
 */
@Processor(QueueName.Simulations, { concurrency: 1 })
export class SimulationsProcessor extends WorkerHost {
  constructor(
    private readonly useCase: RunSimulationUseCase,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly counters: EventCounters,
  ) {
    super();
  }

  async process(job: Job<SimulationJobData>, token?: string): Promise<void> {
    const started = this.clock.now();
    const base = { job_id: job.id, simulation_id: job.data.simulationId };
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    try {
      const result = await this.useCase.execute(job.data.simulationId, final);
      if (result.outcome === 'busy') {
        // BullMQ's delays are wall-clock times: the service's clock is the system's outside tests.
        await job.moveToDelayed(this.clock.now() + BUSY_RETRY_MS, token);
        throw new DelayedError();
      }
      if (result.outcome !== 'skipped') this.counters.count('simulations_total', result.outcome);
      this.logger.info({ ...base, ...result, duration_ms: this.clock.now() - started }, 'simulation');
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      const impossible = error instanceof SimulationImpossible;
      if (final || impossible) this.counters.count('simulations_total', 'failed');
      this.logger.warn({ ...base, outcome: final || impossible ? 'failed' : 'retrying', err: (error as Error).message, duration_ms: this.clock.now() - started }, 'simulation');
      throw impossible ? new UnrecoverableError((error as Error).message) : error;
    }
  }
}
