import type { Queue } from 'bullmq';
import type { EventKey } from '../evaluation/event-keys.js';

const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 10_000, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };
/** Events per job, at most (but one customer's events of one call are never split): a worker evaluates a job in one transaction. */
export const JOB_EVENTS = 200;

/**
 * Queues stored events in jobs of whole customers: a customer's events of one call stay together, in the order given
 * (a worker evaluates them in occurred_at order), and a job packs several customers' events up to JOB_EVENTS, which
 * a worker loads, evaluates and writes together. Job ids derive from the first event id and `origin`, so the same job
 * queued twice while it is waiting is one job.
 */
export async function enqueueEvents(queue: Queue, events: Array<EventKey & { customerId: string | null }>, name: string, origin: string): Promise<void> {
  const customers = new Map<string, EventKey[]>();
  for (const { customerId, ...key } of events) {
    const customer = customerId ?? `unknown:${key.id}`;
    customers.set(customer, [...(customers.get(customer) ?? []), key]);
  }
  const jobs: EventKey[][] = [];
  for (const ids of customers.values()) {
    const last = jobs.at(-1);
    if (last && last.length + ids.length <= JOB_EVENTS) last.push(...ids);
    else jobs.push([...ids]);
  }
  await queueJobs(queue, jobs, name, origin);
}

/**
 * What a job of the events queue carries: its events' ids, and their occurred_at (the log's partition key) in the same
 * order. Jobs queued before `occurredAt` existed carry ids alone; the worker then looks their times up.
 */
export interface EvaluateJobData {
  eventIds: string[];
  occurredAt?: string[];
}

/** The data of a job naming these events. */
export const jobData = (keys: EventKey[]): EvaluateJobData => ({ eventIds: keys.map((k) => k.id), occurredAt: keys.map((k) => k.occurredAt) });

/** Queues one job per list of events, as given (no packing); job ids derive from each list's first id and `origin`. */
export async function queueJobs(queue: Queue, jobs: EventKey[][], name: string, origin: string): Promise<void> {
  await queue.addBulk(jobs.map((keys) => ({ name, data: jobData(keys), opts: { ...JOB_OPTIONS, jobId: `${origin}-${keys[0].id}` } })));
}
