/**
 * Customer erasure and export at scale (issue #44, contract §21, decision 0024), in one run: a customer with 100,000
 * events over 24 months (one ledger credit per event, a notification every 10th) is exported, then erased while other
 * customers send V1 events. Prints, side by side: the DELETE's answer time (target ≤ 200 ms) and the rest of the
 * erasure until `erasures.done_at` is set by the worker (≤ 30 s after the answer); other customers' V1 p99 while the
 * erasure's worker runs against their V1 p99 without it (≤ 1.5×); the export's RSS growth of the API process
 * (≤ 50 MB) and its events streamed per second (≥ 20,000). The export is parsed and checked: it must hold every
 * event, credit and notification stored (a ceiling that stores nothing is no benchmark); the erasure is checked too:
 * nothing of the customer left in the tables it erases, their row gone.
 * The database is its own (`ce_bench_erasure`): migrated, its organization (Europe/Paris), a "History" campaign whose
 * "Visitor" behavior (visit: 10 points) triggers a push creative, a "Live" campaign for the V1 load (live_visit: 10
 * points), the customer to erase and 50 V1 customers, created through the API; the customer sends 3 visits through V1,
 * whose stored rows (event, ledger credit, notification) are the template of the generated ones: INSERT ... SELECT
 * generate_series, the events spread evenly over the 24 calendar months up to now (one monthly partition each,
 * created as the migration names them), the ledger and notifications naming their events. The API (dist/src/main.js)
 * and one worker process (dist/src/worker.js, WORKER_QUEUES=events: the real erasure sweeper, every 5 s, paced at
 * ERASURE_RATE rows/s) are real processes. Phases: the export, twice (the first one measured: RSS of the API read
 * from /proc every 20 ms, before and at its peak; the second, on a warm API, printed only); V1 at 4 connections for
 * BENCH_SECONDS with the worker idle (N requests); the DELETE, timed; then, once the worker has taken the job (a sweep
 * begun after the answer holds the sweeper's advisory lock), the same N requests at the same concurrency while it
 * erases (the comparison counts only when ≥ 90% of them started before done_at); then the wait for done_at (the job's
 * steps timed by polling its row every 20 ms), and the check that nothing of the customer is left.
 * Run: npm run bench:erasure
 * Env: BENCH_ERASURE_EVENTS (100,000), BENCH_SECONDS (8: V1 without the erasure; the same number of requests beside
 * it), ERASURE_RATE (the worker's pace, 20,000 rows/s by default), BENCH_KEEP_ERASURE=1 (keep the database, to inspect).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { onInterrupt } from './support/cleanup.js';
import { monthsBetween } from './support/history-data.js';
import { databaseUrl, dropDatabase, migrate, startApi, type HistoryApi } from './support/history-server.js';
import { load, loadCount, percentile, send, table, type LoadResult } from './support/load.js';
import { int } from './support/env.js';
import { call, headers, type Answer, type Tenant } from './support/api-call.js';
import { startNode, stopChild, waitForLine } from './support/processes.js';
import { rssBytes } from './support/simulation-worker.js';

const EVENTS = int('BENCH_ERASURE_EVENTS', 100_000);
const SECONDS = int('BENCH_SECONDS', 8);
const KEEP = process.env.BENCH_KEEP_ERASURE === '1';
const ERASURE_RATE = process.env.ERASURE_RATE ?? '20000';
const NAME = 'ce_bench_erasure';
const PORT = 3956;
const TIME_ZONE = 'Europe/Paris';
const MONTHS = 24;
/** One notification per this many generated events. */
const NOTIFY_EVERY = 10;
/** Visits the customer sends through V1: the stored rows the generated ones copy. */
const V1_VISITS = 3;
const V1_CUSTOMERS = 50;
const CONCURRENCY = 4;
const TARGETS = { answerMs: 200, restSeconds: 30, p99Ratio: 1.5, rssMb: 50, eventsPerSecond: 20_000 };
/** The share of the load beside the erasure that must start before done_at for the p99 comparison to be a measure. */
const MIN_OVERLAP = 0.9;
/** Where the erasure is given up on (the target is 30 s: this only bounds the wait). */
const DONE_TIMEOUT_MS = 180_000;

const began = performance.now();
const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
const log = (line: string) => process.stderr.write(`erasure bench [${elapsed()}]: ${line}\n`);
const fmt = (n: number) => n.toLocaleString('en-US');
const mb = (bytes: number) => bytes / (1024 * 1024);
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(', ');
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

