import type { Queue } from 'bullmq';
import type { EvaluateJobData } from './events.processor.js';

const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 10_000, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };
/** Events per job, at most (but one customer's events of one call are never split): a worker evaluates a job in one transaction. */
export const JOB_EVENTS = 200;

/**
 * Queues stored events in jobs of whole customers: a customer's events of one call stay together, in the order given
 * (a worker evaluates them in occurred_at order), and a job packs several customers' events up to JOB_EVENTS, which
 * a worker loads, evaluates and writes together. Job ids derive from the first event id and `origin`, so the same job
 * queued twice while it is waiting is one job.
 */
export async function enqueueEvents(queue: Queue, events: Array<{ id: string; customer_id: string | null }>, name: string, origin: string): Promise<void> {
  const customers = new Map<string, string[]>();
  for (const e of events) {
    const key = e.customer_id ?? `unknown:${e.id}`;
    customers.set(key, [...(customers.get(key) ?? []), e.id]);
  }
  const jobs: string[][] = [];
  for (const ids of customers.values()) {
    const last = jobs.at(-1);
    if (last && last.length + ids.length <= JOB_EVENTS) last.push(...ids);
    else jobs.push([...ids]);
  }
  await queueJobs(queue, jobs, name, origin);
}

/** Queues one job per list of event ids, as given (no packing); job ids derive from each list's first id and `origin`. */
export async function queueJobs(queue: Queue, jobs: string[][], name: string, origin: string): Promise<void> {
  await queue.addBulk(jobs.map((eventIds) => ({ name, data: { eventIds } satisfies EvaluateJobData, opts: { ...JOB_OPTIONS, jobId: `${origin}-${eventIds[0]}` } })));
}
