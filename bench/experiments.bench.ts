/**
 * Experiment results at scale (issue #43, contract §20): GET .../campaigns/:id/experiment for a campaign whose
 * experiment assigned 1,000,000 customers who sent 10,000,000 metric events, side by side with a campaign whose
 * experiment assigned 20, in one run and one API process. Target: p95 ≤ 500 ms at 1,000,000 customers.
 * The database is its own (`ce_bench_experiments`): migrated, its organization, two live campaigns with the same
 * experiment (holdout 10%, variants A and B weighted 1 and 1, metric purchase.amount) and the same behavior ("Buyer",
 * purchase, 10 points), created through the API; 20 customers created through the API send 1 to 3 purchases each
 * (amount 12.5) through V1, so the event path writes their assignments and activity, which the first read folds. The
 * large campaign's state is generated with INSERT ... SELECT generate_series as the event path leaves it: 1,000,000
 * rows of experiment_assignments (md5-based customer ids; customer c is in the holdout when c mod 20 < 2, in A when
 * c mod 20 < 11, else in B: 10%, 45%, 45%), 10,000,000 metric events spread over the converted customers by a hash
 * weight (the total exact, checked after; conversion 55% in the holdout, 60% in A, 64% in B; 5.00 to 49.99 per
 * event), its experiment_groups rows summed from those rows by SQL (achievements: one per purchase outside the
 * holdout, 10 points each) and campaigns.experiment_started_at. The answers are checked against what was stored (a
 * ceiling that stores nothing is no benchmark).
 * Run: npm run bench:experiments
 * Env: BENCH_EXPERIMENTS_CUSTOMERS (1,000,000), BENCH_EXPERIMENTS_EVENTS (10,000,000), BENCH_EXPERIMENTS_RUNS (40
 * requests per campaign), BENCH_KEEP_EXPERIMENTS=1 (keep the database, reused when it holds the same sizes).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { onInterrupt } from './support/cleanup.js';
import { databaseComment, databaseExists, databaseUrl, dropDatabase, migrate, setDatabaseComment, startApi, type HistoryApi } from './support/history-server.js';
import { percentile, table } from './support/load.js';
import { int } from './support/env.js';
import { call, type Tenant } from './support/api-call.js';

const CUSTOMERS = int('BENCH_EXPERIMENTS_CUSTOMERS', 1_000_000);
const EVENTS = int('BENCH_EXPERIMENTS_EVENTS', 10_000_000);
const RUNS = int('BENCH_EXPERIMENTS_RUNS', 40);
const KEEP = process.env.BENCH_KEEP_EXPERIMENTS === '1';
const TARGET_MS = 500;
const NAME = 'ce_bench_experiments';
const PORT = 3955;
/** The small campaign's customers, each sending 1 + (i mod 3) purchases of AMOUNT. */
const SMALL_CUSTOMERS = 20;
const AMOUNT = 12.5;
const POINTS = 10;
const EXPERIMENT = {
  holdout_percent: 10,
  variants: [
    { name: 'A', weight: 1 },
    { name: 'B', weight: 1 },
  ],
  metric: { event: 'purchase', attribute: 'amount' },
};
const GROUPS = ['holdout', 'A', 'B'] as const;
/** The generated split: customer c is in the holdout when c mod 20 < 2, in A when c mod 20 < 11, else in B. */
const RESIDUES: Record<(typeof GROUPS)[number], number[]> = { holdout: [0, 1], A: [2, 3, 4, 5, 6, 7, 8, 9, 10], B: [11, 12, 13, 14, 15, 16, 17, 18, 19] };

const began = performance.now();
const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
const log = (line: string) => process.stderr.write(`experiments bench [${elapsed()}]: ${line}\n`);
const fmt = (n: number) => n.toLocaleString('en-US');
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(', ');