let api: HistoryApi | null = null;
let worker: ChildProcess | null = null;
let db: pg.Client | null = null;
let cleaning: Promise<void> | undefined;
const cleanup = () =>
  (cleaning ??= (async () => {
    await db?.end().catch(() => undefined);
    if (worker) await stopChild(worker).catch(() => undefined);
    await api?.stop().catch(() => undefined);
    if (!KEEP) await dropDatabase(NAME).catch(() => undefined);
  })());
const forget = onInterrupt(cleanup);

interface Setup {
  tenant: Tenant;
  organizationId: number;
  historyCampaign: number;
  visitor: number;
  /** The customer exported and erased. */
  userId: string;
  customers: string[];
}

/** The organization, the history's campaign (and its push creative), the V1 load's campaign and customers, the customer. */
async function configure(url: string, db: pg.Client): Promise<Setup> {
  const created = await call(`${url}/admin/v1/organizations`, 'POST', { organization: { name: 'Erasure', time_zone: TIME_ZONE }, application: { name: 'Bench' } }, undefined, 201);
  const tenant = { key: created.api_key as string, secret: created.api_secret as string };
  const organizationId = created.organization.id as number;
  const base = `${url}/priv/v1/apps/${tenant.key}`;
  const now = Date.now();
  const window = { starts_at: new Date(now - 800 * 86_400_000).toISOString(), ends_at: new Date(now + 365 * 86_400_000).toISOString() };
  const campaign = async (name: string, event: string) => {
    const c = await call(`${base}/management/campaigns`, 'POST', { campaign: { name, status: 'live', ...window } }, tenant, 201);
    const made = await call(
      `${base}/management/campaigns/${c.campaign.id}/behaviors/_batch`,
      'POST',
      { behaviors: [{ name: name === 'History' ? 'Visitor' : `${name} visitor`, points: 10, data: {}, goal_groups: [{ goals: [{ achievement: { name: event, internal_event_name: event, event_count: 1, type: 'count', points: 0 } }] }] }] },
      tenant,
      201,
    );
    return { id: c.campaign.id as number, behavior: (made.behaviors as Array<{ id: number }>)[0].id };
  };
  const history = await campaign('History', 'visit');
  await campaign('Live', 'live_visit');
  // A push creative triggered by "Visitor": each visit's completion yields a notification.
  const short = { starts_at: new Date(now - 86_400_000).toISOString(), ends_at: new Date(now + 30 * 86_400_000).toISOString() };
  const lineItem = await call(`${base}/management/campaigns/${history.id}/line_items`, 'POST', { line_item: { name: 'Main', status: 'live', ...short } }, tenant, 201);
  const group = await call(`${base}/management/line_items/${lineItem.line_items[0].id}/creative_groups`, 'POST', { creative_group: { name: 'Everyone', status: 'live', ...short } }, tenant, 201);
  const [application] = (await db.query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [organizationId])).rows;
  await call(
    `${base}/management/creative_groups/${group.creative_groups[0].id}/creatives`,
    'POST',
    {
      creative: {
        name: 'Push',
        status: 'live',
        ad_type: 'push_message',
        creative_type: 'messaging-platform-push',
        application_id: application.id,
        message: 'Thanks for the visit',
        issue_audience_csv: { delivery_method: 'triggered', behavior_id: history.behavior },
      },
    },
    tenant,
    201,
  );
  const user = await call(`${base}/users`, 'POST', { user: { external_id: 'erase-me', tags: ['vip'], attributes: { email_hash: 'abc123' } } }, tenant, 201);
  const userId = user.user.id as string;
  for (let i = 0; i < V1_VISITS; i += 1) {
    const answer = await call(`${base}/users/${userId}/events`, 'POST', { events: { visit: { store_id: `s-${i}`, context: { app_name: 'kiosk' } } } }, tenant);
    if (answer.status !== 'ok') throw new Error(`a V1 visit answered ${JSON.stringify(answer)}`);
  }
  const customers: string[] = [];
  for (let c = 0; c < V1_CUSTOMERS; c += 1) customers.push((await call(`${base}/users`, 'POST', { user: { external_id: `live-${c}` } }, tenant, 201)).user.id as string);
  return { tenant, organizationId, historyCampaign: history.id, visitor: history.behavior, userId, customers };
}

interface Generated {
  events: number;
  credits: number;
  notifications: number;
  partitions: number;
  seconds: number;
}

/**
 * The customer's history as the event path leaves it, copied from their V1 visit's rows: EVENTS events evenly over the
 * 24 calendar months up to now, a ledger credit of 10 per event, a notification every NOTIFY_EVERY events.
 */
