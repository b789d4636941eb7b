/**
 * The analytics backfill at scale (issue #42, decision 0022): 10,000,000 events of 10,000 customers over the last 365
 * days, processed before the read model existed, counted by `npm run cli -- analytics:backfill` (paced, as the workers
 * run it), while V1 events are sent; then folded by an analytics read. Prints, in one run: V1 p99 alone and beside the
 * backfill (target ≤ 1.5×), the backfill's time and events per second, the fold's time, and the analytics checked
 * against what was generated (every event counted once, every completion and credit).
 * The database is its own (`ce_bench_analytics_backfill`): migrated, its organization (Europe/Paris), a campaign whose
 * "Buyer" (purchase, visit: 10 points) and "Reviewer" (review: 3 points) listen to the history's events, 50 customers
 * for the V1 load on a campaign of their own (other event names), created through the API; then the history with
 * INSERT ... SELECT generate_series: each customer active on about 60% of the days, the events of a day spread over its
 * active customers, processed when they occurred, about every 5th purchase completing "Buyer" and every 4th review
 * "Reviewer" (a stored result naming the completion, a ledger credit); and the backfill's cursor set on them as the
 * migration sets it on the events before it.
 * Run: npm run bench:analytics-backfill
 * Env: BENCH_ANALYTICS_CUSTOMERS (10,000), BENCH_ANALYTICS_EVENTS (10,000,000), BENCH_SECONDS (20: V1 alone, and
 * beside the backfill).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { onInterrupt } from './support/cleanup.js';
import { monthsBetween } from './support/history-data.js';
import { databaseUrl, dropDatabase, migrate, startApi, type HistoryApi } from './support/history-server.js';
import { load, percentile, table, type LoadResult } from './support/load.js';
import { int } from './support/env.js';
import { call, headers, type Answer, type Tenant } from './support/api-call.js';

const CUSTOMERS = int('BENCH_ANALYTICS_CUSTOMERS', 10_000);
const EVENTS = int('BENCH_ANALYTICS_EVENTS', 10_000_000);
const SECONDS = int('BENCH_SECONDS', 20);
const TARGET = 1.5;
const NAME = 'ce_bench_analytics_backfill';
const PORT = 3954;
const TIME_ZONE = 'Europe/Paris';
const DAYS = 365;
const V1_CUSTOMERS = 50;
const CONCURRENCY = 4;

const began = performance.now();
const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
const log = (line: string) => process.stderr.write(`analytics-backfill bench [${elapsed()}]: ${line}\n`);
const fmt = (n: number) => n.toLocaleString('en-US');
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(', ');

let api: HistoryApi | null = null;
let cleaning: Promise<void> | undefined;
const cleanup = () =>
  (cleaning ??= (async () => {
    await api?.stop().catch(() => undefined);
    await dropDatabase(NAME).catch(() => undefined);
  })());
const forget = onInterrupt(cleanup);

/** The organization, the history's campaign, and the V1 load's campaign and customers. */
async function configure(url: string) {
  const created = await call(`${url}/admin/v1/organizations`, 'POST', { organization: { name: 'Backfill', time_zone: TIME_ZONE }, application: { name: 'Bench' } }, undefined, 201);
  const tenant = { key: created.api_key as string, secret: created.api_secret as string };
  const base = `${url}/priv/v1/apps/${tenant.key}`;
  const campaign = async (name: string, prefix: string) => {
    const now = Date.now();
    const c = await call(`${base}/management/campaigns`, 'POST', { campaign: { name, status: 'live', starts_at: new Date(now - 400 * 86_400_000).toISOString(), ends_at: new Date(now + 365 * 86_400_000).toISOString() } }, tenant, 201);
    const goal = (event: string) => ({ achievement: { name: `${prefix}${event}`, internal_event_name: `${prefix}${event}`, event_count: 1, type: 'count', points: 0 } });
    const made = await call(`${base}/management/campaigns/${c.campaign.id}/behaviors/_batch`, 'POST', {
      behaviors: [
        { name: `Buyer ${name}`, points: 10, data: {}, goal_groups: [{ goals: [goal('purchase'), goal('visit')] }] },
        { name: `Reviewer ${name}`, points: 3, data: {}, goal_groups: [{ goals: [goal('review')] }] },
      ],
    }, tenant, 201);
    return { id: c.campaign.id as number, behaviors: (made.behaviors as Array<{ id: number }>).map((b) => b.id) };
  };
  const history = await campaign('History', '');
  const live = await campaign('Live', 'live_');
  const customers: string[] = [];
  for (let c = 0; c < V1_CUSTOMERS; c += 1) customers.push((await call(`${base}/users`, 'POST', { user: { external_id: `live-${c}` } }, tenant, 201)).user.id as string);
  return { tenant, organizationId: created.organization.id as number, history, live, customers };
}

