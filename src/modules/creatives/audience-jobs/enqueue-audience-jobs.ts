import type { Queue } from 'bullmq';
import { AudienceJobsJob } from '../../../queues/queue-names.js';

export interface AudienceJobData {
  audienceJobId: number;
}

const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 10_000, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };

/**
 * Queues one delayed job per audience job row, due at its scheduled time. The job id is the row's, so queueing a row
 * whose job still exists adds nothing (the sweeper may queue due rows again safely). The job only wakes a worker: the
 * row decides whether anything runs.
 */
export async function enqueueAudienceJobs(queue: Queue, rows: Array<{ id: number; scheduledAt: Date }>, now: number): Promise<void> {
  if (rows.length === 0) return;
  await queue.addBulk(
    rows.map((row) => ({
      name: AudienceJobsJob.Deliver,
      data: { audienceJobId: row.id } satisfies AudienceJobData,
      opts: { ...JOB_OPTIONS, jobId: `audience-job-${row.id}`, delay: Math.max(0, row.scheduledAt.getTime() - now) },
    })),
  );
}
