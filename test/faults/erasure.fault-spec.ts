import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PERSONAL_DATA } from '../../src/database/personal-data.js';
import { ERASURE_STEPS, RECORD_TABLES } from '../../src/modules/data-rights/erasure-steps.repository.js';
import { ERASURE_LOCK } from '../../src/modules/data-rights/erasure.sweeper.js';
import { createTestApp } from '../support/app.js';
import { useOwnDatabase } from '../support/database.js';
import { deleteQueueKeys, killWorker, ownQueuePrefix, spawnWorker, waitFor, type WorkerProcess } from '../support/worker.js';
import { api, createTenant, type TestTenant } from '../factories/tenant.factory.js';
import { createCampaign } from '../factories/campaign.factory.js';
import { createBehaviors } from '../factories/behavior.factory.js';
import { createCustomer } from '../factories/customer.factory.js';
import { createTriggeredCreative } from '../factories/creative.factory.js';

/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 60_000;
jest.setTimeout(6 * SETTLE_MS);

const DAY = 86_400_000;
/** Events of the customer to erase, each with its ledger entry, notification, offer and webhook delivery, as the event path leaves them. */
const ROWS = 3_000;
/** Spread over this many days back: the event log's months (partitions) of four months. */
const SPAN_DAYS = 100;
/** V2 events rejected (customer_not_found) under the customer's external id, sent before it existed. */
const REJECTED = 2_500;
/** Rows a second the erasure worker is paced to: each step with rows takes seconds, long enough to be killed in. */
const ERASURE_RATE = '2000';

const STEPS = ERASURE_STEPS.map((step) => step.name);
/** Tables whose rows of the customer the erasure deletes (every one with a customer column). */
const ERASED_TABLES = Object.entries(PERSONAL_DATA)
  .filter(([, t]) => t.handling === 'erased' && t.columns.includes('customer_id'))
  .map(([name]) => name);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Where a kill landed: the step the job was at once the killed worker's statements were over, and that step's rows left. */
interface Kill {
  target: string;
  step: string;
  remaining: number | null;
  /** Since the first worker started. */
  ms: number;
}

/**
 * Issue #44 item 4, contract §21 when the worker dies: an erasure whose worker is killed (SIGKILL) at each of its
 * steps (ERASURE_STEPS) in turn is finished by the next worker from the step recorded, and in the end nothing of the
 * customer remains in any table (no row names them, by id or external id, but the job, the erasure's audit entry and
 * the user.erased delivery), while another customer of the organization keeps everything. The steps with rows
 * (webhook deliveries, records, the event log) are killed in the middle at least once: some of their batches done,
 * some left. A step of one statement is killed in when a sweep is at it, or passes too quickly to be: either is fine.
 * Real worker processes (`node dist/src/worker.js`, the `events` work, which runs the erasure sweep) paced to
 * ERASURE_RATE, on a database of the spec's own. The attempts and errors the job records are not asserted on.
 */
