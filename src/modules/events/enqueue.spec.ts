import { JOB_EVENTS, packJobs, type QueuedEvent } from './enqueue.js';

const events = (customer: string | null, count: number, from: number, organizationId = 1): QueuedEvent[] =>
  Array.from({ length: count }, (_, i) => ({ id: String(from + i), occurredAt: at(from + i), customerId: customer, organizationId }));
/** A distinct occurred_at per id, as the log writes keys. */
const at = (id: number) => new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString().replace('Z', '000Z');
const ids = (jobs: ReturnType<typeof packJobs>) => jobs.map((j) => j.keys.map((k) => k.id));

describe('packJobs', () => {
  it('packs several customers into one job, each customer’s events together and in the order given', () => {
    const jobs = packJobs([...events('a', 2, 1), ...events('b', 1, 3), ...events('a', 1, 4)]);
    expect(ids(jobs)).toEqual([['1', '2', '4', '3']]);
    // Each event's occurred_at travels with its id, in the same order: the worker finds it in its month alone.
    expect(jobs[0].keys.map((k) => k.occurredAt)).toEqual([at(1), at(2), at(4), at(3)]);
    expect(jobs[0].organizationId).toBe(1);
  });

  it(`starts a new job when the next customer would take it past ${JOB_EVENTS} events`, () => {
    const jobs = packJobs([...events('a', JOB_EVENTS - 10, 1), ...events('b', 20, 1000), ...events('c', 5, 2000)]);
    expect(jobs.map((j) => j.keys.length)).toEqual([JOB_EVENTS - 10, 25]);
    expect(jobs.map((j) => j.keys[0].id)).toEqual(['1', '1000']);
  });

  it('never splits one customer’s events, even past the limit', () => {
    const jobs = packJobs([...events('a', 3, 1), ...events('b', JOB_EVENTS + 50, 100)]);
    expect(jobs.map((j) => j.keys.length)).toEqual([3, JOB_EVENTS + 50]);
  });

  it('packs events without a customer (the worker rejects them) with the others', () => {
    expect(ids(packJobs([...events(null, 2, 1), ...events('a', 1, 3)]))).toEqual([['1', '2', '3']]);
  });

  it('never puts two organizations’ events in one job, and keeps customers of the same id in different organizations apart', () => {
    const jobs = packJobs([...events('a', 2, 1, 1), ...events('a', 1, 3, 2), ...events('b', 1, 4, 1)]);
    expect(jobs.map((j) => [j.organizationId, j.keys.map((k) => k.id)])).toEqual([
      [1, ['1', '2', '4']],
      [2, ['3']],
    ]);
  });
});
