/**
 * The events worker with the months a log keeps (a phase of bench:scaling): V2 processing by one worker process of a
 * backlog in the current month, with only that month holding events, and with 35 earlier months holding events too
 * (36 monthly partitions). The earlier months are detached and attached again between rounds, so both sides run on the
 * same database, in alternating rounds. Target: with 36 months, at least 85% of the rate with 1.
 */
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import type pg from 'pg';
import { QueueName } from '../../src/queues/queue-names.js';
import { createLiveCampaign } from './campaign.js';
import { addCustomers } from './customers.js';
import { loadCount, send, table } from './load.js';
import { startNode, stopChild } from './processes.js';
import { bootstrap, type BenchServer } from './server.js';

const CUSTOMERS = 10_000;
const BATCH = 100;
const EARLIER_MONTHS = 35;
/** Events in each earlier month (processed, as history is). */
const PER_MONTH = 10_000;
const ROUNDS = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Drain {
  events: number;
  seconds: number;
  notProcessed: number;
}

export interface PartitionsResult {
  output: string;
  /** Processing with 36 months against 1, and whether it is within 15%. */
  ratio: number;
  met: boolean;
  failed: string | null;
}

export async function runPartitionsPhase(server: BenchServer, db: pg.Pool, backlog: number): Promise<PartitionsResult> {
  const tenant = await bootstrap(server.url, 'Partitions');
  await createLiveCampaign(server.url, tenant);
  await addCustomers(db, tenant.organizationId, 'bench-', 1, CUSTOMERS);
  const connection = { url: server.env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null };
  const queue = new Queue(QueueName.Events, { connection, prefix: server.env.QUEUE_PREFIX });
  // Earlier phases of the run may have left jobs in the queue (V2 acceptance with no worker): discarded, with their
  // events set aside (failed, which no sweep queues again), so the worker drains this phase's backlogs alone.
  await queue.obliterate({ force: true });
  await db.query(`UPDATE events SET status = 'failed', reason = 'bench: backlog discarded' WHERE status = 'pending'`);
  const months = await earlierMonths(db, tenant.organizationId);
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const bodies = Array.from({ length: 200 }, () =>
    JSON.stringify({ events: Array.from({ length: BATCH }, () => ({ name: 'visit', external_id: `bench-${1 + Math.floor(random() * CUSTOMERS)}` })) }),
  );
  const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
  const post = (i: number) => send(`${server.url}/priv/v2/apps/${tenant.key}/events`, { method: 'POST', headers, body: bodies[i % bodies.length] });

  /** A backlog stored and queued with the queue paused, then drained by one worker process: from resume to the last processed_at. */
  const drain = async (): Promise<Drain> => {
    await queue.pause();
    const from = Number((await db.query(`SELECT coalesce(max(id), 0) AS id FROM events`)).rows[0].id);
    const fill = await loadCount(post, 10, backlog / BATCH);
    if (fill.errors) throw new Error(`backlog not accepted: ${JSON.stringify(fill.statuses)}`);
    const worker = await startWorker(server, queue);
    try {
      const started = Date.now();
      await queue.resume();
      const deadline = started + 120_000;
      while (Number((await db.query(`SELECT count(*) AS n FROM events WHERE status = 'pending' AND id > $1`, [from])).rows[0].n) > 0) {
        if (Date.now() > deadline) throw new Error('backlog still pending after 120 s');
        await sleep(50);
      }
      const { n, processed, end } = (
        await db.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'processed')::int AS processed, max(processed_at) AS end FROM events WHERE id > $1`, [from])
      ).rows[0] as { n: number; processed: number; end: Date };
      return { events: n, seconds: (end.getTime() - started) / 1000, notProcessed: n - processed };
    } finally {
      await stopChild(worker);
    }
  };

  const one: Drain[] = [];
  const many: Drain[] = [];
  try {
    await drain(); // warm-up: the worker's first jobs (JIT, rules cache), not counted
    for (let round = 0; round < ROUNDS; round += 1) {
      await months.detach();
      one.push(await drain());
      await months.attach();
      many.push(await drain());
    }
  } finally {
    await queue.close();
  }
  const rate = (list: Drain[]) => list.reduce((n, d) => n + d.events, 0) / list.reduce((s, d) => s + d.seconds, 0);
  const ratio = rate(many) / rate(one);
  const notProcessed = [...one, ...many].reduce((n, d) => n + d.notProcessed, 0);
  const stored = [...one, ...many].reduce((n, d) => n + d.events, 0);
  const failed = notProcessed > 0 ? `${notProcessed} events of the backlogs not processed` : stored === 0 ? 'no event stored' : null;
  const row = (name: string, list: Drain[], ceiling?: number) => [
    name,
    Math.round(rate(list)).toLocaleString('en-US'),
    list.map((d) => Math.round(d.events / d.seconds).toLocaleString('en-US')).join(', '),
    String(list.reduce((n, d) => n + d.events, 0)),
    String(list.reduce((n, d) => n + d.notProcessed, 0)),
    ceiling === undefined ? '100%' : `${((rate(list) / ceiling) * 100).toFixed(0)}%`,
  ];
  const met = failed === null && ratio >= 0.85;
  const output =
    `V2 processing, 1 worker process, by the months holding events (${ROUNDS} rounds each, alternating; ${EARLIER_MONTHS} earlier months of ${PER_MONTH.toLocaleString('en-US')} events)\n` +
    table(['months holding events', 'events/s', 'per round', 'events', 'not processed', 'vs 1 month'], [
      row('1 (the current month)', one),
      row(`${EARLIER_MONTHS + 1}`, many, rate(one)),
    ]) +
    (failed ? `FAILED: ${failed}\n` : `target: 36 months within 15% of 1: ${met ? 'met' : 'NOT met'}\n`);
  return { output, ratio, met, failed };
}

/** A worker process connected to the events queue (it is counted among the queue's workers). */
async function startWorker(server: BenchServer, queue: Queue): Promise<ChildProcess> {
  const worker = startNode('dist/src/worker.js', { ...server.env, LOG_LEVEL: 'warn', SWEEP_AFTER_SECONDS: '3600' });
  const deadline = Date.now() + 30_000;
  while ((await queue.getWorkersCount()) < 1) {
    if (Date.now() > deadline || worker.exitCode !== null) throw new Error('the worker process did not connect');
    await sleep(50);
  }
  return worker;
}

/**
 * The 35 months before the current one as partitions of events, each holding PER_MONTH processed events of the
 * organization's customers, analyzed; detach() and attach() take them out of the log and put them back.
 */
async function earlierMonths(db: pg.Pool, organizationId: number): Promise<{ detach(): Promise<void>; attach(): Promise<void> }> {
  const rows = (
    await db.query(
      `SELECT 'events_' || to_char(m, 'YYYY_MM') AS name, m AS from, m + interval '1 month' AS to
         FROM generate_series(date_trunc('month', now() AT TIME ZONE 'UTC') - make_interval(months => $1), date_trunc('month', now() AT TIME ZONE 'UTC') - interval '1 month', interval '1 month') m`,
      [EARLIER_MONTHS],
    )
  ).rows as Array<{ name: string; from: Date; to: Date }>;
  for (const month of rows) {
    await db.query(`CREATE TABLE IF NOT EXISTS ${month.name} PARTITION OF events FOR VALUES FROM ('${month.from.toISOString()}') TO ('${month.to.toISOString()}')`);
    await db.query(
      `WITH c AS (SELECT array_agg(id) AS ids, array_agg(external_id) AS refs, count(*)::int AS n FROM customers WHERE organization_id = $1)
       INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, occurred_at, status, processed_at)
       SELECT $1, k.id, c.ids[1 + g % c.n], c.refs[1 + g % c.n], 'v2', 'visit', $2::timestamptz + (g * (($3::timestamptz - $2::timestamptz) / ($4 + 1))), 'processed', now()
         FROM generate_series(1, $4) g, c, (SELECT id FROM api_keys WHERE organization_id = $1 LIMIT 1) k`,
      [organizationId, month.from, month.to, PER_MONTH],
    );
  }
  await db.query('ANALYZE events');
  let attached = true;
  return {
    async detach() {
      if (!attached) return;
      for (const month of rows) await db.query(`ALTER TABLE events DETACH PARTITION ${month.name}`);
      attached = false;
    },
    async attach() {
      if (attached) return;
      for (const month of rows) await db.query(`ALTER TABLE events ATTACH PARTITION ${month.name} FOR VALUES FROM ('${month.from.toISOString()}') TO ('${month.to.toISOString()}')`);
      attached = true;
    },
  };
}
