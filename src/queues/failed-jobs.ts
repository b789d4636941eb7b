import type { Queue } from 'bullmq';

/**
 * Removes the jobs of these ids that BullMQ keeps as failed. A job id stays taken while its failed job is kept, and
 * adding a job under a taken id adds nothing: a sweeper that re-queues a row whose job failed every attempt (the
 * database down at the time, say) must clear the failed job first, or the row would never run again.
 */
export async function removeFailedJobs(queue: Queue, jobIds: string[]): Promise<void> {
  for (const id of jobIds) {
    const job = await queue.getJob(id);
    if (job && (await job.isFailed())) await job.remove();
  }
}