async function generate(db: pg.Client, s: Setup): Promise<Generated> {
  const started = performance.now();
  const step = async (name: string, sql: string, values: unknown[] = []) => {
    const t = performance.now();
    const result = await db.query(sql, values);
    log(`${name}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    return result;
  };
  const counts = (await db.query(
    `SELECT (SELECT count(*) FROM events WHERE customer_id = $1)::int AS events, (SELECT count(*) FROM points_ledger WHERE customer_id = $1)::int AS credits,
            (SELECT count(*) FROM notifications WHERE customer_id = $1)::int AS notifications`,
    [s.userId],
  )).rows[0] as { events: number; credits: number; notifications: number };
  if (counts.events !== V1_VISITS || counts.credits !== V1_VISITS || counts.notifications !== V1_VISITS) {
    throw new Error(`the customer's ${V1_VISITS} V1 visits stored ${JSON.stringify(counts)}: no template to copy`);
  }
  const [template] = (await db.query(`SELECT id, occurred_at FROM events WHERE customer_id = $1 ORDER BY id LIMIT 1`, [s.userId])).rows;
  // The first day (UTC) of the month 23 months before this one, through a minute ago: 24 monthly partitions.
  const today = new Date();
  const fromMs = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - (MONTHS - 1), 1);
  const toMs = Date.now() - 60_000;
  for (const month of monthsBetween(fromMs, toMs)) {
    if ((await db.query(`SELECT 1 FROM pg_class WHERE relname = $1`, [month.name])).rowCount) continue;
    await db.query(`CREATE TABLE ${month.name} PARTITION OF events FOR VALUES FROM ('${month.from}') TO ('${month.to}')`);
  }
  const [{ base }] = (await db.query(`SELECT coalesce(max(id), 0)::bigint AS base FROM events`)).rows;
  const span = `to_timestamp($3::float8 / 1000) + (to_timestamp($4::float8 / 1000) - to_timestamp($3::float8 / 1000)) * ((k - 0.5) / $5::float8)`;
  await step(
    `${fmt(EVENTS)} events`,
    `INSERT INTO events (id, organization_id, api_key_id, customer_id, user_ref, source, transaction_id, name, count, attributes, context, division_id, campaign_id,
                         occurred_at, status, reason, result, points_earned, attempts, created_at, processed_at, request_id, qualify)
     SELECT $6::bigint + k, t.organization_id, t.api_key_id, t.customer_id, t.user_ref, t.source, NULL, t.name, t.count,
            t.attributes || jsonb_build_object('store_id', 's-' || (k % 40)), t.context, t.division_id, t.campaign_id,
            at, t.status, t.reason, t.result, t.points_earned, t.attempts, at, at + (t.processed_at - t.created_at), 'bench-erasure-' || k, t.qualify
       FROM (SELECT * FROM events WHERE id = $1 AND occurred_at = $2) t
      CROSS JOIN generate_series(1, $5::int) k
      CROSS JOIN LATERAL (SELECT ${span} AS at) a`,
    [template.id, template.occurred_at, fromMs, toMs, EVENTS, base],
  );
  await db.query(`SELECT setval(pg_get_serial_sequence('events', 'id'), (SELECT max(id) FROM events))`);
  const [ledger] = (await db.query(`SELECT id FROM points_ledger WHERE customer_id = $1 ORDER BY id LIMIT 1`, [s.userId])).rows;
  await step(
    'ledger credits',
    `INSERT INTO points_ledger (organization_id, customer_id, event_id, amount, reason, source, created_at, expires_at, remaining, api_key_id, transaction_id, occurred_at, reversed_at)
     SELECT l.organization_id, l.customer_id, e.id, 10, 'behavior', l.source, e.occurred_at, e.occurred_at + (l.expires_at - l.created_at), l.remaining, l.api_key_id, NULL, e.occurred_at, NULL
       FROM events e CROSS JOIN (SELECT * FROM points_ledger WHERE id = $2) l
      WHERE e.customer_id = $1 AND e.id > $3::bigint
      ORDER BY e.id`,
    [s.userId, ledger.id, base],
  );
  const [notification] = (await db.query(`SELECT id FROM notifications WHERE customer_id = $1 ORDER BY id LIMIT 1`, [s.userId])).rows;
  await step(
    'notifications',
    `INSERT INTO notifications (organization_id, customer_id, event_id, creative_id, campaign_id, behavior_id, type, data, created_at)
     SELECT n.organization_id, n.customer_id, e.id, n.creative_id, n.campaign_id, n.behavior_id, n.type, n.data, e.occurred_at
       FROM events e CROSS JOIN (SELECT * FROM notifications WHERE id = $2) n
      WHERE e.customer_id = $1 AND e.id > $3::bigint AND (e.id - $3::bigint) % $4::int = 0
      ORDER BY e.id`,
    [s.userId, notification.id, base, NOTIFY_EVERY],
  );
  // The balance the credits make.
  await db.query(`UPDATE customers SET available_points = available_points + $2::bigint, lifetime_points = lifetime_points + $2::bigint WHERE id = $1`, [s.userId, 10 * EVENTS]);
  await step('VACUUM ANALYZE', `VACUUM ANALYZE events`);
  for (const t of ['points_ledger', 'notifications', 'customers']) await db.query(`VACUUM ANALYZE ${t}`);
  await db.query('CHECKPOINT');
  const [made] = (await db.query(
    `SELECT (SELECT count(*) FROM events WHERE customer_id = $1 AND id > $2::bigint)::int AS events,
            (SELECT count(DISTINCT tableoid) FROM events WHERE customer_id = $1 AND id > $2::bigint)::int AS partitions,
            (SELECT count(*) FROM points_ledger WHERE customer_id = $1)::int AS credits,
            (SELECT count(*) FROM notifications WHERE customer_id = $1)::int AS notifications`,
    [s.userId, base],
  )).rows;
  if (made.events !== EVENTS) throw new Error(`${made.events} events generated, not ${EVENTS}`);
  if (made.partitions !== MONTHS) throw new Error(`the generated events are in ${made.partitions} monthly partitions, not ${MONTHS}`);
  return { events: made.events + V1_VISITS, credits: made.credits, notifications: made.notifications, partitions: made.partitions, seconds: (performance.now() - started) / 1000 };
}

