import type { Queue } from 'bullmq';
import { SimulationsJob } from '../../queues/queue-names.js';

export interface SimulationJobData {
  simulationId: number;
}

const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 1_000, attempts: 3, backoff: { type: 'exponential', delay: 1_000 } };

/** The job id of a simulation's run after `attempt` claims: queueing it again while that job exists adds nothing. */
export const simulationJobId = (id: number, attempt: number) => `simulation-${id}-${attempt}`;

/**
 * Queues a job that wakes a worker for the simulation. The job only wakes it: the row's claim decides whether anything
 * runs, so a duplicate job changes nothing. The id names the row's attempt, so that the sweeper can queue a simulation
 * whose runner died at once, while the dead runner's job is still held by BullMQ.
 */
export async function enqueueSimulation(queue: Queue, id: number, attempt: number): Promise<void> {
  await queue.add(SimulationsJob.Run, { simulationId: id } satisfies SimulationJobData, { ...JOB_OPTIONS, jobId: simulationJobId(id, attempt) });
}
