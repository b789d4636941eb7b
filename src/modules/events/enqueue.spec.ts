import type { Queue } from 'bullmq';
import { enqueueEvents, JOB_EVENTS } from './enqueue.js';

type Added = Array<{ name: string; data: { eventIds: string[]; occurredAt: string[] }; opts: { jobId: string } }>;

/** Packs events as enqueueEvents does and answers the jobs it hands to addBulk. */
async function jobsFor(events: Array<{ id: string; occurredAt: string; customerId: string | null }>): Promise<Added> {
  const added: Added = [];
  const queue = { addBulk: async (jobs: Added) => void added.push(...jobs) } as unknown as Queue;
  await enqueueEvents(queue, events, 'evaluate', 'v2');
  return added;
}

const events = (customer: string | null, count: number, from: number) =>
  Array.from({ length: count }, (_, i) => ({ id: String(from + i), occurredAt: at(from + i), customerId: customer }));
/** A distinct occurred_at per id, as the log writes keys. */
const at = (id: number) => new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString().replace('Z', '000Z');

describe('enqueueEvents', () => {
  it('packs several customers into one job, each customer’s events together and in the order given', async () => {
    const jobs = await jobsFor([...events('a', 2, 1), ...events('b', 1, 3), ...events('a', 1, 4)]);
    expect(jobs.map((j) => j.data.eventIds)).toEqual([['1', '2', '4', '3']]);
    // Each event's occurred_at travels with its id, in the same order: the worker finds it in its month alone.
    expect(jobs[0].data.occurredAt).toEqual([at(1), at(2), at(4), at(3)]);
    expect(jobs[0]).toMatchObject({ name: 'evaluate', opts: { jobId: 'v2-1', attempts: 5, removeOnComplete: true } });
  });

  it(`starts a new job when the next customer would take it past ${JOB_EVENTS} events`, async () => {
    const jobs = await jobsFor([...events('a', JOB_EVENTS - 10, 1), ...events('b', 20, 1000), ...events('c', 5, 2000)]);
    expect(jobs.map((j) => j.data.eventIds.length)).toEqual([JOB_EVENTS - 10, 25]);
    expect(jobs.map((j) => j.opts.jobId)).toEqual(['v2-1', 'v2-1000']);
  });

  it('never splits one customer’s events, even past the limit', async () => {
    const jobs = await jobsFor([...events('a', 3, 1), ...events('b', JOB_EVENTS + 50, 100)]);
    expect(jobs.map((j) => j.data.eventIds.length)).toEqual([3, JOB_EVENTS + 50]);
  });

  it('packs events without a customer (the worker rejects them) with the others', async () => {
    const jobs = await jobsFor([...events(null, 2, 1), ...events('a', 1, 3)]);
    expect(jobs.map((j) => j.data.eventIds)).toEqual([['1', '2', '3']]);
  });
});
