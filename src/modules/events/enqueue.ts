import type { Queue } from 'bullmq';
import type { EvaluateJobData } from './events.processor.js';

const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 10_000, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };

/**
 * Queues stored events, one job per customer (in the order given), so a worker evaluates one customer's events
 * together and in order. Job ids derive from the first event id and `origin`, so the same job queued twice while it
 * is waiting is one job.
 */
export async function enqueueEvents(queue: Queue, events: Array<{ id: string; customer_id: string | null }>, name: string, origin: string): Promise<void> {
  const groups = new Map<string, string[]>();
  for (const e of events) {
    const key = e.customer_id ?? `unknown:${e.id}`;
    groups.set(key, [...(groups.get(key) ?? []), e.id]);
  }
  await queue.addBulk(
    [...groups.values()].map((eventIds) => ({
      name,
      data: { eventIds } satisfies EvaluateJobData,
      opts: { ...JOB_OPTIONS, jobId: `${origin}-${eventIds[0]}` },
    })),
  );
}
