import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type pg from 'pg';
import type { Response } from 'supertest';
import { QueueName } from '../../src/queues/queue-names.js';
import { createTestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { deleteQueueKeys, killWorker, logLines, ownQueuePrefix, spawnWorker, waitFor, type WorkerProcess } from '../support/worker.js';
import { books, checkerPool, Customer, expectedFor, loyaltyTenant, settled, unbalancedEvents } from './support/books.js';
import { databaseUrlNamed, keepKilling } from './support/pg-killer.js';
import { countVisit, customerOf, sendV1, sendV2, visitBatch, type V2Event } from './support/traffic.js';

/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 60_000;
jest.setTimeout(SETTLE_MS + 30_000);

/** A 200 {"status":"ok",...} or a 503 service_unavailable envelope: anything else (500, 401, a hang) is a finding. */
function okOrUnavailable(res: Response): 'ok' | 'unavailable' {
  if (res.status === 200 && res.body.status === 'ok') return 'ok';
  expectError(res, 503, 'service_unavailable');
  return 'unavailable';
}

/**
 * PostgreSQL connections killed (pg_terminate_backend) while requests and jobs use them: the API (in-process) and a
 * worker process run on this run's database under application names of their own, and only those connections are
 * killed (the other specs of the run share the database).
 */
describe('fault: PostgreSQL connections killed', () => {
  const apiName = `fault-pg-api-${process.pid}`;
  const workerName = `fault-pg-worker-${process.pid}`;
  const prefix = ownQueuePrefix('fault-pg');
  let app: INestApplication;
  let worker: WorkerProcess;
  let db: pg.Pool;

  beforeAll(async () => {
    db = checkerPool();
    app = await createTestApp({ databaseUrl: databaseUrlNamed(apiName), queuePrefix: prefix });
    // A worker process, as operators run it: an error it does not handle would end it, and shows on its stderr.
    worker = spawnWorker({ DATABASE_URL: databaseUrlNamed(workerName), QUEUE_PREFIX: prefix, SWEEP_AFTER_SECONDS: '2' });
    await waitFor(() => logLines(worker).some((l) => l.msg === 'worker ready'), SETTLE_MS, `worker ready (stderr: ${worker.stderr})`);
  });
  afterAll(async () => {
    if (worker) {
      await killWorker(worker, 'SIGTERM');
      await killWorker(worker);
    }
    await app?.close();
    await db?.end();
    await deleteQueueKeys(prefix);
  });

  it("the API's, while V1 sync events and V2 batches are in flight: 200 or 503 only, no partial write, points exact", async () => {
    const { tenant, customers } = await loyaltyTenant(app, 8);
    const accepted = new Map<string, number>();
    const v1: Array<{ customer: Customer; tx: string; res: Response }> = [];
    const v2: Array<{ batch: V2Event[]; res: Response }> = [];
    let sending = true;

    async function v1Sender(lane: number): Promise<void> {
      for (let i = 0; sending; i += 1) {
        const customer = customers[(lane + i) % customers.length];
        const tx = `v1-pg-${lane}-${i}`;
        v1.push({ customer, tx, res: await sendV1(app, tenant, customer, tx) });
      }
    }
    async function v2Sender(): Promise<void> {
      while (sending) {
        const batch = visitBatch(customers, 'v2-pg');
        v2.push({ batch, res: await sendV2(app, tenant, batch) });
      }
    }

    const senders = [v1Sender(0), v1Sender(1), v1Sender(2), v2Sender()];
    const killer = keepKilling(db, apiName, 150);
    let killed: number;
    try {
      // Until a kill has cut a request short (a 503) and 60 requests were answered, within the bound.
      const unavailable = () => [...v1, ...v2].some(({ res }) => res.status === 503);
      await waitFor(() => v1.length + v2.length >= 60 && unavailable(), SETTLE_MS, 'requests answered while connections are killed, one of them 503');
    } finally {
      killed = await killer.stop();
      sending = false;
      await Promise.all(senders);
    }
    expect(killed).toBeGreaterThan(0);

    // Every answer was 200 or 503 (okOrUnavailable fails the test on anything else).
    const v1Outcomes = v1.map(({ res }) => okOrUnavailable(res));
    const v2Outcomes = v2.map(({ res }) => okOrUnavailable(res));

    // V1: answered 200, the event is stored; answered 503, it was stored (the commit went through, its answer was
    // lost) or not at all, and a retry with the same transaction_id says which: 409 only if it was stored.
    for (const [i, { customer, tx }] of v1.entries()) {
      const stored = (await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND transaction_id = $2`, [tenant.organizationId, tx])).rows[0].n;
      if (v1Outcomes[i] === 'ok') expect({ tx, stored }).toEqual({ tx, stored: 1 });
      else {
        const retry = await sendV1(app, tenant, customer, tx);
        if (stored === 1) expectError(retry, 409, 'duplicate_transaction');
        else expect({ tx, stored, status: retry.status, body: retry.body }).toEqual({ tx, stored: 0, status: 200, body: expect.objectContaining({ status: 'ok' }) });
      }
      countVisit(accepted, customer);
    }
    // V2: a batch answered 503 was stored whole or not at all (one statement); sent again, it is accepted, and the
    // events already stored are ignored by their transaction ids.
    for (const [i, { batch }] of v2.entries()) {
      const txs = batch.map((e) => e.transaction_id);
      const stored = (await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND transaction_id = ANY($2)`, [tenant.organizationId, txs])).rows[0].n;
      if (v2Outcomes[i] === 'ok') expect({ batch: i, stored }).toEqual({ batch: i, stored: batch.length });
      else {
        expect({ batch: i, whole: stored === 0 || stored === batch.length }).toEqual({ batch: i, whole: true });
        const retry = await sendV2(app, tenant, batch);
        expect({ status: retry.status, body: retry.body }).toEqual({ status: 200, body: { status: 'ok' } });
      }
      for (const event of batch) countVisit(accepted, customerOf(event, customers));
    }

    // The pool recovered: the API answers as before, and every accepted event is processed exactly once.
    const after = await sendV1(app, tenant, customers[0], 'v1-pg-after');
    expect({ status: after.status, body: after.body }).toEqual({ status: 200, body: expect.objectContaining({ status: 'ok' }) });
    countVisit(accepted, customers[0]);
    expect(await settled(db, tenant, SETTLE_MS)).toEqual({ processed: [...accepted.values()].reduce((a, b) => a + b, 0) });
    expect(await books(app, db, tenant, customers)).toEqual(expectedFor(customers, accepted));
    expect(await unbalancedEvents(db, tenant)).toEqual([]);
  });

  it("the worker's, while it processes a backlog: every event processed exactly once, points exact", async () => {
    const { tenant, customers } = await loyaltyTenant(app, 10);
    const accepted = new Map<string, number>();
    const queue = app.get<Queue>(getQueueToken(QueueName.Events));
    const failedJobs = () => logLines(worker).filter((l) => /^job failed/.test(String(l.msg))).length;
    const failedBefore = failedJobs();
    // A backlog first (the queue paused), so the worker is busy while its connections are killed.
    await queue.pause();
    let killer: { stop(): Promise<number> } | undefined;
    let killed: number;
    try {
      for (let i = 0; i < 40; i += 1) {
        const batch = visitBatch(customers, 'v2-pg-worker');
        const res = await sendV2(app, tenant, batch);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
        for (const event of batch) countVisit(accepted, customerOf(event, customers));
      }
      killer = keepKilling(db, workerName, 50);
      await queue.resume();
      // Killing until a job was cut short (the worker logs the failed attempt); at most a few seconds, so the retries
      // (after 1, 2, 4, 8 s; 5 attempts) outlast the kills. Whether others went through while the kills went on
      // depends on the machine's speed (a job may not fit between two kills): the counts below say what happened.
      await waitFor(
        () => {
          if (worker.process.exitCode !== null || worker.process.signalCode !== null) throw new Error(`the worker process ended; its stderr: ${worker.stderr}`);
          return failedJobs() > failedBefore;
        },
        8_000,
        'a job cut short by a kill',
      );
    } finally {
      killed = (await killer?.stop()) ?? 0;
      await queue.resume();
    }
    expect(killed).toBeGreaterThan(0);
    // Failed attempts were retried (or split, or queued again by the sweeper): nothing failed for good, nothing twice.
    expect(await settled(db, tenant, SETTLE_MS)).toEqual({ processed: 400 });
    expect(await books(app, db, tenant, customers)).toEqual(expectedFor(customers, accepted));
    expect(await unbalancedEvents(db, tenant)).toEqual([]);
    // The worker lived through it: still running, and nothing on stderr (an unhandled error would be there).
    expect({ exitCode: worker.process.exitCode, signal: worker.process.signalCode, stderr: worker.stderr }).toEqual({ exitCode: null, signal: null, stderr: '' });
  });
});