/** The pid of the API process (dist/src/main.js) among the processes startApi runs. */
function apiPid(a: HistoryApi): number {
  for (const pid of a.cpu().api.keys()) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dist/src/main.js')) return pid;
    } catch {
      // ended meanwhile
    }
  }
  throw new Error('the API process was not found in /proc');
}

interface ExportRun {
  seconds: number;
  firstByteMs: number;
  bytes: number;
  rssBefore: number;
  rssPeak: number;
  samples: number;
  body: Answer;
}

/** GET .../export, read as it streams, while the API's RSS is sampled every 20 ms; answers the parsed document. */
async function exportCustomer(url: string, tenant: Tenant, userId: string, pid: number): Promise<ExportRun> {
  const rssBefore = rssBytes(pid);
  if (rssBefore === null) throw new Error(`no RSS for the API (pid ${pid})`);
  let rssPeak = rssBefore;
  let samples = 0;
  const sample = () => {
    const rss = rssBytes(pid);
    samples += 1;
    if (rss !== null && rss > rssPeak) rssPeak = rss;
  };
  const timer = setInterval(sample, 20);
  const started = performance.now();
  try {
    const res = await fetch(`${url}/priv/v1/apps/${tenant.key}/users/${userId}/export`, { headers: headers(tenant) });
    const firstByteMs = performance.now() - started;
    if (res.status !== 200 || !res.body) throw new Error(`the export answered ${res.status}: ${await res.text()}`);
    if (!res.headers.get('content-type')?.startsWith('application/json')) throw new Error(`the export's content-type is ${res.headers.get('content-type')}`);
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.body) {
      chunks.push(Buffer.from(chunk));
      bytes += chunk.byteLength;
    }
    const seconds = (performance.now() - started) / 1000;
    sample();
    return { seconds, firstByteMs, bytes, rssBefore, rssPeak, samples, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer };
  } finally {
    clearInterval(timer);
  }
}