/** The history: events, their stored results and ledger credits, processed before the backfill's cursor was set. */
async function generate(db: pg.Client, organizationId: number, campaignId: number, [buyer, reviewer]: number[]): Promise<{ events: number; participants: number; completions: number; points: number }> {
  const step = async (name: string, sql: string, values: unknown[] = []) => {
    const started = performance.now();
    const result = await db.query(sql, values);
    log(`${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };
  const now = Date.now();
  for (const month of monthsBetween(now - (DAYS + 1) * 86_400_000, now)) {
    if ((await db.query(`SELECT 1 FROM pg_class WHERE relname = $1`, [month.name])).rowCount) continue;
    await db.query(`CREATE TABLE ${month.name} PARTITION OF events FOR VALUES FROM ('${month.from}') TO ('${month.to}')`);
  }
  const [{ key_id: keyId }] = (await db.query(`SELECT id AS key_id FROM api_keys WHERE organization_id = $1`, [organizationId])).rows;
  // Foreign keys are not checked while generating: the history's customers have no rows (the backfill reads none).
  await db.query(`SET session_replication_role = replica`);
  await db.query(`CREATE UNLOGGED TABLE bench_ids AS SELECT c, gen_random_uuid() AS id FROM generate_series(0, $1::int - 1) c`, [CUSTOMERS]);
  await step(
    'active customer-days',
    `CREATE UNLOGGED TABLE bench_days AS
     SELECT i.c, i.id, d.day FROM bench_ids i
      CROSS JOIN (SELECT g::date AS day FROM generate_series((now() AT TIME ZONE '${TIME_ZONE}')::date - $1::int, (now() AT TIME ZONE '${TIME_ZONE}')::date - 1, interval '1 day') g) d
      WHERE abs(hashint8(i.c::bigint * 100003 + (d.day - DATE '2000-01-01'))) % 100 < 60`,
    [DAYS],
  );
  const [{ n: activeDays }] = (await db.query(`SELECT count(*)::bigint AS n FROM bench_days`)).rows;
  await db.query(
    `CREATE UNLOGGED TABLE bench_activity AS
     SELECT c, id, day, ($1::bigint / $2::bigint + CASE WHEN row_number() OVER (ORDER BY c, day) <= $1::bigint % $2::bigint THEN 1 ELSE 0 END)::int AS events FROM bench_days`,
    [EVENTS, activeDays],
  );
  const [{ base }] = (await db.query(`SELECT coalesce(max(id), 0)::bigint AS base FROM events`)).rows;
  // The k-th event of a customer's day: purchase, visit, review in turn, 37 minutes apart from midnight.
  await step(
    `${fmt(EVENTS)} events`,
    `INSERT INTO events (id, organization_id, api_key_id, customer_id, user_ref, source, name, count, occurred_at, status, result, points_earned, processed_at, created_at)
     SELECT $1::bigint + row_number() OVER (), $2, $3, a.id, 'cust-' || a.c, 'v2', e.name, 1, e.at, 'processed',
            jsonb_build_object('state', 'qualified', 'points', e.points, 'completions',
              CASE WHEN e.behavior IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('campaign_id', $4::int, 'behavior_id', e.behavior, 'achieved', 1)) END),
            e.points, e.at, e.at
       FROM bench_activity a CROSS JOIN generate_series(1, a.events) k
       CROSS JOIN LATERAL (SELECT (ARRAY['purchase', 'visit', 'review'])[k % 3 + 1] AS name,
                                  (a.day + make_interval(mins => (k * 37) % 1440)) AT TIME ZONE '${TIME_ZONE}' AS at,
                                  CASE WHEN k % 3 = 1 AND (a.c + k) % 5 = 0 THEN $5::int WHEN k % 3 = 0 AND (a.c + k) % 4 = 1 THEN $6::int END AS behavior) e0
       CROSS JOIN LATERAL (SELECT e0.*, CASE e0.behavior WHEN $5::int THEN 10 WHEN $6::int THEN 3 ELSE 0 END AS points) e`,
    [base, organizationId, keyId, campaignId, buyer, reviewer],
  );
  await db.query(`SELECT setval(pg_get_serial_sequence('events', 'id'), (SELECT max(id) FROM events))`);
  const credited = await step(
    'ledger credits of the completions',
    `INSERT INTO points_ledger (organization_id, customer_id, event_id, amount, reason, source, created_at, occurred_at)
     SELECT organization_id, customer_id, id, points_earned, 'behavior',
            jsonb_build_object('campaign_id', $2::int, 'behavior_id', (result->'completions'->0->>'behavior_id')::int, 'goal_id', NULL, 'offer_id', NULL), occurred_at, occurred_at
       FROM events WHERE id > $1::bigint AND points_earned > 0
     RETURNING amount`,
    [base, campaignId],
  );
  await db.query(`SET session_replication_role = origin`);
  await db.query(`DROP TABLE bench_ids; DROP TABLE bench_days; DROP TABLE bench_activity`);
  // As the migration leaves it: the events up to now, processed before now, for the backfill.
  await db.query(`UPDATE analytics_backfill SET processed_before = now(), after_id = $1, until_id = (SELECT max(id) FROM events), done_at = NULL`, [base]);
  await step('VACUUM ANALYZE', `VACUUM ANALYZE events`);
  await db.query(`VACUUM ANALYZE points_ledger`);
  await db.query('CHECKPOINT');
  const [made] = (await db.query(`SELECT count(*)::int AS events, count(DISTINCT customer_id)::int AS participants FROM events WHERE id > $1::bigint`, [base])).rows;
  return { events: made.events, participants: made.participants, completions: credited.rowCount ?? 0, points: credited.rows.reduce((sum: number, r: { amount: number }) => sum + Number(r.amount), 0) };
}

/** V1 events for the live campaign's customers, CONCURRENCY at a time, for `seconds`. */
function v1Load(url: string, tenant: Tenant, customers: string[], seconds: number): Promise<LoadResult> {
  return load(
    async (i) => {
      const res = await fetch(`${url}/priv/v1/apps/${tenant.key}/users/${customers[i % customers.length]}/events`, { method: 'POST', headers: headers(tenant), body: JSON.stringify({ events: { live_visit: 1 } }) });
      await res.arrayBuffer();
      return res.status;
    },
    CONCURRENCY,
    seconds,
  );
}

/** The backfill as an operator runs it (paced, as the workers do); resolves with its report when it ends. */
function runBackfill(env: NodeJS.ProcessEnv): Promise<{ report: Answer; seconds: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/src/cli.js', 'analytics:backfill'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve({ report: JSON.parse(out) as Answer, seconds: (performance.now() - started) / 1000 }) : reject(new Error(`analytics:backfill exited ${code}: ${out}`)))),
  );
}

try {
  log(`load average ${loadAverage()}; ${os.cpus().length} cores, node ${process.version}`);
  await dropDatabase(NAME);
  migrate(NAME);
  api = await startApi(NAME, PORT);
  const setup = await configure(api.url);
  const db = new pg.Client({ connectionString: databaseUrl(NAME) });
  await db.connect();
  let generated: Awaited<ReturnType<typeof generate>>;
  try {
    generated = await generate(db, setup.organizationId, setup.history.id, setup.history.behaviors);
  } finally {
    await db.end();
  }
  log(`V1 alone, ${SECONDS} s`);
  const alone = await v1Load(api.url, setup.tenant, setup.customers, SECONDS);
  log('the backfill starts');
  const backfill = runBackfill({ ...api.env });
  const beside = await v1Load(api.url, setup.tenant, setup.customers, SECONDS);
  log(`V1 beside the backfill done; waiting for the backfill to end (load average ${loadAverage()})`);
  const { report, seconds } = await backfill;
  log(`backfill: ${JSON.stringify(report)}`);
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(new Date());
  const from = new Date(Date.parse(`${today}T00:00:00Z`) - DAYS * 86_400_000).toISOString().slice(0, 10);
  const folding = performance.now();
  const answer = (await call(`${api.url}/priv/v1/apps/${setup.tenant.key}/management/campaigns/${setup.history.id}/analytics?from=${from}&to=${today}&granularity=month`, 'GET', undefined, setup.tenant)).analytics;
  const foldSeconds = (performance.now() - folding) / 1000;
  const totals = answer.totals as { events: number; participants: number; achievements: number; points_credited: number };
  const expected = { events: generated.events, participants: generated.participants, achievements: generated.completions, points_credited: generated.points };
  if (generated.events !== EVENTS) throw new Error(`${generated.events} events generated, not ${EVENTS}`);
  const got = { events: totals.events, participants: totals.participants, achievements: totals.achievements, points_credited: totals.points_credited };
  if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`the backfilled analytics answer ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
  if (alone.errors > 0 || beside.errors > 0) throw new Error(`V1 answered errors: ${alone.errors} alone, ${beside.errors} beside the backfill`);

  const p99 = (r: LoadResult) => percentile(r.latenciesMs, 99);
  const ratio = p99(beside) / p99(alone);
  const out: string[] = [];
  out.push(`Analytics backfill: ${fmt(EVENTS)} events of ${fmt(CUSTOMERS)} customers over ${DAYS} days, ${TIME_ZONE}; V1 at ${CONCURRENCY} connections, ${SECONDS} s each; ${os.cpus().length} cores, node ${process.version}\n\n`);
  out.push(
    table(
      ['V1 events', 'req/s', 'p50 ms', 'p99 ms', 'p99 vs alone', 'target', ''],
      [
        ['alone', (alone.requests / alone.seconds).toFixed(0), percentile(alone.latenciesMs, 50).toFixed(1), p99(alone).toFixed(1), '', '', ''],
        ['beside the paced backfill', (beside.requests / beside.seconds).toFixed(0), percentile(beside.latenciesMs, 50).toFixed(1), p99(beside).toFixed(1), `${ratio.toFixed(2)}×`, `≤ ${TARGET}×`, ratio <= TARGET ? 'met' : 'NOT met'],
      ],
    ),
  );
  out.push(`\nbackfill (paced, npm run cli -- analytics:backfill): ${seconds.toFixed(0)} s for ${fmt(Number(report.events))} events (${fmt(Math.round(Number(report.events) / seconds))} events/s, ${report.batches} batches)\n`);
  out.push(`fold of its activity by the first analytics read: ${foldSeconds.toFixed(1)} s\n`);
  out.push(`checked: ${JSON.stringify(got)} as generated\n`);
  out.push(`load average at the end ${loadAverage()}; total ${elapsed()}\n`);
  process.stdout.write(out.join(''));
} catch (error) {
  process.exitCode = 1;
  process.stderr.write(`analytics-backfill bench FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await cleanup();
  forget();
  log(`done in ${elapsed()}`);
}
