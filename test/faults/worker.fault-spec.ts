import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { Queue } from 'bullmq';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/config.js';
import { EventsJob, QueueName } from '../../src/queues/queue-names.js';
import { createTestApp } from '../support/app.js';
import { useOwnDatabase } from '../support/database.js';
import { deleteQueueKeys, killWorker, logLines, ownQueuePrefix, signalGroup, spawnNpmWorker, spawnWorker, startTestWorker, waitFor, WorkerProcess } from '../support/worker.js';
import { api, createTenant, TestTenant } from '../factories/tenant.factory.js';
import { createCampaign } from '../factories/campaign.factory.js';
import { createCustomer } from '../factories/customer.factory.js';
import { createBehavior } from '../factories/behavior.factory.js';

type Customer = { id: string; external_id: string };

/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 60_000;
const LONG_TEST_MS = 150_000;
// Hooks and tests wait for workers (each wait bounded above); jest's own 5 s default would cut them short.
jest.setTimeout(SETTLE_MS + 15_000);

/**
 * Every describe below runs the API and its workers on a queue prefix of its own (QUEUE_PREFIX-<suffix>), so deleting
 * keys or killing a worker disturbs no other test's jobs. The database is the run's.
 */
describe('the events worker', () => {
  const redisUrl = loadConfig(process.env).redisUrl;
  const prefixes: string[] = [];
  const children: WorkerProcess[] = [];

  // A database of its own (a copy of the run's template): its workers' sweepers queue every pending row of their
  // database, and on the shared one they would take the pending events and deliveries of specs running beside it.
  beforeAll(() => useOwnDatabase('worker-faults'));

  afterAll(async () => {
    for (const child of children) await killWorker(child);
    for (const prefix of prefixes) await deleteQueueKeys(prefix);
  });

  function prefixFor(suffix: string): string {
    const prefix = ownQueuePrefix(suffix);
    prefixes.push(prefix);
    return prefix;
  }

  function spawn(env: Record<string, string>, start = spawnWorker): WorkerProcess {
    const child = start(env);
    children.push(child);
    return child;
  }

  async function createCustomers(app: INestApplication, tenant: TestTenant, count: number): Promise<Customer[]> {
    const customers: Customer[] = [];
    for (const group of chunks(Array.from({ length: count }, (_, i) => i), 10)) {
      customers.push(...(await Promise.all(group.map(() => createCustomer(app, tenant)))));
    }
    return customers;
  }

  /** A BullMQ queue of our own on the events queue under `prefix` (the same connection settings as the service). */
  function queueOn(prefix: string): Queue {
    return new Queue(QueueName.Events, { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix });
  }

  /** The API on `prefix`, a tenant whose `visit` earns 10 points, every third `visit` 7 more, and helpers. */
  async function setup(prefix: string) {
    const app = await createTestApp({ queuePrefix: prefix });
    const db = app.get(DataSource);
    const tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Visit', event: 'visit', event_count: 1, points: 10 });
    await createBehavior(app, tenant, campaign.id, { name: 'Three visits', event: 'visit', event_count: 3, points: 7 });
    return { app, db, tenant };
  }

  async function sendV2(app: INestApplication, tenant: TestTenant, events: unknown[]): Promise<void> {
    const res = await request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).send({ events });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
  }

  async function statusCounts(db: DataSource, tenant: TestTenant): Promise<Record<string, number>> {
    const rows: Array<{ status: string; n: number }> = await db.query(
      `SELECT status, count(*)::int AS n FROM events WHERE organization_id = $1 GROUP BY status`,
      [tenant.organizationId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** Waits (bounded) until the organization has `expected` events, none pending. */
  async function settled(db: DataSource, tenant: TestTenant, expected: number, timeoutMs = SETTLE_MS): Promise<void> {
    await waitFor(
      async () => {
        const counts = await statusCounts(db, tenant);
        const total = Object.values(counts).reduce((a, b) => a + b, 0);
        return total === expected && !counts.pending;
      },
      timeoutMs,
      `${expected} events processed`,
    );
  }

  /**
   * Per customer: points as the API answers them, the points ledger, and what the events say they earned. An event
   * processed twice would show as a second set of ledger rows or points.
   */
  async function books(app: INestApplication, db: DataSource, tenant: TestTenant, customers: Customer[]) {
    const ledger: Array<{ customer_id: string; rows: number; sum: number }> = await db.query(
      `SELECT customer_id, count(*)::int AS rows, sum(amount)::int AS sum FROM points_ledger WHERE organization_id = $1 GROUP BY customer_id`,
      [tenant.organizationId],
    );
    const earned: Array<{ customer_id: string; events: number; processed: number; points: number }> = await db.query(
      `SELECT customer_id, count(*)::int AS events, count(*) FILTER (WHERE status = 'processed')::int AS processed, sum(points_earned)::int AS points
         FROM events WHERE organization_id = $1 GROUP BY customer_id`,
      [tenant.organizationId],
    );
    const out: Record<string, { available: number; lifetime: number; ledgerRows: number; ledgerSum: number; events: number; processed: number; earned: number }> = {};
    for (const c of customers) {
      const res = await api(app, tenant).get(`/users/${c.id}`).expect(200);
      const l = ledger.find((r) => r.customer_id === c.id);
      const e = earned.find((r) => r.customer_id === c.id);
      out[c.external_id] = {
        available: res.body.user.available_points,
        lifetime: res.body.user.lifetime_points,
        ledgerRows: l?.rows ?? 0,
        ledgerSum: l?.sum ?? 0,
        events: e?.events ?? 0,
        processed: e?.processed ?? 0,
        earned: e?.points ?? 0,
      };
    }
    return out;
  }

  /** What `visits` visits are worth, each processed once: 10 each, 7 more per third, one ledger row per credit. */
  function expectedBooks(visits: number) {
    const points = 10 * visits + 7 * Math.floor(visits / 3);
    return { available: points, lifetime: points, ledgerRows: visits + Math.floor(visits / 3), ledgerSum: points, events: visits, processed: visits, earned: points };
  }

  /** A deterministic shuffle (the same every run). */
  function shuffled<T>(items: T[]): T[] {
    const out = [...items];
    let seed = 12345;
    for (let i = out.length - 1; i > 0; i -= 1) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const j = seed % (i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** `perCustomer` visits for every customer, shuffled, alternately by user_id and external_id. */
  function visits(customers: Customer[], perCustomer: number): Array<Record<string, string>> {
    const all = customers.flatMap((c) =>
      Array.from({ length: perCustomer }, (_, k): Record<string, string> => (k % 2 === 0 ? { name: 'visit', user_id: c.id } : { name: 'visit', external_id: c.external_id })),
    );
    return shuffled(all);
  }

  function chunks<T>(items: T[], size: number): T[][] {
    return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
  }

  async function eventIdsOf(db: DataSource, customer: Customer): Promise<string[]> {
    const rows: Array<{ id: string }> = await db.query(`SELECT id FROM events WHERE customer_id = $1 ORDER BY id`, [customer.id]);
    return rows.map((r) => r.id);
  }

  /** What a second delivery must not change: the events as stored and the customer's points and ledger. */
  async function snapshot(app: INestApplication, db: DataSource, tenant: TestTenant, customer: Customer) {
    const events = await db.query(
      `SELECT id, status, reason, points_earned::int AS points_earned, processed_at, result FROM events WHERE customer_id = $1 ORDER BY id`,
      [customer.id],
    );
    const ledger = await db.query(`SELECT id, event_id, amount, reason FROM points_ledger WHERE customer_id = $1 ORDER BY id`, [customer.id]);
    const progress = (await api(app, tenant).get(`/users/${customer.id}/events`).expect(200)).body;
    return { events, ledger, progress, books: await books(app, db, tenant, [customer]) };
  }

  async function jobFinished(queue: Queue, jobId: string): Promise<string> {
    await waitFor(async () => ['completed', 'failed'].includes(await queue.getJobState(jobId)), SETTLE_MS, `job ${jobId} to finish`);
    return queue.getJobState(jobId);
  }

  // ---------------------------------------------------------------------------------------------------------------
  describe('a job delivered twice', () => {
    let app: INestApplication;
    let db: DataSource;
    let tenant: TestTenant;
    let worker: INestApplicationContext;
    let queue: Queue;

    beforeAll(async () => {
      const prefix = prefixFor('dup');
      ({ app, db, tenant } = await setup(prefix));
      worker = await startTestWorker({ queuePrefix: prefix });
      queue = queueOn(prefix);
    });
    afterAll(async () => {
      await queue?.close();
      await worker?.close();
      await app?.close();
    });

    it('again after it was processed: the second delivery changes nothing', async () => {
      const customer = await createCustomer(app, tenant);
      await sendV2(app, tenant, [
        { name: 'visit', user_id: customer.id },
        { name: 'visit', user_id: customer.id },
        { name: 'visit', external_id: customer.external_id },
      ]);
      await settled(db, tenant, await eventCount(db, tenant));
      const before = await snapshot(app, db, tenant, customer);
      expect(before.books[customer.external_id]).toEqual(expectedBooks(3));

      const eventIds = await eventIdsOf(db, customer);
      const job = await queue.add(EventsJob.Evaluate, { eventIds }, { jobId: `replay-${eventIds[0]}` });
      expect(await jobFinished(queue, job.id!)).toBe('completed');
      expect(await snapshot(app, db, tenant, customer)).toEqual(before);
    });

    it('twice at once before it was processed: processed once', async () => {
      const customer = await createCustomer(app, tenant);
      await queue.pause();
      try {
        await sendV2(app, tenant, [
          { name: 'visit', user_id: customer.id },
          { name: 'visit', user_id: customer.id },
          { name: 'visit', user_id: customer.id },
          { name: 'visit', user_id: customer.id },
        ]);
        const eventIds = await eventIdsOf(db, customer);
        expect(eventIds).toHaveLength(4);
        const copies = await queue.addBulk(
          ['copy-a', 'copy-b', 'copy-c'].map((tag) => ({ name: EventsJob.Evaluate, data: { eventIds }, opts: { jobId: `${tag}-${eventIds[0]}` } })),
        );
        await queue.resume();
        for (const job of copies) expect(await jobFinished(queue, job.id!)).toBe('completed');
      } finally {
        await queue.resume();
      }
      await settled(db, tenant, await eventCount(db, tenant));
      expect((await books(app, db, tenant, [customer]))[customer.external_id]).toEqual(expectedBooks(4));
    });
  });

  async function eventCount(db: DataSource, tenant: TestTenant): Promise<number> {
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1`, [tenant.organizationId]);
    return n;
  }

  // ---------------------------------------------------------------------------------------------------------------
  describe('a customer whose evaluation fails', () => {
    it("fails alone: the job of several customers is split, the others' events are processed", async () => {
      const prefix = prefixFor('split');
      const { app, db, tenant } = await setup(prefix);
      const worker = await startTestWorker({ queuePrefix: prefix });
      try {
        const [bad, good] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
        await sendV2(app, tenant, [{ name: 'visit', user_id: bad.id }]);
        await settled(db, tenant, 1);
        // Progress the engine cannot read: evaluating this customer throws.
        await db.query(`UPDATE customer_progress SET state = '"corrupt"'::jsonb WHERE customer_id = $1`, [bad.id]);
        await sendV2(app, tenant, [
          { name: 'visit', user_id: bad.id },
          { name: 'visit', user_id: good.id },
        ]);
        await waitFor(
          async () => (await db.query(`SELECT status FROM events WHERE customer_id = $1`, [good.id]))[0]?.status === 'processed',
          SETTLE_MS,
          "the healthy customer's event",
        );
        expect((await books(app, db, tenant, [good]))[good.external_id]).toEqual(expectedBooks(1));
        const badStatuses: Array<{ status: string }> = await db.query(`SELECT status FROM events WHERE customer_id = $1 ORDER BY id`, [bad.id]);
        expect(badStatuses.map((r) => r.status)).toEqual(['processed', expect.stringMatching(/^(pending|failed)$/)]);
      } finally {
        await worker.close();
        await app.close();
      }
    }, LONG_TEST_MS);
  });

  describe('two workers on one queue', () => {
    let app: INestApplication;
    let db: DataSource;
    let tenant: TestTenant;
    const workers: INestApplicationContext[] = [];

    beforeAll(async () => {
      const prefix = prefixFor('two');
      ({ app, db, tenant } = await setup(prefix));
      workers.push(await startTestWorker({ queuePrefix: prefix, workerConcurrency: 8 }));
      workers.push(await startTestWorker({ queuePrefix: prefix, workerConcurrency: 8 }));
    });
    afterAll(async () => {
      for (const worker of workers) await worker.close();
      await app?.close();
    });

    it('200 events for 20 customers in concurrent batches: exact points for each customer, every event processed once', async () => {
      const customers = await Promise.all(Array.from({ length: 20 }, () => createCustomer(app, tenant)));
      await Promise.all(chunks(visits(customers, 10), 20).map((batch) => sendV2(app, tenant, batch)));
      await settled(db, tenant, 200);
      const result = await books(app, db, tenant, customers);
      expect(result).toEqual(Object.fromEntries(customers.map((c) => [c.external_id, expectedBooks(10)])));
    }, LONG_TEST_MS);
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('Redis loses the jobs', () => {
    let app: INestApplication;
    let db: DataSource;
    let tenant: TestTenant;
    let prefix: string;
    let worker: INestApplicationContext | undefined;

    beforeAll(async () => {
      prefix = prefixFor('lost');
      ({ app, db, tenant } = await setup(prefix));
    });
    afterAll(async () => {
      await worker?.close();
      await app?.close();
    });

    it('the sweeper queues the stored events again and each is processed exactly once', async () => {
      const customers = await Promise.all(Array.from({ length: 5 }, () => createCustomer(app, tenant)));
      for (const batch of chunks(visits(customers, 6), 10)) await sendV2(app, tenant, batch);
      expect(await statusCounts(db, tenant)).toEqual({ pending: 30 });

      const queue = queueOn(prefix);
      try {
        const queued = await queue.getJobCounts('waiting', 'prioritized');
        expect(queued.waiting + queued.prioritized).toBeGreaterThan(0);
        expect(await deleteQueueKeys(prefix, `${QueueName.Events}:*`)).toBeGreaterThan(0);
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');
        expect(Object.values(counts).every((n) => n === 0)).toBe(true);
      } finally {
        await queue.close();
      }
      // Nothing in Redis any more: the events are still only stored.
      expect(await statusCounts(db, tenant)).toEqual({ pending: 30 });

      worker = await startTestWorker({ queuePrefix: prefix, sweepAfterSeconds: 1 });
      await settled(db, tenant, 30);
      expect(await books(app, db, tenant, customers)).toEqual(Object.fromEntries(customers.map((c) => [c.external_id, expectedBooks(6)])));
    }, LONG_TEST_MS);
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('a worker process', () => {
    it('logs one JSON line per job with job_id, events and what it did', async () => {
      const prefix = prefixFor('log');
      const { app, db, tenant } = await setup(prefix);
      try {
        const child = spawn({ QUEUE_PREFIX: prefix });
        await waitFor(() => logLines(child).some((l) => l.msg === 'worker ready'), 20_000, `worker ready (stderr: ${child.stderr})`);
        const [a, b] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
        await sendV2(app, tenant, [
          { name: 'visit', user_id: a.id },
          { name: 'visit', external_id: 'nobody-here' },
          { name: 'visit', user_id: b.id },
          { name: 'visit', external_id: a.external_id },
          { name: 'visit', user_id: a.id },
        ]);
        await settled(db, tenant, 5);
        const rows: Array<{ id: string; customer_id: string | null }> = await db.query(
          `SELECT id, customer_id FROM events WHERE organization_id = $1 ORDER BY id`,
          [tenant.organizationId],
        );
        // The request's customers packed into one job (well under JOB_EVENTS), named after its first event.
        const expected = [{ job_id: `v2-${rows[0].id}`, events: 5, processed: 4, rejected: 1, skipped: 0 }];
        const ours = () => logLines(child).filter((l) => l.msg === 'job' && expected.some((e) => e.job_id === l.job_id));
        await waitFor(() => ours().length >= expected.length, 20_000, 'the job log lines');
        expect(ours().sort((x, y) => String(x.job_id).localeCompare(String(y.job_id)))).toEqual(
          [...expected]
            .sort((x, y) => x.job_id.localeCompare(y.job_id))
            .map((e) => expect.objectContaining({ ...e, msg: 'job', job: EventsJob.Evaluate, service: 'worker', duration_ms: expect.any(Number) })),
        );
        expect(child.stderr).toBe('');
        await killWorker(child, 'SIGTERM');
      } finally {
        await app.close();
      }
    }, LONG_TEST_MS);

    it('started with npm run start:worker: evaluates V2 and V1 async events, and stops on SIGTERM', async () => {
      const prefix = prefixFor('npm');
      const { app, db, tenant } = await setup(prefix);
      try {
        const child = spawn({ QUEUE_PREFIX: prefix }, spawnNpmWorker);
        await waitFor(() => logLines(child).some((l) => l.msg === 'worker ready'), SETTLE_MS, `worker ready (stderr: ${child.stderr})`);
        const [a, b] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
        await sendV2(app, tenant, visits([a, b], 2));
        const res = await request(app.getHttpServer())
          .post(`/priv/v1/apps/${tenant.apiKey}/users/${a.id}/events?async=true`)
          .auth(tenant.apiKey, tenant.apiSecret)
          .send({ events: { visit: 1 } });
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
        await settled(db, tenant, 5);
        expect(await books(app, db, tenant, [a, b])).toEqual({ [a.external_id]: expectedBooks(3), [b.external_id]: expectedBooks(2) });
        expect(child.stderr).toBe('');
        signalGroup(child, 'SIGTERM');
        await child.exited;
        await waitFor(() => logLines(child).some((l) => l.msg === 'worker stopping: finishing jobs in flight'), 10_000, 'the worker to stop');
      } finally {
        await app.close();
      }
    }, LONG_TEST_MS);

    it('SIGTERM with a job in flight: that job finishes, no other starts, exit code 0; the next worker takes the rest', async () => {
      const prefix = prefixFor('term');
      const { app, db, tenant } = await setup(prefix);
      const queue = queueOn(prefix);
      try {
        const customers = await createCustomers(app, tenant, 100);
        // 20 requests of one visit per customer: 20 jobs of 100 events wait before the worker starts.
        for (let i = 0; i < 20; i += 1) await sendV2(app, tenant, visits(customers, 1));
        const first = spawn({ QUEUE_PREFIX: prefix, WORKER_CONCURRENCY: '1' });
        let inFlight: string | undefined;
        await waitFor(
          async () => {
            inFlight = (await queue.getActive())[0]?.id;
            return inFlight !== undefined && ((await statusCounts(db, tenant)).processed ?? 0) > 0;
          },
          SETTLE_MS,
          `a job in flight (stderr: ${first.stderr})`,
          5,
        );
        first.process.kill('SIGTERM');
        expect(await first.exited).toEqual({ code: 0, signal: null });
        const lines = logLines(first);
        const stopping = lines.findIndex((l) => l.msg === 'worker stopping: finishing jobs in flight');
        expect(stopping).toBeGreaterThan(-1);
        // The job in flight at the signal finished (and was logged); none started after it.
        expect(lines.filter((l) => l.msg === 'job').map((l) => l.job_id)).toContain(inFlight);
        expect(lines.slice(stopping).filter((l) => l.msg === 'job').length).toBeLessThanOrEqual(1);
        const left = await statusCounts(db, tenant);
        expect(left.pending).toBeGreaterThan(0);
        expect(left.processed % 100).toBe(0); // whole jobs only: none was cut short

        spawn({ QUEUE_PREFIX: prefix });
        await settled(db, tenant, 2000);
        expect(await books(app, db, tenant, customers)).toEqual(Object.fromEntries(customers.map((c) => [c.external_id, expectedBooks(20)])));
      } finally {
        await queue.close();
        await app.close();
      }
    }, LONG_TEST_MS);

    it('killed with SIGKILL in the middle of a large batch: a new worker finishes, every event processed exactly once', async () => {
      const prefix = prefixFor('kill');
      const { app, db, tenant } = await setup(prefix);
      try {
        const customers = await createCustomers(app, tenant, 50);
        // 2,000 events: 40 requests of one event per customer, so 40 jobs of 50 customers wait before any worker runs.
        const batches = chunks(visits(customers, 40), 50);
        for (const group of chunks(batches, 8)) await Promise.all(group.map((batch) => sendV2(app, tenant, batch)));
        expect(await statusCounts(db, tenant)).toEqual({ pending: 2000 });

        const first = spawn({ QUEUE_PREFIX: prefix, WORKER_CONCURRENCY: '1' });
        let processedAtKill = 0;
        await waitFor(
          async () => {
            processedAtKill = (await statusCounts(db, tenant)).processed ?? 0;
            return processedAtKill >= 20;
          },
          SETTLE_MS,
          `the first worker to process some events (stderr: ${first.stderr})`,
          10,
        );
        first.process.kill('SIGKILL');
        expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
        const afterKill = await statusCounts(db, tenant);
        // The scenario needs a kill in the middle: some processed, some not.
        expect(afterKill.processed).toBeGreaterThan(0);
        expect(afterKill.pending).toBeGreaterThan(0);

        const second = spawn({ QUEUE_PREFIX: prefix, SWEEP_AFTER_SECONDS: '1' });
        await settled(db, tenant, 2000, 90_000);
        expect(await statusCounts(db, tenant)).toEqual({ processed: 2000 });
        expect(await books(app, db, tenant, customers)).toEqual(Object.fromEntries(customers.map((c) => [c.external_id, expectedBooks(40)])));
        // Every event's credits in the ledger are what the event says it earned: no second set anywhere.
        const mismatched = await db.query(
          `SELECT e.id, e.points_earned::int AS earned, coalesce(sum(l.amount), 0)::int AS credited
             FROM events e LEFT JOIN points_ledger l ON l.event_id = e.id
            WHERE e.organization_id = $1 GROUP BY e.id, e.points_earned HAVING coalesce(sum(l.amount), 0) <> e.points_earned`,
          [tenant.organizationId],
        );
        expect(mismatched).toEqual([]);
        for (const line of logLines(second)) expect(line).toEqual(expect.objectContaining({ service: 'worker' }));
        await killWorker(second, 'SIGTERM');
      } finally {
        await app.close();
      }
    }, LONG_TEST_MS);
  });
});