/** Throws unless the export holds everything stored about the customer: every event, newest first, every credit and notification. */
function checkExport(body: Answer, userId: string, g: Generated): string {
  const e = body.export;
  const problems: string[] = [];
  if (body.status !== 'ok' || !e) throw new Error(`the export answered ${JSON.stringify(body).slice(0, 300)}`);
  if (e.user?.id !== userId) problems.push(`user ${e.user?.id}, not ${userId}`);
  for (const key of ['events', 'points', 'notifications', 'offers', 'tier_history', 'experiments', 'webhook_deliveries']) {
    if (!Array.isArray(e[key])) problems.push(`${key} is not a list`);
  }
  if (typeof e.behaviors !== 'object' || e.behaviors === null || !('Visitor' in e.behaviors)) problems.push('behaviors lack "Visitor"');
  const events = (e.events ?? []) as Array<{ id: string; occurred_at: string; name: string }>;
  if (events.length !== g.events) problems.push(`${events.length} events, not ${g.events}`);
  if (new Set(events.map((x) => x.id)).size !== events.length) problems.push('an event appears twice');
  for (let i = 1; i < events.length; i += 1) {
    if (Date.parse(events[i].occurred_at) > Date.parse(events[i - 1].occurred_at)) {
      problems.push(`events not newest first at ${i}`);
      break;
    }
  }
  const months = new Set(events.map((x) => x.occurred_at.slice(0, 7))).size;
  if (months !== MONTHS) problems.push(`events of ${months} months, not ${MONTHS}`);
  if (e.points?.length !== g.credits) problems.push(`${e.points?.length} ledger entries, not ${g.credits}`);
  if (e.notifications?.length !== g.notifications) problems.push(`${e.notifications?.length} notifications, not ${g.notifications}`);
  if (problems.length) throw new Error(`the export: ${problems.join('; ')}`);
  return `${fmt(events.length)} events of ${months} months (newest first, each once), ${fmt(e.points.length)} ledger entries, ${fmt(e.notifications.length)} notifications`;
}

/** A V1 load's result, with each request's start and end (ms, performance.now()). */
interface V1Run extends LoadResult {
  spans: Array<[number, number]>;
}

/** V1 events for the live campaign's customers, CONCURRENCY at a time: for `seconds`, or for `count` requests. */
async function v1Load(url: string, tenant: Tenant, customers: string[], until: { seconds: number } | { count: number }): Promise<V1Run> {
  const h = headers(tenant);
  const body = JSON.stringify({ events: { live_visit: 1 } });
  const spans: Array<[number, number]> = [];
  const sendOne = async (i: number) => {
    const t = performance.now();
    try {
      return await send(`${url}/priv/v1/apps/${tenant.key}/users/${customers[i % customers.length]}/events`, { method: 'POST', headers: h, body });
    } finally {
      spans.push([t, performance.now()]);
    }
  };
  const result = 'seconds' in until ? await load(sendOne, CONCURRENCY, until.seconds) : await loadCount(sendOne, CONCURRENCY, until.count);
  return { ...result, spans };
}

interface JobWatch {
  /** ms after the DELETE's answer at which each step was first seen (the first one: "analytics", at 0). */
  steps: Array<{ step: string; atMs: number }>;
  /** ms after the answer at which done_at was first seen set; null until then. */
  doneMs: number | null;
  /** done_at − erased_at, as the database holds them. */
  dbSeconds: number | null;
  attempts: number;
  lastError: string | null;
  stop(): void;
  finished: Promise<void>;
}

/** Polls the erasure's row every 20 ms from the answer on, until done_at is set (or stop()). */
function watchJob(db: pg.Client, userId: string, answeredAt: number): JobWatch {
  let stopped = false;
  const watch: JobWatch = { steps: [], doneMs: null, dbSeconds: null, attempts: 0, lastError: null, stop: () => (stopped = true), finished: Promise.resolve() };
  watch.finished = (async () => {
    while (!stopped) {
      const [row] = (await db.query(
        `SELECT step, attempts, last_error, done_at IS NOT NULL AS done, extract(epoch FROM done_at - erased_at)::float8 AS seconds FROM erasures WHERE customer_id = $1`,
        [userId],
      )).rows as Array<{ step: string; attempts: number; last_error: string | null; done: boolean; seconds: number | null }>;
      const at = performance.now() - answeredAt;
      if (!row) throw new Error('no erasures row after the answer');
      if (watch.steps[watch.steps.length - 1]?.step !== row.step) watch.steps.push({ step: row.step, atMs: watch.steps.length ? at : 0 });
      watch.attempts = row.attempts;
      watch.lastError = row.last_error;
      if (row.done) {
        watch.doneMs = at;
        watch.dbSeconds = row.seconds;
        return;
      }
      if (at > DONE_TIMEOUT_MS) throw new Error(`the erasure is not done ${DONE_TIMEOUT_MS / 1000} s after the answer (step ${row.step}, attempts ${row.attempts}, last error ${row.last_error})`);
      await sleep(20);
    }
  })();
  watch.finished.catch(() => undefined); // awaited by the caller: a failure surfaces there
  return watch;
}

/** The erasure sweeper's advisory lock key (src/modules/data-rights/erasure.sweeper.ts): held for the whole of a sweep. */
const ERASURE_SWEEP_LOCK = 7_700_044;

