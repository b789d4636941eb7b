import type { Queue } from 'bullmq';
import { OrganizationBacklog } from '../../queues/organization-backlog.js';
import type { EventKey } from '../evaluation/index.js';

const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 10_000, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };
/** Events per job, at most (but one customer's events of one call are never split): a worker evaluates a job in one transaction. */
export const JOB_EVENTS = 200;

/** A stored event to queue: its key, its customer (null: none, the worker rejects it) and its organization. */
export interface QueuedEvent extends EventKey {
  customerId: string | null;
  organizationId: number;
}

/** The events of one job, all of one organization (undefined: a job queued before jobs named theirs). */
export interface OrganizationJob {
  organizationId?: number;
  keys: EventKey[];
}

/**
 * Jobs of whole customers, each of one organization: a customer's events of one call stay together, in the order
 * given (a worker evaluates them in occurred_at order), and a job packs several customers' events up to JOB_EVENTS,
 * which a worker loads, evaluates and writes together.
 */
export function packJobs(events: QueuedEvent[]): OrganizationJob[] {
  const customers = new Map<string, { organizationId: number; keys: EventKey[] }>();
  for (const { customerId, organizationId, ...key } of events) {
    const customer = `${organizationId}:${customerId ?? `unknown:${key.id}`}`;
    const entry = customers.get(customer) ?? { organizationId, keys: [] };
    entry.keys.push(key);
    customers.set(customer, entry);
  }
  const jobs: OrganizationJob[] = [];
  const open = new Map<number, OrganizationJob>();
  for (const { organizationId, keys } of customers.values()) {
    const last = open.get(organizationId);
    if (last && last.keys.length + keys.length <= JOB_EVENTS) last.keys.push(...keys);
    else {
      const job = { organizationId, keys: [...keys] };
      jobs.push(job);
      open.set(organizationId, job);
    }
  }
  return jobs;
}

/**
 * Queues stored events in jobs of whole customers (packJobs). `counted`: the jobs are new work of their organizations
 * and count in their backlogs (OrganizationBacklog: fair turns between organizations); a sweep queues again what
 * may already be queued, at its organization's current place, uncounted. Job ids derive from the first
 * event id and `origin`, so the same job queued twice while it is waiting is one job. `requestId`: the request that
 * sent the events, carried in the jobs for the worker's traces.
 */
export async function enqueueEvents(queue: Queue, events: QueuedEvent[], name: string, origin: string, counted = true, requestId?: string): Promise<void> {
  await queueJobs(queue, packJobs(events), name, origin, counted, requestId);
}

/**
 * What a job of the events queue carries: its events' ids, their occurred_at (the log's partition key) in the same
 * order, its organization, whether it counts in the organization's backlog (the worker counts it out when it
 * ends), and the id of the request that sent its events (none for a sweep's). Jobs queued before `occurredAt`
 * existed carry ids alone (the worker looks their times up); before `organizationId` existed, no organization
 * (queued without priority: BullMQ takes those first).
 */
export interface EvaluateJobData {
  eventIds: string[];
  occurredAt?: string[];
  organizationId?: number;
  inBacklog?: boolean;
  requestId?: string;
}

/** Queues one job per list of events, as given (no packing); job ids derive from each list's first id and `origin`. */
export async function queueJobs(queue: Queue, jobs: OrganizationJob[], name: string, origin: string, counted: boolean, requestId?: string): Promise<void> {
  const backlog = new OrganizationBacklog(queue);
  const priorities = await placesOf(backlog, jobs, counted);
  const added = queue.addBulk(
    jobs.map(({ organizationId, keys }, i) => ({
      name,
      data: {
        eventIds: keys.map((k) => k.id),
        occurredAt: keys.map((k) => k.occurredAt),
        organizationId,
        inBacklog: counted && organizationId !== undefined,
        requestId,
      } satisfies EvaluateJobData,
      opts: { ...JOB_OPTIONS, jobId: `${origin}-${keys[0].id}`, priority: priorities[i] },
    })),
  );
  await added.catch(async (error: unknown) => {
    // Not queued: counted out again (the sweeper queues these events later).
    if (counted) await Promise.all([...jobsByOrganization(jobs)].map(([organizationId, indexes]) => backlog.done(organizationId, indexes.length))).catch(() => undefined);
    throw error;
  });
}

/** Each job's priority: its place in its organization's backlog (none for a job without an organization). */
async function placesOf(backlog: OrganizationBacklog, jobs: OrganizationJob[], counted: boolean): Promise<Array<number | undefined>> {
  const priorities: Array<number | undefined> = jobs.map(() => undefined);
  for (const [organizationId, indexes] of jobsByOrganization(jobs)) {
    const places = counted ? await backlog.add(organizationId, indexes.length) : new Array<number>(indexes.length).fill(await backlog.current(organizationId));
    indexes.forEach((job, j) => (priorities[job] = places[j]));
  }
  return priorities;
}

/** The indexes of each organization's jobs (jobs without an organization left out). */
function jobsByOrganization(jobs: OrganizationJob[]): Map<number, number[]> {
  const indexes = new Map<number, number[]>();
  jobs.forEach(({ organizationId }, i) => {
    if (organizationId !== undefined) indexes.set(organizationId, [...(indexes.get(organizationId) ?? []), i]);
  });
  return indexes;
}