describe('an erasure when its worker dies at each step', () => {
  const prefix = ownQueuePrefix('erasure-faults');
  const children: WorkerProcess[] = [];
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let customer: Json;
  let other: Json;
  let deliveriesBefore: number;
  let otherBefore: Json;

  const count = async (sql: string, values: unknown[]) => Number((await db.query(sql, values))[0].n);
  const v1 = (userId: string, body: Json) => api(app, tenant).post(`/users/${userId}/events`).send(body);

  /** What stays of a customer who is not erased: counts of every table that names them, and their balance. */
  const footprint = async (id: string): Promise<Json> => {
    const rows: Json = {};
    for (const table of ERASED_TABLES) rows[table] = await count(`SELECT count(*) AS n FROM ${table} WHERE customer_id = $1`, [id]);
    rows.rejected = await count(`SELECT count(*) AS n FROM events WHERE customer_id IS NULL AND user_ref = (SELECT external_id FROM customers WHERE id = $1)`, [id]);
    rows.pending_deliveries = await count(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE payload #>> '{data,user_id}' = $1 AND status = 'pending' AND payload ? 'data'`,
      [id],
    );
    const [balance] = await db.query(
      `SELECT c.available_points::int AS available_points, c.lifetime_points::int AS lifetime_points, (SELECT coalesce(sum(amount), 0)::int FROM points_ledger WHERE customer_id = c.id) AS ledger
         FROM customers c WHERE c.id = $1`,
      [id],
    );
    return { ...rows, ...balance };
  };

  beforeAll(async () => {
    // Its own database: the erasure sweep of a worker of another file would take this file's erasure.
    await useOwnDatabase('erasure_faults');
    app = await createTestApp({ queuePrefix: prefix });
    db = app.get(DataSource);
    tenant = await createTenant(app);
    await api(app, tenant).post('/management/tiers').send({ tier: { name: 'Silver', min_points: 10 } }).expect(201);
    const offer = (await api(app, tenant).post('/management/offers').send({ offer: { name: 'Free coffee', points: 0 } }).expect(201)).body.offer;
    // No worker takes the `webhooks` work here: every delivery stays pending until the erasure cancels it.
    await api(app, tenant).post('/management/webhooks').send({ webhook: { url: 'https://hooks.example.com/loyalty', event_types: ['points.credited', 'user.erased'] } }).expect(201);
    const campaign = await createCampaign(app, tenant, { experiment: { holdout_percent: 0, variants: [{ name: 'A', weight: 1 }], metric: { event: 'visit' } } });
    const [visit] = await createBehaviors(app, tenant, campaign.id, [
      { name: 'Visit', event: 'visit', points: 10, data: { max_times_repeatable: 100_000 }, outcomes: [{ deal: { id: offer.id } }] },
    ]);
    await createTriggeredCreative(app, tenant, campaign.id, visit.id, { message: 'Thanks for the visit' });
    customer = await createCustomer(app, tenant, { external_id: 'erase-me', tags: ['vip'], attributes: { email_hash: 'abc123' } });
    other = await createCustomer(app, tenant, { external_id: 'keep-me' });

    // Real events through the API (progress, analytics activity, an experiment group, a tier, a reversal)...
    for (const [i, daysAgo] of [40, 10, 0].entries()) {
      const occurred_on = new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
      await v1(customer.id, { events: { visit: { store_id: `s-${i}`, occurred_on } } }).expect(200);
    }
    await v1(customer.id, { events: { visit: 1 }, transaction_id: 'till-1' }).expect(200);
    await v1(customer.id, { events: { visit: 1 }, transaction_id: 'till-2' }).expect(200);
    await api(app, tenant).post(`/users/${customer.id}/events/reversals`).send({ reversal: { transaction_id: 'till-2' } }).expect(200);
    for (let i = 0; i < 3; i++) await v1(other.id, { events: { visit: 1 } }).expect(200);

    // ...then many more, as the event path leaves them, over the last months: each processed event with its ledger
    // entry, notification, offer and points.credited delivery (naming the customer in data.user_id).
    await ensureMonths(Date.now() - (SPAN_DAYS + 1) * DAY, Date.now());
    await cloneActivity(customer.id, ROWS);
    await cloneActivity(other.id, 1_000);
    await rejectedUnder('erase-me', REJECTED);
    await rejectedUnder(customer.id, 500);
    await rejectedUnder('keep-me', 100);
    deliveriesBefore = await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE payload #>> '{data,user_id}' = $1`, [customer.id]);
    otherBefore = await footprint(other.id);
    expect(deliveriesBefore).toBeGreaterThan(ROWS);
    expect(otherBefore.available_points).toBe(otherBefore.ledger);
  }, 4 * SETTLE_MS);

  afterAll(async () => {
    for (const child of children) await killWorker(child);
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  /** The monthly partitions of the event log between the two times, created as the log's maintenance does. */
  async function ensureMonths(fromMs: number, toMs: number): Promise<void> {
    const from = new Date(fromMs);
    for (let month = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1)); month.getTime() <= toMs; ) {
      const next = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
      const name = `events_${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
      await db.query(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF events FOR VALUES FROM ('${month.toISOString()}') TO ('${next.toISOString()}')`);
      month = next;
    }
  }

  /**
   * `n` copies of the customer's first processed event, one every SPAN_DAYS / n back from now, each with a copy of
   * that event's ledger entry, notification, offer and webhook delivery; the balances follow the ledger.
   */
  async function cloneActivity(customerId: string, n: number): Promise<void> {
    await db.query(
      `WITH template AS (
         SELECT e.* FROM events e WHERE e.customer_id = $1 AND e.status = 'processed' AND e.transaction_id IS NULL
            AND EXISTS (SELECT 1 FROM points_ledger l WHERE l.event_id = e.id) ORDER BY e.id LIMIT 1
       ), stored AS (
         INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, attributes, context, division_id, campaign_id,
                             occurred_at, status, reason, result, points_earned, attempts, created_at, processed_at, request_id, qualify)
         SELECT t.organization_id, t.api_key_id, t.customer_id, t.user_ref, t.source, t.name, t.count, t.attributes, t.context, t.division_id, t.campaign_id,
                now() - g * ($3 * interval '1 day') / $2, t.status, t.reason, t.result, t.points_earned, t.attempts,
                now() - g * ($3 * interval '1 day') / $2, now() - g * ($3 * interval '1 day') / $2, t.request_id, t.qualify
           FROM template t, generate_series(1, $2) g
         RETURNING id, occurred_at
       ), ledger AS (
         INSERT INTO points_ledger (organization_id, customer_id, event_id, amount, reason, source, created_at, expires_at, remaining, api_key_id, occurred_at)
         SELECT l.organization_id, l.customer_id, s.id, l.amount, l.reason, l.source, s.occurred_at, l.expires_at, l.remaining, l.api_key_id, s.occurred_at
           FROM stored s, template t JOIN points_ledger l ON l.event_id = t.id
         RETURNING amount
       ), notified AS (
         INSERT INTO notifications (organization_id, customer_id, event_id, creative_id, campaign_id, behavior_id, type, data, created_at)
         SELECT x.organization_id, x.customer_id, s.id, x.creative_id, x.campaign_id, x.behavior_id, x.type, x.data, s.occurred_at
           FROM stored s, template t JOIN notifications x ON x.event_id = t.id
       ), offered AS (
         INSERT INTO customer_offers (organization_id, customer_id, offer_id, campaign_id, behavior_id, event_id, issued_at)
         SELECT x.organization_id, x.customer_id, x.offer_id, x.campaign_id, x.behavior_id, s.id, s.occurred_at
           FROM stored s, template t JOIN customer_offers x ON x.event_id = t.id
       ), delivered AS (
         INSERT INTO webhook_deliveries (organization_id, webhook_id, event_id, type, payload, status, created_at, updated_at)
         SELECT d.organization_id, d.webhook_id, s.id, d.type, d.payload || jsonb_build_object('id', gen_random_uuid()::text), d.status, s.occurred_at, s.occurred_at
           FROM stored s, template t JOIN webhook_deliveries d ON d.event_id = t.id AND d.type = 'points.credited'
       )
       UPDATE customers SET available_points = available_points + (SELECT sum(amount) FROM ledger), lifetime_points = lifetime_points + (SELECT sum(amount) FROM ledger)
        WHERE id = $1`,
      [customerId, n, SPAN_DAYS],
    );
  }

  /** `n` V2 events rejected as the event path rejects one naming no customer (customer_not_found), under `userRef`. */
  async function rejectedUnder(userRef: string, n: number): Promise<void> {
    await db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, attributes, context, occurred_at, status, reason, points_earned,
                           attempts, created_at, processed_at)
       SELECT k.organization_id, k.id, NULL, $2, 'v2', 'visit', 1, '{}', '{"app_name": "kiosk"}', now() - g * ($4 * interval '1 day') / $3, 'rejected',
              'customer_not_found', 0, 1, now() - g * ($4 * interval '1 day') / $3, now() - g * ($4 * interval '1 day') / $3
         FROM api_keys k, generate_series(1, $3) g WHERE k.key = $1`,
      [tenant.apiKey, userRef, n, SPAN_DAYS],
    );
  }

  /** The erasure job's state: its step (`done` once finished) and whether a sweep is running (its lock held). */
  async function job(): Promise<{ step: string; sweeping: boolean }> {
    const [row] = await db.query(
      `SELECT CASE WHEN e.done_at IS NULL THEN e.step ELSE 'done' END AS step,
              EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $2::oid AND l.objsubid = 1
                         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS sweeping
         FROM erasures e WHERE e.customer_id = $1`,
      [customer.id, ERASURE_LOCK],
    );
    return row;
  }

  const stepIndex = (step: string) => (step === 'done' ? STEPS.length : STEPS.indexOf(step));

  /** The rows of the customer a step still has to delete or rewrite (null: a step that is one statement). */
  async function remainingOf(step: string): Promise<number | null> {
    if (step === 'deliveries') {
      return count(`SELECT count(*) AS n FROM webhook_deliveries WHERE payload #>> '{data,user_id}' = $1 AND type <> 'user.erased'`, [customer.id]);
    }
    if (step === 'rejected') {
      return count(`SELECT count(*) AS n FROM events WHERE organization_id = $1 AND customer_id IS NULL AND user_ref IN ($2, 'erase-me')`, [tenant.organizationId, customer.id]);
    }
    if (step === 'records' || step === 'events') {
      let n = 0;
      for (const table of step === 'events' ? ['events'] : RECORD_TABLES) n += await count(`SELECT count(*) AS n FROM ${table} WHERE customer_id = $1`, [customer.id]);
      return n;
    }
    return null;
  }

  /** Once a killed worker's last statements are over: no client of this database runs one, or holds a transaction open. */
  const quiet = async () =>
    (await count(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle'`,
      [],
    )) === 0;

  function spawn(): WorkerProcess {
    const child = spawnWorker({ QUEUE_PREFIX: prefix, WORKER_QUEUES: 'events', ERASURE_RATE });
    children.push(child);
    return child;
  }

  /** What the spec prints when a wait fails: the job, what the database runs, and the worker's last lines. */
  async function diagnosis(worker: WorkerProcess, kills: Kill[]): Promise<string> {
    const [row] = await db.query(`SELECT * FROM erasures WHERE customer_id = $1`, [customer.id]);
    const activity = await db.query(
      `SELECT pid, state, wait_event_type, wait_event, left(query, 200) AS query FROM pg_stat_activity
        WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    return `kills ${JSON.stringify(kills)}; job ${JSON.stringify(row)}; database ${JSON.stringify(activity)}; worker: ${worker.stdout.slice(-3_000)} ${worker.stderr.slice(-2_000)}`;
  }

  /** The rows of each table (of every table of the schema) whose text holds `text`, for the tables with any. */
  async function naming(text: string): Promise<Record<string, number>> {
    const found: Record<string, number> = {};
    for (const table of Object.keys(PERSONAL_DATA)) {
      const n = await count(`SELECT count(*) AS n FROM ${table} t WHERE strpos(t::text, $1) > 0`, [text]);
      if (n > 0) found[table] = n;
    }
    return found;
  }

  it('finishes the erasure from the step each killed worker reached, and nothing of the customer remains', async () => {
    // Before: the customer's id and external id are all over the schema (what the search below finds).
    expect(Object.keys(await naming(customer.id))).toEqual(
      expect.arrayContaining(['customers', 'events', 'points_ledger', 'notifications', 'customer_offers', 'webhook_deliveries', 'campaign_activity', 'event_reversals']),
    );
    expect(Object.keys(await naming('erase-me'))).toEqual(expect.arrayContaining(['customers', 'events']));
    const erased = (await api(app, tenant).delete(`/users/${customer.id}`).expect(200)).body;
    expect(erased).toEqual({ status: 'ok', erasure: { user_id: customer.id, erased_at: expect.any(String) } });
    const [{ alias }] = await db.query(`SELECT alias FROM erasures WHERE customer_id = $1`, [customer.id]);
    const initial: Record<string, number | null> = {};
    for (const step of STEPS) initial[step] = await remainingOf(step);
    for (const step of ['deliveries', 'records', 'events']) expect({ step, rows: initial[step] }).toEqual({ step, rows: expect.any(Number) });

    // For each step in turn, once a sweep is at it (a step with rows: once some of its rows are done and some are
    // left) or past it, the worker is killed and another one started. A step the job passed before its turn came, or
    // that a kill already landed in (in the middle, for a step with rows), is not killed in again.
    const kills: Kill[] = [];
    const midStep = (k: Kill) => k.remaining !== null && k.remaining > 0 && k.remaining < initial[k.step]!;
    const started = Date.now();
    let worker = spawn();
    for (const target of STEPS) {
      const before = (await job()).step;
      if (before === 'done') break;
      if (stepIndex(before) > stepIndex(target) || kills.some((k) => k.step === target && (initial[target] === null || midStep(k)))) continue;
      await waitFor(
        async () => {
          const { step, sweeping } = await job();
          if (step === 'done' || (sweeping && stepIndex(step) > stepIndex(target))) return true;
          if (step !== target || !sweeping) return false;
          if (initial[target] === null) return true;
          const remaining = (await remainingOf(target))!;
          return remaining > 0 && remaining < initial[target]!;
        },
        SETTLE_MS,
        `a sweep at step ${target} or later`,
        20,
      ).catch(async (error: Error) => {
        throw new Error(`${error.message}; ${await diagnosis(worker, kills)}`);
      });
      await killWorker(worker);
      expect((await worker.exited).signal).toBe('SIGKILL');
      await waitFor(quiet, SETTLE_MS, "the killed worker's statements over");
      const { step } = await job();
      kills.push({ target, step, remaining: await remainingOf(step), ms: Date.now() - started });
      worker = spawn();
    }

    await waitFor(async () => (await job()).step === 'done', SETTLE_MS, 'the erasure finished').catch(async (error: Error) => {
      throw new Error(`${error.message}; ${await diagnosis(worker, kills)}`);
    });

    // The steps with rows were each killed in the middle at least once: some of their rows done, some left.
    for (const step of ['deliveries', 'records', 'events']) {
      expect({ step, killedMidStep: kills.some((k) => k.step === step && midStep(k)), kills }).toEqual(expect.objectContaining({ step, killedMidStep: true }));
    }

    // Nothing of the customer remains.
    for (const table of [...ERASED_TABLES, 'customers', 'campaign_participants', 'campaign_achievers', 'campaign_goal_customers', 'event_reversals']) {
      const column = table === 'customers' ? 'id' : 'customer_id';
      expect({ table, rows: await count(`SELECT count(*) AS n FROM ${table} WHERE ${column} = $1`, [customer.id]) }).toEqual({ table, rows: 0 });
    }
    expect(await count(`SELECT count(*) AS n FROM events WHERE customer_id IS NULL AND user_ref IN ($1, 'erase-me')`, [customer.id])).toBe(0);
    // No row of any table names them, by their external id or by their id, except those that must: the job, the
    // audit entry of the erasure and the user.erased delivery.
    expect(await naming('erase-me')).toEqual({});
    expect(await naming(customer.id)).toEqual({ erasures: 1, audit_log: 1, webhook_deliveries: 1 });
    // Their deliveries, none made, are cancelled (each once: none left pending, none of the other customer's touched).
    expect(await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE organization_id = $1 AND status = 'cancelled'`, [tenant.organizationId])).toBe(deliveriesBefore);
    expect(await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE organization_id = $1 AND type = 'user.erased'`, [tenant.organizationId])).toBe(1);
    // The analytics' rows of theirs went to the alias, the reversal stays without them.
    expect(await count(`SELECT count(*) AS n FROM campaign_participants WHERE customer_id = $1`, [alias])).toBeGreaterThan(0);
    expect(await count(`SELECT count(*) AS n FROM event_reversals WHERE organization_id = $1 AND transaction_id = 'till-2' AND customer_id IS NULL`, [tenant.organizationId])).toBe(1);
    expect((await api(app, tenant).get(`/users/${customer.id}`)).status).toBe(404);

    // The other customer keeps everything: events, ledger (summing to the balance), notifications, deliveries.
    const otherAfter = await footprint(other.id);
    expect(otherAfter).toEqual(otherBefore);
    expect(otherAfter.available_points).toBe(otherAfter.ledger);
    expect((await api(app, tenant).get(`/users/${other.id}`).expect(200)).body.user.available_points).toBe(otherBefore.available_points);
  });
});
