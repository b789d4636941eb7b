/**
 * Campaign analytics at scale (issue #42, contract §19): GET .../campaigns/:id/analytics for a campaign with
 * 10,000,000 events of 10,000 customers over the last 365 days, side by side with a campaign of 10 events, in one
 * run and one API process. Target: 90 days by day, p95 ≤ 300 ms, at both sizes.
 * The database is its own (`ce_bench_analytics`): migrated, its organization (Europe/Paris), two campaigns with the
 * same two behaviors (three goals) and three customers created through the API; the small campaign's 10 events are
 * sent through V1, so the event path writes its read model. The large campaign's read model is generated with
 * INSERT ... SELECT generate_series as the event path leaves it for its events: each customer active on about 60% of
 * the days (a hash of customer and day), the day's events of the campaign spread over its active customers (10,000,000
 * in all, checked after), a completion of "Buyer" every 5th event and one of "Reviewer" every 20th, 10 and 3 points;
 * the customers' bitmaps of active days, their achievements by day, the goal funnel. The answers are checked against
 * what was generated (a ceiling that stores nothing is no benchmark).
 * Run: npm run bench:analytics
 * Env: BENCH_ANALYTICS_CUSTOMERS (10,000), BENCH_ANALYTICS_EVENTS (10,000,000), BENCH_ANALYTICS_RUNS (40 requests per
 * query and campaign), BENCH_KEEP_ANALYTICS=1 (keep the database, reused when it holds the same sizes).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { onInterrupt } from './support/cleanup.js';
import { databaseComment, databaseExists, databaseUrl, dropDatabase, migrate, setDatabaseComment, startApi, type HistoryApi } from './support/history-server.js';
import { percentile, table } from './support/load.js';
import { int } from './support/env.js';
import { call, type Tenant } from './support/api-call.js';

const CUSTOMERS = int('BENCH_ANALYTICS_CUSTOMERS', 10_000);
const EVENTS = int('BENCH_ANALYTICS_EVENTS', 10_000_000);
const RUNS = int('BENCH_ANALYTICS_RUNS', 40);
const KEEP = process.env.BENCH_KEEP_ANALYTICS === '1';
const TARGET_MS = 300;
const NAME = 'ce_bench_analytics';
const PORT = 3953;
const TIME_ZONE = 'Europe/Paris';
const DAYS = 365;

const began = performance.now();
const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
const log = (line: string) => process.stderr.write(`analytics bench [${elapsed()}]: ${line}\n`);
const fmt = (n: number) => n.toLocaleString('en-US');
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(', ');

interface Built extends Tenant {
  organizationId: number;
  large: number;
  small: number;
  seconds: number;
}

let api: HistoryApi | null = null;
let cleaning: Promise<void> | undefined;
const cleanup = () =>
  (cleaning ??= (async () => {
    await api?.stop().catch(() => undefined);
    if (!KEEP) await dropDatabase(NAME).catch(() => undefined);
  })());
const forget = onInterrupt(cleanup);

/** The organization, both campaigns with "Buyer" (purchase, visit) and "Reviewer" (review), the small one's 10 events. */
async function configure(url: string): Promise<Omit<Built, 'seconds'>> {
  const created = await call(`${url}/admin/v1/organizations`, 'POST', { organization: { name: 'Analytics', time_zone: TIME_ZONE }, application: { name: 'Bench' } }, undefined, 201);
  const tenant = { key: created.api_key as string, secret: created.api_secret as string };
  const base = `${url}/priv/v1/apps/${tenant.key}`;
  const campaign = async (name: string) => {
    const now = Date.now();
    const c = await call(`${base}/management/campaigns`, 'POST', { campaign: { name, status: 'live', starts_at: new Date(now - 400 * 86_400_000).toISOString(), ends_at: new Date(now + 365 * 86_400_000).toISOString() } }, tenant, 201);
    const goal = (event: string) => ({ achievement: { name: event, internal_event_name: event, event_count: 1, type: 'count', points: 0 } });
    await call(`${base}/management/campaigns/${c.campaign.id}/behaviors/_batch`, 'POST', {
      behaviors: [
        { name: `Buyer ${name}`, points: 10, data: {}, goal_groups: [{ goals: [goal('purchase'), goal('visit')] }] },
        { name: `Reviewer ${name}`, points: 3, data: {}, goal_groups: [{ goals: [goal('review')] }] },
      ],
    }, tenant, 201);
    return c.campaign.id as number;
  };
  const large = await campaign('Large');
  const small = await campaign('Small');
  // The small campaign's events through the event path (the large one listens too: its read model is replaced below).
  const names = ['purchase', 'visit', 'review', 'purchase', 'visit', 'review', 'purchase', 'visit', 'purchase', 'review'];
  for (let c = 0; c < 3; c += 1) {
    const user = await call(`${base}/users`, 'POST', { user: { external_id: `small-${c}` } }, tenant, 201);
    for (const [i, name] of names.entries()) if (i % 3 === c) await call(`${base}/users/${user.user.id}/events`, 'POST', { events: { [name]: 1 }, date: new Date(Date.now() - i * 86_400_000).toISOString() }, tenant);
  }
  return { ...tenant, organizationId: created.organization.id as number, large, small };
}