interface Built extends Tenant {
  organizationId: number;
  large: number;
  small: number;
  /** Purchases the small campaign's customers sent through V1. */
  smallEvents: number;
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

/** The organization, both campaigns with the experiment and "Buyer" (purchase), the small one's purchases through V1. */
async function configure(url: string): Promise<Omit<Built, 'seconds'>> {
  const created = await call(`${url}/admin/v1/organizations`, 'POST', { organization: { name: 'Experiments', time_zone: 'Europe/Paris' }, application: { name: 'Bench' } }, undefined, 201);
  const tenant = { key: created.api_key as string, secret: created.api_secret as string };
  const base = `${url}/priv/v1/apps/${tenant.key}`;
  const campaign = async (name: string) => {
    const now = Date.now();
    const c = await call(
      `${base}/management/campaigns`,
      'POST',
      { campaign: { name, status: 'live', starts_at: new Date(now - 100 * 86_400_000).toISOString(), ends_at: new Date(now + 365 * 86_400_000).toISOString(), experiment: EXPERIMENT } },
      tenant,
      201,
    );
    await call(
      `${base}/management/campaigns/${c.campaign.id}/behaviors/_batch`,
      'POST',
      { behaviors: [{ name: `Buyer ${name}`, points: POINTS, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'purchase', internal_event_name: 'purchase', event_count: 1, type: 'count', points: 0 } }] }] }] },
      tenant,
      201,
    );
    return c.campaign.id as number;
  };
  const large = await campaign('Large');
  const small = await campaign('Small');
  // The small campaign's purchases through the event path (every live experiment of the organization reaches these
  // customers, the large one's too: its rows are replaced below).
  let smallEvents = 0;
  for (let i = 0; i < SMALL_CUSTOMERS; i += 1) {
    const user = await call(`${base}/users`, 'POST', { user: { external_id: `small-${i}` } }, tenant, 201);
    for (let n = 0; n <= i % 3; n += 1) {
      await call(`${base}/users/${user.user.id}/events`, 'POST', { events: { purchase: { amount: AMOUNT } } }, tenant);
      smallEvents += 1;
    }
  }
  return { ...tenant, organizationId: created.organization.id as number, large, small, smallEvents };
}