/** Whether a sweep of the erasure worker that began after `since` is running (it holds the sweeper's lock). */
async function sweeping(db: pg.Client, since: Date): Promise<boolean> {
  const [row] = (await db.query(
    `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                     WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                       AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND a.xact_start > $2) AS sweeping`,
    [ERASURE_SWEEP_LOCK, since],
  )).rows as Array<{ sweeping: boolean }>;
  return row.sweeping;
}

/** Throws unless nothing of the customer is left in the tables the erasure deletes from, their row gone. */
async function checkErased(db: pg.Client, userId: string): Promise<string> {
  const [left] = (await db.query(
    `SELECT (SELECT count(*) FROM customers WHERE id = $1)::int AS customers, (SELECT count(*) FROM events WHERE customer_id = $1)::int AS events,
            (SELECT count(*) FROM points_ledger WHERE customer_id = $1)::int AS points_ledger, (SELECT count(*) FROM notifications WHERE customer_id = $1)::int AS notifications,
            (SELECT count(*) FROM customer_progress WHERE customer_id = $1)::int AS customer_progress, (SELECT count(*) FROM campaign_participants WHERE customer_id = $1)::int AS campaign_participants`,
    [userId],
  )).rows as Array<Record<string, number>>;
  const remaining = Object.entries(left).filter(([, n]) => n > 0);
  if (remaining.length) throw new Error(`after done_at the customer still has ${remaining.map(([t, n]) => `${n} rows in ${t}`).join(', ')}`);
  return 'no row of the customer left in customers, events, points_ledger, notifications, customer_progress, campaign_participants';
}