/** The large campaign's read model, as the event path leaves it for its events. */
async function generate(db: pg.Client, b: Omit<Built, 'seconds'>): Promise<void> {
  const step = async (name: string, sql: string, values: unknown[] = []) => {
    const started = performance.now();
    await db.query(sql, values);
    log(`${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  const behaviors = (await db.query(`SELECT id, goal_groups FROM behaviors WHERE campaign_id = $1 ORDER BY id`, [b.large])).rows as Array<{ id: number; goal_groups: Array<{ goals: Array<{ id: number }> }> }>;
  const [buyer, reviewer] = behaviors.map((x) => x.id);
  const goals = behaviors.flatMap((x) => x.goal_groups[0].goals.map((g) => g.id));
  // What the small campaign's events counted for the large one (it listens too; folded by a read before) is replaced.
  for (const table of ['campaign_daily', 'campaign_participants', 'campaign_achievers']) await db.query(`DELETE FROM ${table} WHERE campaign_id = $1`, [b.large]);
  await db.query(`CREATE UNLOGGED TABLE bench_ids AS SELECT c, gen_random_uuid() AS id FROM generate_series(0, $1::int - 1) c`, [CUSTOMERS]);
  await step(
    'active customer-days',
    `CREATE UNLOGGED TABLE bench_days AS
     SELECT i.c, i.id, d.day FROM bench_ids i
      CROSS JOIN (SELECT g::date AS day FROM generate_series((now() AT TIME ZONE '${TIME_ZONE}')::date - ($1::int - 1), (now() AT TIME ZONE '${TIME_ZONE}')::date, interval '1 day') g) d
      WHERE abs(hashint8(i.c::bigint * 100003 + (d.day - DATE '2000-01-01'))) % 100 < 60`,
    [DAYS],
  );
  const [{ n: activeDays }] = (await db.query(`SELECT count(*)::bigint AS n FROM bench_days`)).rows;
  // Each active customer-day gets floor or ceil of EVENTS / active days events: exactly EVENTS in all.
  await step(
    'events per customer-day',
    `CREATE UNLOGGED TABLE bench_activity AS
     SELECT c, id, day,
            ($1::bigint / $2::bigint + CASE WHEN row_number() OVER (ORDER BY c, day) <= $1::bigint % $2::bigint THEN 1 ELSE 0 END)::int AS events
       FROM bench_days`,
    [EVENTS, activeDays],
  );
  await step(
    'campaign_daily',
    `INSERT INTO campaign_daily (campaign_id, day, behavior_id, events, participants, achievements, points_credited, offers_issued, notifications)
     SELECT $1::int, day, 0, sum(events), count(*), sum(events / 5 + events / 20), sum(events / 5 * 10 + events / 20 * 3), 0, 0 FROM bench_activity GROUP BY day
     UNION ALL SELECT $1::int, day, $2::int, 0, 0, sum(events / 5), sum(events / 5 * 10), 0, 0 FROM bench_activity GROUP BY day
     UNION ALL SELECT $1::int, day, $3::int, 0, 0, sum(events / 20), sum(events / 20 * 3), 0, 0 FROM bench_activity GROUP BY day`,
    [b.large, buyer, reviewer],
  );
  await step(
    'campaign_participants',
    `INSERT INTO campaign_participants (campaign_id, year, customer_id, days)
     SELECT $1::int, extract(year FROM day)::smallint, id, bit_or(set_bit(repeat('0', 366)::bit(366), extract(doy FROM day)::int - 1, 1))
       FROM bench_activity GROUP BY 2, 3`,
    [b.large],
  );
  await step(
    'campaign_achievers',
    `INSERT INTO campaign_achievers (campaign_id, day, behavior_id, customer_id, achievements)
     SELECT $1::int, day, $2::int, id, events / 5 FROM bench_activity WHERE events >= 5
     UNION ALL SELECT $1::int, day, $3::int, id, events / 20 FROM bench_activity WHERE events >= 20`,
    [b.large, buyer, reviewer],
  );
  await step(
    'campaign_goal_customers',
    `INSERT INTO campaign_goal_customers (goal_id, customer_id, completed)
     SELECT g, i.id, true FROM unnest($1::int[]) g CROSS JOIN (SELECT DISTINCT id FROM bench_activity) i
     ON CONFLICT DO NOTHING`,
    [goals],
  );
  await db.query(`DROP TABLE bench_ids; DROP TABLE bench_days; DROP TABLE bench_activity`);
  for (const t of ['campaign_daily', 'campaign_participants', 'campaign_achievers', 'campaign_goal_customers']) await db.query(`VACUUM ANALYZE ${t}`);
  await db.query('CHECKPOINT');
}

async function build(): Promise<Built> {
  const comment = (await databaseExists(NAME)) ? await databaseComment(NAME) : null;
  try {
    const kept = JSON.parse(comment ?? 'null') as (Built & { customers: number; events: number }) | null;
    if (KEEP && kept && kept.customers === CUSTOMERS && kept.events === EVENTS) {
      log(`${NAME}: kept database reused (built in ${kept.seconds.toFixed(0)} s)`);
      api = await startApi(NAME, PORT);
      return kept;
    }
  } catch {
    // Not ours: rebuilt.
  }
  const started = performance.now();
  await dropDatabase(NAME);
  migrate(NAME);
  api = await startApi(NAME, PORT);
  const configured = await configure(api.url);
  // A read folds what the small campaign's events appended.
  await call(`${api.url}/priv/v1/apps/${configured.key}/management/campaigns/${configured.small}/analytics`, 'GET', undefined, configured);
  const db = new pg.Client({ connectionString: databaseUrl(NAME) });
  await db.connect();
  try {
    await generate(db, configured);
  } finally {
    await db.end();
  }
  const built = { ...configured, seconds: (performance.now() - started) / 1000 };
  if (KEEP) await setDatabaseComment(NAME, JSON.stringify({ ...built, customers: CUSTOMERS, events: EVENTS }));
  return built;
}

const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(new Date());
const daysBefore = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

const QUERIES = [
  { label: '90 days by day', query: (to: string) => `from=${daysBefore(to, 89)}&to=${to}&granularity=day`, target: true },
  { label: '90 days by week', query: (to: string) => `from=${daysBefore(to, 89)}&to=${to}&granularity=week`, target: false },
  { label: '365 days by month', query: (to: string) => `from=${daysBefore(to, 364)}&to=${to}&granularity=month`, target: false },
  { label: '365 days by day', query: (to: string) => `from=${daysBefore(to, 364)}&to=${to}&granularity=day`, target: false },
];

try {
  log(`load average ${loadAverage()}; ${os.cpus().length} cores, node ${process.version}`);
  const built = await build();
  const to = today();
  const get = async (campaign: number, query: string) => {
    const started = performance.now();
    const body = await call(`${api!.url}/priv/v1/apps/${built.key}/management/campaigns/${campaign}/analytics?${query}`, 'GET', undefined, built);
    return { ms: performance.now() - started, analytics: body.analytics as { totals: { events: number; participants: number; achievements: number }; series: unknown[] } };
  };
  // What was stored is what is answered: the whole year holds every event, and every customer took part.
  const year = (await get(built.large, `from=${daysBefore(to, DAYS - 1)}&to=${to}&granularity=month`)).analytics;
  if (year.totals.events !== EVENTS || year.totals.participants !== CUSTOMERS) throw new Error(`the large campaign answers ${JSON.stringify(year.totals)}, not ${EVENTS} events of ${CUSTOMERS} customers`);
  const small = (await get(built.small, `from=${daysBefore(to, 89)}&to=${to}`)).analytics;
  if (small.totals.events !== 10) throw new Error(`the small campaign answers ${JSON.stringify(small.totals)}, not 10 events`);
  log(`checked: ${fmt(year.totals.events)} events, ${fmt(year.totals.participants)} participants, ${fmt(year.totals.achievements)} achievements in the year; 10 events in the small campaign`);

  // Freshness: a V1 event is in the next read once its request has answered (the read folds what is left first).
  const base = `${api!.url}/priv/v1/apps/${built.key}`;
  const someone = (await call(`${base}/users`, 'POST', { user: { external_id: `fresh-${Date.now()}` } }, built, 201)).user.id as string;
  await call(`${base}/users/${someone}/events`, 'POST', { events: { review: 1 } }, built);
  const answered = performance.now();
  const fresh = (await get(built.small, `from=${to}&to=${to}`)).analytics.totals.events;
  const freshMs = performance.now() - answered;
  if (fresh < 1) throw new Error('the event just processed is not in the analytics');
  log(`freshness: the event processed was in the read that followed its answer, ${freshMs.toFixed(0)} ms later`);

  const rows: string[][] = [];
  let met = true;
  for (const q of QUERIES) {
    const times: Record<'large' | 'small', number[]> = { large: [], small: [] };
    // Alternated, so that both sizes meet the same machine.
    for (let i = 0; i < RUNS; i += 1) {
      times.large.push((await get(built.large, q.query(to))).ms);
      times.small.push((await get(built.small, q.query(to))).ms);
    }
    for (const size of ['large', 'small'] as const) {
      const p95 = percentile(times[size], 95);
      const ok = p95 <= TARGET_MS;
      if (q.target) met &&= ok;
      rows.push([q.label, size === 'large' ? `${fmt(EVENTS)} events` : '10 events', percentile(times[size], 50).toFixed(1), p95.toFixed(1), q.target ? `≤ ${TARGET_MS} ms` : '', q.target ? (ok ? 'met' : 'NOT met') : '']);
    }
  }
  const out: string[] = [];
  out.push(`Campaign analytics: a campaign with ${fmt(EVENTS)} events of ${fmt(CUSTOMERS)} customers over ${DAYS} days beside one with 10 events; ${TIME_ZONE}; ${RUNS} requests each, alternated; ${os.cpus().length} cores, node ${process.version}\n`);
  out.push(`database ${NAME}: built in ${built.seconds.toFixed(0)} s\n\n`);
  out.push(table(['query', 'campaign', 'p50 ms', 'p95 ms', 'target', ''], rows));
  out.push(`\nfreshness: a V1 event was in the analytics read right after its answer (${freshMs.toFixed(0)} ms; target ≤ 60 s: met)\n`);
  out.push(`\nload average at the end ${loadAverage()}; target (90 days by day, p95, both sizes): ${met ? 'met' : 'NOT met'}; total ${elapsed()}\n`);
  process.stdout.write(out.join(''));
} catch (error) {
  process.exitCode = 1;
  process.stderr.write(`analytics bench FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await cleanup();
  forget();
  log(`done in ${elapsed()}`);
}
