import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type pg from 'pg';
import type { Response } from 'supertest';
import { createTestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { deleteQueueKeys, killWorker, logLines, ownQueuePrefix, spawnWorker, waitFor, type WorkerProcess } from '../support/worker.js';
import { books, checkerPool, expectedFor, loyaltyTenant, settled, unbalancedEvents } from './support/books.js';
import { startPrivateRedis, type PrivateRedis } from './support/redis-server.js';
import { countVisit, customerOf, sendV1, sendV2, visitBatch } from './support/traffic.js';

/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 60_000;
jest.setTimeout(SETTLE_MS + 30_000);

/**
 * The API and a worker process on a redis-server of this spec's own, stopped (killed: what it held is gone) and
 * started again while events arrive. Events are durable in PostgreSQL: V2 and V1 async=true answer 200 once they are
 * stored, the sweeper queues what Redis lost, and V1 sync needs no Redis at all (its rate limit counts locally).
 */
describe('fault: Redis stopped and started again', () => {
  const prefix = ownQueuePrefix('fault-redis');
  let redis: PrivateRedis;
  let app: INestApplication;
  let worker: WorkerProcess;
  let db: pg.Pool;

  beforeAll(async () => {
    db = checkerPool();
    redis = await startPrivateRedis();
    app = await createTestApp({ redisUrl: redis.url, queuePrefix: prefix });
    // A worker process as operators run it, so what it writes to stdout and stderr during the outage can be read.
    worker = spawnWorker({ REDIS_URL: redis.url, QUEUE_PREFIX: prefix, SWEEP_AFTER_SECONDS: '2' });
    await waitFor(() => logLines(worker).some((l) => l.msg === 'worker ready'), SETTLE_MS, `worker ready (stderr: ${worker.stderr})`);
  });
  afterAll(async () => {
    // Closing BullMQ connections wants a Redis to talk to: start it again if a failed test left it stopped.
    await redis?.start();
    if (worker) {
      await killWorker(worker, 'SIGTERM');
      await killWorker(worker);
    }
    await app?.close();
    await redis?.stop();
    await db?.end();
    await deleteQueueKeys(prefix);
  });

  it('V2 batches sent all along: every one answered 200, each accepted event processed exactly once, points exact', async () => {
    const { tenant, customers } = await loyaltyTenant(app, 6);
    const accepted = new Map<string, number>();
    const answers: Array<{ phase: string; status: number; body: unknown }> = [];
    let phase = 'before';
    let sending = true;

    /** Sends batches one after the other until told to stop, noting the phase each was sent and answered in. */
    async function sender(): Promise<void> {
      while (sending) {
        const batch = visitBatch(customers, 'v2-redis');
        const sentIn = phase;
        const res = await sendV2(app, tenant, batch);
        answers.push({ phase: sentIn === phase ? sentIn : `${sentIn}→${phase}`, status: res.status, body: res.body });
        if (res.status === 200) for (const event of batch) countVisit(accepted, customerOf(event, customers));
      }
    }
    const answeredIn = (p: string) => answers.filter((a) => a.phase === p).length;

    const senders = [sender(), sender()];
    try {
      await waitFor(() => answeredIn('before') >= 4, SETTLE_MS, 'batches before the outage');
      phase = 'outage';
      await redis.stop();
      await waitFor(() => answeredIn('outage') >= 4, SETTLE_MS, 'batches sent and answered while Redis was stopped');
      await redis.start();
      phase = 'after';
      await waitFor(() => answeredIn('after') >= 4, SETTLE_MS, 'batches after the restart');
    } finally {
      sending = false;
      await Promise.all(senders);
    }

    expect(answers.filter((a) => a.status !== 200 || JSON.stringify(a.body) !== '{"status":"ok"}')).toEqual([]);
    // Every accepted event is stored exactly once (a transaction id of its own each), then processed exactly once,
    // those accepted while Redis was away included: queued once it was back, by the sweeper or by the API's add that
    // gave up waiting (its command still goes out on reconnect; a job queued twice changes nothing twice).
    expect(await settled(db, tenant, SETTLE_MS)).toEqual({ processed: answers.length * customers.length });
    expect(await books(app, db, tenant, customers)).toEqual(expectedFor(customers, accepted));
    expect(await unbalancedEvents(db, tenant)).toEqual([]);
    // The worker told of the outage in its JSON log, and wrote nothing else (no stack traces on stderr).
    expect(logLines(worker).filter((l) => l.msg === 'queue error').length).toBeGreaterThan(0);
    expect(worker.stderr).toBe('');
  });

  it('V1 while Redis is stopped: sync evaluates and answers 200 (409 on a repeat), async=true stores it for later', async () => {
    const { tenant, customers } = await loyaltyTenant(app, 3);
    const accepted = new Map<string, number>();
    const [syncA, syncB, later] = customers;
    await redis.stop();
    try {
      for (const [i, customer] of [syncA, syncB, syncA, syncA].entries()) {
        const res = await sendV1(app, tenant, customer, `v1-redis-${tenant.apiKey}-${i}`);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expect.objectContaining({ status: 'ok', state: 'qualified' }) });
        countVisit(accepted, customer);
      }
      // The transaction id was claimed by the stored event: a repeat is refused as for any stored event.
      expectError(await sendV1(app, tenant, syncA, `v1-redis-${tenant.apiKey}-0`), 409, 'duplicate_transaction');
      expect(await books(app, db, tenant, [syncA, syncB])).toEqual(expectedFor([syncA, syncB], accepted));

      const queued: Response = await sendV1(app, tenant, later, `v1-redis-${tenant.apiKey}-async`, '?async=true');
      expect({ status: queued.status, body: queued.body }).toEqual({ status: 200, body: { status: 'ok' } });
      countVisit(accepted, later);
      const { rows } = await db.query(`SELECT status FROM events WHERE customer_id = $1`, [later.id]);
      expect(rows).toEqual([{ status: 'pending' }]);
    } finally {
      await redis.start();
    }
    // Once Redis is back the async event is queued (by the sweeper, or the add that waited), and processed.
    expect(await settled(db, tenant, SETTLE_MS)).toEqual({ processed: 5 });
    expect(await books(app, db, tenant, customers)).toEqual(expectedFor(customers, accepted));
    expect(await unbalancedEvents(db, tenant)).toEqual([]);
  });
});