try {
  log(`load average ${loadAverage()}; ${os.cpus().length} cores, node ${process.version}`);
  await dropDatabase(NAME);
  migrate(NAME);
  api = await startApi(NAME, PORT);
  db = new pg.Client({ connectionString: databaseUrl(NAME) });
  db.on('error', () => undefined); // the database dropped under it on Ctrl-C
  await db.connect();
  const setup = await configure(api.url, db);
  const generated = await generate(db, setup);
  log(`generated ${fmt(generated.events)} events in ${generated.partitions} monthly partitions, ${fmt(generated.credits)} credits, ${fmt(generated.notifications)} notifications (${generated.seconds.toFixed(0)} s)`);

  // The worker: the events queue's work, the erasure sweeper with it; idle until the erasure.
  const workerLines: string[] = [];
  worker = startNode('dist/src/worker.js', { ...api.env, WORKER_QUEUES: 'events', LOG_LEVEL: 'info', ERASURE_RATE }, 'pipe');
  await waitForLine(worker, 'worker ready');
  let partial = '';
  worker.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (/erasure|"level":"(warn|error|fatal)"/.test(line)) workerLines.push(line.slice(0, 400));
  });
  log(`worker ready (pid ${worker.pid}, ERASURE_RATE ${ERASURE_RATE})`);

  // 1. The export, before the erasure: the measured one first (the API as setup left it), then once more (warm).
  const pid = apiPid(api);
  const exports: ExportRun[] = [];
  let exportChecked = '';
  let exportEvents = 0;
  for (const label of ['export', 'export again']) {
    log(`${label} (API pid ${pid})`);
    const run = await exportCustomer(api.url, setup.tenant, setup.userId, pid);
    exportChecked = checkExport(run.body, setup.userId, generated);
    exportEvents = (run.body.export.events as unknown[]).length;
    run.body = {};
    exports.push(run);
    log(`${label}: ${exportChecked}; ${run.seconds.toFixed(2)} s, ${mb(run.bytes).toFixed(1)} MB, RSS ${mb(run.rssBefore).toFixed(1)} → ${mb(run.rssPeak).toFixed(1)} MB`);
  }
  const exported = exports[0];

  // 2. V1 without the erasure (the worker idle), then the same number of requests while the worker erases.
  log(`V1 without the erasure, ${SECONDS} s`);
  const alone = await v1Load(api.url, setup.tenant, setup.customers, { seconds: SECONDS });
  log(`V1 without the erasure: ${fmt(alone.requests)} requests`);
  const deleting = performance.now();
  const erasure = await call(`${api.url}/priv/v1/apps/${setup.tenant.key}/users/${setup.userId}`, 'DELETE', undefined, setup.tenant);
  const answeredAt = performance.now();
  const answerMs = answeredAt - deleting;
  if (erasure.status !== 'ok' || erasure.erasure?.user_id !== setup.userId || !erasure.erasure?.erased_at) throw new Error(`the DELETE answered ${JSON.stringify(erasure)}`);
  log(`DELETE answered in ${answerMs.toFixed(1)} ms; waiting for the worker to take the job`);
  const watch = watchJob(db, setup.userId, answeredAt);
  let beside: V1Run;
  let loadStartMs: number;
  let loadEndMs: number;
  try {
    // The sweep runs every 5 s: the load starts once a sweep that began after the answer holds the erasure sweeper's
    // lock (it takes the job first thing), or once the job has moved past its first step, whichever is seen first.
    const answeredAtDate = new Date(Date.now() - (performance.now() - answeredAt));
    while (watch.steps.length < 2 && watch.doneMs === null && !(await sweeping(db, answeredAtDate))) {
      await Promise.race([watch.finished, sleep(10)]);
      if (performance.now() - answeredAt > 30_000) throw new Error('the worker did not take the erasure within 30 s');
    }
    loadStartMs = performance.now() - answeredAt;
    const takenBy = watch.steps.length >= 2 ? `the job at step ${watch.steps[watch.steps.length - 1].step}` : 'a sweep holding its lock';
    log(`the worker took the job (${takenBy}, ${(loadStartMs / 1000).toFixed(2)} s after the answer); V1 beside it, ${fmt(alone.requests)} requests`);
    beside = await v1Load(api.url, setup.tenant, setup.customers, { count: alone.requests });
    loadEndMs = performance.now() - answeredAt;
    log(`V1 beside the erasure done (load average ${loadAverage()}); waiting for done_at`);
    await watch.finished;
  } finally {
    watch.stop();
    await watch.finished.catch(() => undefined);
  }
  const erasedChecked = await checkErased(db, setup.userId);
  if (alone.errors > 0 || beside.errors > 0) throw new Error(`V1 answered errors: ${alone.errors} without the erasure (${JSON.stringify(alone.statuses)}), ${beside.errors} beside it (${JSON.stringify(beside.statuses)})`);

  // The results.
  const doneMs = watch.doneMs!;
  const restSeconds = doneMs / 1000;
  const p99 = (r: LoadResult) => percentile(r.latenciesMs, 99);
  const ratio = p99(beside) / p99(alone);
  // The requests of the load beside the erasure that started before the worker set done_at: only those ran beside it.
  const doneAt = answeredAt + doneMs;
  const during = beside.spans.filter(([start]) => start < doneAt).map(([start, end]) => end - start);
  const duringShare = during.length / Math.max(1, beside.requests);
  const measured = duringShare >= MIN_OVERLAP;
  const rssGrowthMb = mb(exported.rssPeak - exported.rssBefore);
  const eventsPerSecond = exportEvents / exported.seconds;
  const met = {
    answer: answerMs <= TARGETS.answerMs,
    rest: restSeconds <= TARGETS.restSeconds,
    p99: measured && ratio <= TARGETS.p99Ratio,
    rss: rssGrowthMb <= TARGETS.rssMb,
    rate: eventsPerSecond >= TARGETS.eventsPerSecond,
  };
  const p99Verdict = measured ? verdict(met.p99) : `NOT met (not measured: ${(duringShare * 100).toFixed(0)}% of the requests ran beside the worker)`;
  const out: string[] = [];
  out.push(
    `Erasure and export (contract §21): one customer with ${fmt(generated.events)} events over ${MONTHS} months (${generated.partitions} monthly partitions), ` +
      `${fmt(generated.credits)} ledger entries, ${fmt(generated.notifications)} notifications; API and one worker (WORKER_QUEUES=events, ERASURE_RATE ${ERASURE_RATE}); ` +
      `V1 at ${CONCURRENCY} connections; ${os.cpus().length} cores, node ${process.version}\n\n`,
  );
  out.push(
    table(
      ['measure', 'value', 'target', ''],
      [
        ['erasure: DELETE answer', `${answerMs.toFixed(1)} ms`, `≤ ${TARGETS.answerMs} ms`, verdict(met.answer)],
        ['erasure: answer → erasures.done_at', `${restSeconds.toFixed(2)} s`, `≤ ${TARGETS.restSeconds} s`, verdict(met.rest)],
        ['V1 p99 beside the erasure / without', `${ratio.toFixed(2)}×`, `≤ ${TARGETS.p99Ratio}×`, p99Verdict],
        ['export: API RSS growth', `${rssGrowthMb.toFixed(1)} MB`, `≤ ${TARGETS.rssMb} MB`, verdict(met.rss)],
        ['export: events streamed per second', fmt(Math.round(eventsPerSecond)), `≥ ${fmt(TARGETS.eventsPerSecond)}`, verdict(met.rate)],
      ],
    ),
  );
  out.push('\n');
  const row = (name: string, latencies: number[], seconds: number | null, errors: number | null) => [
    name,
    fmt(latencies.length),
    seconds === null ? '' : seconds.toFixed(1),
    seconds === null ? '' : (latencies.length / seconds).toFixed(0),
    percentile(latencies, 50).toFixed(1),
    percentile(latencies, 99).toFixed(1),
    latencies.length ? Math.max(...latencies).toFixed(1) : '',
    errors === null ? '' : String(errors),
  ];
  out.push(
    table(
      ['V1 events (other customers)', 'requests', 'seconds', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors'],
      [
        row('without the erasure (worker idle)', alone.latenciesMs, alone.seconds, alone.errors),
        row('beside the erasure worker', beside.latenciesMs, beside.seconds, beside.errors),
        row('  of which started before done_at', during, null, null),
      ],
    ),
  );
  out.push(
    `the load beside the erasure ran from ${(loadStartMs / 1000).toFixed(2)} s to ${(loadEndMs / 1000).toFixed(2)} s after the answer, the worker until ${restSeconds.toFixed(2)} s: ` +
      `${(duringShare * 100).toFixed(0)}% of its requests started before done_at (the comparison needs ≥ ${MIN_OVERLAP * 100}%)\n`,
  );
  const steps = watch.steps.map((st, i) => `${st.step} ${(((watch.steps[i + 1]?.atMs ?? doneMs) - st.atMs) / 1000).toFixed(2)} s`);
  out.push(
    `erasure steps as seen (the job's row polled every 20 ms; "analytics" includes the wait for the next 5-s sweep, then the fold; a step shorter than a poll may not show): ${steps.join(', ')}; ` +
      `done_at − erased_at (database) ${watch.dbSeconds?.toFixed(2)} s; attempts ${watch.attempts}${watch.lastError ? `, last error ${watch.lastError}` : ''}\n`,
  );
  for (const [i, run] of exports.entries()) {
    out.push(
      `${i === 0 ? 'export (measured)' : 'export again (warm API, not a target)'}: ${run.seconds.toFixed(2)} s (first byte ${run.firstByteMs.toFixed(0)} ms), ${mb(run.bytes).toFixed(1)} MB, ` +
        `${fmt(Math.round(exportEvents / run.seconds))} events/s; API RSS ${mb(run.rssBefore).toFixed(1)} → peak ${mb(run.rssPeak).toFixed(1)} MB (+${mb(run.rssPeak - run.rssBefore).toFixed(1)} MB, ${run.samples} samples)\n`,
    );
  }
  out.push(`checked: each export holds ${exportChecked}; after done_at ${erasedChecked}\n`);
  if (workerLines.length) out.push(`worker log lines about the erasure, or at warn and above:\n${workerLines.map((l) => `  ${l}`).join('\n')}\n`);
  out.push(`\nTargets:\n`);
  out.push(`  erasure of a customer with ${fmt(EVENTS)} events over ${MONTHS} months: DELETE answer ${answerMs.toFixed(1)} ms ≤ ${TARGETS.answerMs} ms: ${verdict(met.answer)}\n`);
  out.push(`  erasure of a customer with ${fmt(EVENTS)} events over ${MONTHS} months: the rest ${restSeconds.toFixed(2)} s ≤ ${TARGETS.restSeconds} s after the answer: ${verdict(met.rest)}\n`);
  out.push(`  other customers' V1 p99 beside the erasure's worker ${p99(beside).toFixed(1)} ms ≤ ${TARGETS.p99Ratio}× without it (${p99(alone).toFixed(1)} ms): ${ratio.toFixed(2)}×: ${p99Verdict}\n`);
  out.push(`  export: API RSS growth ${rssGrowthMb.toFixed(1)} MB ≤ ${TARGETS.rssMb} MB: ${verdict(met.rss)}\n`);
  out.push(`  export: ${fmt(Math.round(eventsPerSecond))} events/s ≥ ${fmt(TARGETS.eventsPerSecond)}: ${verdict(met.rate)}\n`);
  out.push(`\nload average at the end ${loadAverage()}; total ${elapsed()}\n`);
  const knobs = ['BENCH_ERASURE_EVENTS', 'BENCH_SECONDS', 'ERASURE_RATE'].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]} `);
  out.push(`command: ${knobs.join('')}npm run bench:erasure (node dist/bench/erasure.bench.js)\n`);
  process.stdout.write(out.join(''));
} catch (error) {
  process.exitCode = 1;
  process.stderr.write(`erasure bench FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await cleanup();
  forget();
  log(`done in ${elapsed()}`);
}