/** The large campaign's experiment state, as the event path and the fold leave it for its customers and events. */
async function generate(db: pg.Client, b: Omit<Built, 'seconds'>): Promise<void> {
  const step = async (name: string, sql: string, values: unknown[] = []) => {
    const started = performance.now();
    await db.query(sql, values);
    log(`${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  // What the small campaign's customers were assigned in the large one (and folded by the read before) is replaced.
  for (const t of ['experiment_assignments', 'experiment_groups']) await db.query(`DELETE FROM ${t} WHERE campaign_id = $1`, [b.large]);
  // Each converted customer's events: EVENTS × (their cumulative weight) / (all weights), floored, minus the same for
  // the customers before them: the total is EVENTS exactly. A weight is 1 to 19 (mean 10), 0 for who never converted.
  const hash = (salt: number) => `abs(hashint8(c::bigint * ${salt} + ${salt % 97})::bigint)`;
  await step(
    `experiment_assignments (${fmt(CUSTOMERS)} rows)`,
    `INSERT INTO experiment_assignments (customer_id, campaign_id, group_name, assigned_at, metric_sum, metric_events)
     SELECT md5('exp-' || c)::uuid, $1::int, g, now() - (${hash(17)} % (90 * 86400)) * interval '1 second', round(e * amount, 2), e
       FROM (SELECT c, g, amount, ($2::bigint * cum / total - $2::bigint * (cum - w) / total)::int AS e
               FROM (SELECT c, g, w, amount, sum(w) OVER (ORDER BY c) AS cum, greatest(sum(w) OVER (), 1) AS total
                       FROM (SELECT c, g, CASE WHEN ${hash(7919)} % 100 < CASE g WHEN 'holdout' THEN 55 WHEN 'A' THEN 60 ELSE 64 END THEN (1 + ${hash(31)} % 19)::int ELSE 0 END AS w,
                                    5 + (${hash(131)} % 4500) / 100.0 AS amount
                               FROM (SELECT c, CASE WHEN c % 20 < 2 THEN 'holdout' WHEN c % 20 < 11 THEN 'A' ELSE 'B' END AS g FROM generate_series(0, $3::int - 1) c) s) w) x) y
      ORDER BY 1`,
    [b.large, EVENTS, CUSTOMERS],
  );
  await step(
    'experiment_groups',
    `INSERT INTO experiment_groups (campaign_id, group_name, customers, converted, metric_sum, metric_sum_squares, achievements, points_credited)
     SELECT $1::int, group_name, count(*), count(*) FILTER (WHERE metric_events > 0), sum(metric_sum), sum(metric_sum * metric_sum),
            CASE WHEN group_name = 'holdout' THEN 0 ELSE sum(metric_events) END, CASE WHEN group_name = 'holdout' THEN 0 ELSE sum(metric_events) * $2::int END
       FROM experiment_assignments WHERE campaign_id = $1::int GROUP BY group_name`,
    [b.large, POINTS],
  );
  await db.query(`UPDATE campaigns SET experiment_started_at = (SELECT min(assigned_at) FROM experiment_assignments WHERE campaign_id = $1) WHERE id = $1`, [b.large]);
  for (const t of ['experiment_assignments', 'experiment_groups']) await db.query(`VACUUM ANALYZE ${t}`);
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
  // A read folds what the small campaign's purchases appended (the large campaign's share too, replaced next).
  await call(`${api.url}/priv/v1/apps/${configured.key}/management/campaigns/${configured.small}/experiment`, 'GET', undefined, configured);
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

interface StoredGroup {
  customers: number;
  converted: number;
  metricSum: number;
  metricEvents: number;
}

/** Each group's customers, converted, Σx and metric events, summed from the campaign's assignment rows. */
async function storedGroups(campaignId: number): Promise<Record<string, StoredGroup>> {
  const db = new pg.Client({ connectionString: databaseUrl(NAME) });
  await db.connect();
  try {
    const rows = (
      await db.query(
        `SELECT group_name, count(*)::bigint AS customers, count(*) FILTER (WHERE metric_events > 0)::bigint AS converted, sum(metric_sum) AS metric_sum,
                sum(metric_events)::bigint AS metric_events
           FROM experiment_assignments WHERE campaign_id = $1 GROUP BY group_name`,
        [campaignId],
      )
    ).rows as Array<Record<string, string>>;
    return Object.fromEntries(
      rows.map((r) => [r.group_name, { customers: Number(r.customers), converted: Number(r.converted), metricSum: Number(r.metric_sum), metricEvents: Number(r.metric_events) }]),
    );
  } finally {
    await db.end();
  }
}

/** Customers c in [0, n) with c mod 20 = r. */
const withResidue = (n: number, r: number) => (n > r ? Math.floor((n - 1 - r) / 20) + 1 : 0);

interface GroupAnswer {
  name: string;
  customers: number;
  converted: number;
  conversion_rate: number | null;
  metric_sum: number;
  metric_mean: number | null;
}
interface StatAnswer {
  absolute: number | null;
  p_value: number | null;
}
interface ExperimentAnswer {
  started_at: string | null;
  groups: GroupAnswer[];
  comparisons: Array<{ group: string; against: string; conversion: StatAnswer; mean: StatAnswer }>;
  sample_ratio: { chi_square: number | null; p_value: number | null; mismatch: boolean };
}

/** Throws unless the answer's groups hold what the assignment rows hold (and, for the large one, what was generated). */
function check(label: string, answer: ExperimentAnswer, stored: Record<string, StoredGroup>, expected: { customers: number; events: number; byGroup?: Record<string, number> }): void {
  const problems: string[] = [];
  if (!answer.started_at) problems.push('started_at is null');
  const names = answer.groups.map((g) => g.name).join(',');
  if (names !== GROUPS.join(',')) problems.push(`groups ${names}, not ${GROUPS.join(',')}`);
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  for (const g of answer.groups) {
    const s = stored[g.name] ?? { customers: 0, converted: 0, metricSum: 0, metricEvents: 0 };
    if (g.customers !== s.customers || g.converted !== s.converted || !close(g.metric_sum, s.metricSum)) {
      problems.push(`${g.name}: answered ${g.customers} customers, ${g.converted} converted, Σx ${g.metric_sum}; stored ${s.customers}, ${s.converted}, ${s.metricSum}`);
    }
    if (expected.byGroup && g.customers !== expected.byGroup[g.name]) problems.push(`${g.name}: ${g.customers} customers, ${expected.byGroup[g.name]} generated`);
  }
  const customers = answer.groups.reduce((n, g) => n + g.customers, 0);
  const events = Object.values(stored).reduce((n, s) => n + s.metricEvents, 0);
  if (customers !== expected.customers) problems.push(`${customers} customers in all, not ${expected.customers}`);
  if (events !== expected.events) problems.push(`${events} metric events stored, not ${expected.events}`);
  if (problems.length) throw new Error(`the ${label} campaign's experiment: ${problems.join('; ')}`);
}

const p = (v: number | null) => (v === null ? '-' : v === 0 ? '0' : v < 0.0001 ? v.toExponential(1) : v.toFixed(4));
const signed = (v: number | null, digits: number) => (v === null ? '-' : `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`);

/** One line of what the large experiment's answer says: groups, conversion and each variant against the holdout. */
function describe(answer: ExperimentAnswer): string {
  const groups = answer.groups.map((g) => `${g.name} ${fmt(g.customers)} (conversion ${g.conversion_rate?.toFixed(4)}, mean ${g.metric_mean?.toFixed(2)})`).join(', ');
  const comparisons = answer.comparisons.map((c) => `${c.group} vs ${c.against}: conversion ${signed(c.conversion.absolute, 4)} p ${p(c.conversion.p_value)}, mean ${signed(c.mean.absolute, 2)} p ${p(c.mean.p_value)}`);
  return `${groups}; ${comparisons.join('; ')}; sample ratio chi² ${answer.sample_ratio.chi_square?.toFixed(3)} p ${p(answer.sample_ratio.p_value)}${answer.sample_ratio.mismatch ? ' MISMATCH' : ''}`;
}

try {
  log(`load average ${loadAverage()}; ${os.cpus().length} cores, node ${process.version}`);
  const built = await build();
  const get = async (campaign: number) => {
    const started = performance.now();
    const body = await call(`${api!.url}/priv/v1/apps/${built.key}/management/campaigns/${campaign}/experiment`, 'GET', undefined, built);
    return { ms: performance.now() - started, experiment: body.experiment as ExperimentAnswer };
  };
  // What was stored is what is answered: the large campaign's generated split and events, the small one's customers
  // who sent purchases, each of them converted, Σx their purchases' amounts.
  const large = (await get(built.large)).experiment;
  const byGroup = Object.fromEntries(GROUPS.map((g) => [g, RESIDUES[g].reduce((n, r) => n + withResidue(CUSTOMERS, r), 0)]));
  check('large', large, await storedGroups(built.large), { customers: CUSTOMERS, events: EVENTS, byGroup });
  const small = (await get(built.small)).experiment;
  check('small', small, await storedGroups(built.small), { customers: SMALL_CUSTOMERS, events: built.smallEvents });
  const smallConverted = small.groups.reduce((n, g) => n + g.converted, 0);
  const smallSum = small.groups.reduce((n, g) => n + g.metric_sum, 0);
  if (smallConverted !== SMALL_CUSTOMERS || smallSum !== built.smallEvents * AMOUNT) {
    throw new Error(`the small campaign answers ${smallConverted} converted and Σx ${smallSum}, not ${SMALL_CUSTOMERS} and ${built.smallEvents * AMOUNT}`);
  }
  log(`checked: ${fmt(CUSTOMERS)} customers and ${fmt(EVENTS)} metric events in the large campaign; ${SMALL_CUSTOMERS} customers and ${built.smallEvents} purchases in the small one`);

  const times: Record<'large' | 'small', number[]> = { large: [], small: [] };
  // Alternated, so that both sizes meet the same machine.
  for (let i = 0; i < RUNS; i += 1) {
    times.large.push((await get(built.large)).ms);
    times.small.push((await get(built.small)).ms);
  }
  const p95 = percentile(times.large, 95);
  const met = p95 <= TARGET_MS;
  const rows = (['large', 'small'] as const).map((size) => [
    size === 'large' ? `${fmt(CUSTOMERS)} customers, ${fmt(EVENTS)} metric events` : `${SMALL_CUSTOMERS} customers, ${built.smallEvents} metric events (V1)`,
    percentile(times[size], 50).toFixed(1),
    percentile(times[size], 95).toFixed(1),
    Math.max(...times[size]).toFixed(1),
    size === 'large' ? `≤ ${TARGET_MS} ms` : '',
    size === 'large' ? (met ? 'met' : 'NOT met') : '',
  ]);
  const out: string[] = [];
  out.push(`Experiment results: GET .../campaigns/:id/experiment, ${RUNS} requests per campaign, alternated; one API process; ${os.cpus().length} cores, node ${process.version}\n`);
  out.push(`database ${NAME}: built in ${built.seconds.toFixed(0)} s\n\n`);
  out.push(table(['campaign', 'p50 ms', 'p95 ms', 'max ms', 'target (p95)', ''], rows));
  out.push(`\nlarge: ${describe(large)}\n`);
  out.push(`checked: every group's customers, converted and Σx as the assignment rows hold them; the large split as generated; the small campaign's ${SMALL_CUSTOMERS} customers, all converted\n`);
  out.push(`\nload average at the end ${loadAverage()}; target (p95 ≤ ${TARGET_MS} ms at ${fmt(CUSTOMERS)} customers): ${met ? 'met' : 'NOT met'}; total ${elapsed()}\n`);
  process.stdout.write(out.join(''));
} catch (error) {
  process.exitCode = 1;
  process.stderr.write(`experiments bench FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await cleanup();
  forget();
  log(`done in ${elapsed()}`);
}
