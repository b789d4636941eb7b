/**
 * Issue #30's benchmarks (see tiers.bench.ts), on a fresh database and API process of their own: V1 under a period
 * tier policy against V1 under lifetime, side by side; and the review sweeper over 1,000,000 due reviews, with V1's
 * p99 while it runs against V1's p99 without it.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { addCustomers } from './customers.js';
import { createLiveCampaign } from './campaign.js';
import { CPU_COLUMNS, interleavedNamed, load, measured, percentile, send, summary, table } from './load.js';
import { answeredIn, latenciesIn, openLoopWindows, p99OfEach, sentIn } from './open-loop.js';
import { startNode, stopChild } from './processes.js';
import { bootstrap, startServer } from './server.js';
import { sweepRate } from './sweep-rate.js';
import { fmt, type Figure } from './summary.js';
import { checkTallies, clean, tallyLines, type Tally } from './verdict.js';

const CONCURRENCY = 10;
const CUSTOMERS = 10_000;
/** Credits of each customer's history before the run: one a month over two years (what a period policy reads). */
const HISTORY_MONTHS = 24;
const DUE_CUSTOMERS = 1_000_000;
/** V1 requests per second while the reviews run (and without them), in windows of WINDOW seconds. */
const V1_RATE = 100;
const WINDOW = 5;
const REVIEW_SECONDS = 60;
const TIERS = [
  { name: 'Silver', min_points: 100, retain_points: 50 },
  { name: 'Gold', min_points: 500, retain_points: 300 },
  { name: 'Platinum', min_points: 1000 },
];
const YEARLY = { basis: 'period', period_months: 12, downgrade: 'one_level', grace_days: 0 };
/** A month stands in for the year end: the machine's clock cannot be moved, and a review's work is the same. */
const MONTHLY = { basis: 'period', period_months: 1, downgrade: 'one_level', grace_days: 0 };

type Server = Awaited<ReturnType<typeof startServer>>;
type Tenant = Awaited<ReturnType<typeof bootstrap>>;
export type TiersPart = 'v1' | 'review';
type Part = { output: string; figures: Figure[] };

const headersOf = (t: { auth: string }) => ({ authorization: t.auth, 'content-type': 'application/json' });
const pick = (list: string[], i: number) => list[(i * 7919) % list.length];
const rps = (r: { requests: number; seconds: number }) => r.requests / r.seconds;
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');

export async function runTiers({ seconds, port = 3960, only = ['v1', 'review'] }: { seconds: number; port?: number; only?: TiersPart[] }): Promise<Part> {
  const server = await startServer(port);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: CONCURRENCY + 2 });
  try {
    const done: Part[] = [];
    for (const name of only) done.push(name === 'v1' ? await v1Part(server, db, seconds) : await reviewPart(server, db));
    return { output: done.map((p) => p.output).join('\n'), figures: done.flatMap((p) => p.figures) };
  } finally {
    await db.end();
    await server.stop();
  }
}

/** An organization with the tiers and the V1 benchmarks' campaign, under `policy` (none: lifetime). */
async function programTenant(server: Server, name: string, policy: object | null): Promise<Tenant> {
  const tenant = await bootstrap(server.url, name);
  const headers = headersOf(tenant);
  const base = `${server.url}/priv/v1/apps/${tenant.key}/management`;
  for (const tier of TIERS) {
    const res = await fetch(`${base}/tiers`, { method: 'POST', headers, body: JSON.stringify({ tier }) });
    if (res.status !== 201) throw new Error(`tier not created: ${res.status} ${await res.text()}`);
  }
  if (policy) {
    const res = await fetch(`${base}/settings`, { method: 'PUT', headers, body: JSON.stringify({ settings: { tier_policy: policy } }) });
    if (res.status !== 200) throw new Error(`policy not set: ${res.status} ${await res.text()}`);
  }
  return tenant;
}

/**
 * V1 sync under a yearly period policy against V1 under lifetime: the same campaign (10 behaviors, 5 listening to
 * `visit`), tiers and 10,000 customers each with two years of credits, interleaved in rounds. Under period every
 * evaluation reads the customer's credits summed per month; under lifetime none.
 */
async function v1Part(server: Server, db: pg.Pool, seconds: number): Promise<Part> {
  const side = async (name: string, policy: object | null) => {
    const tenant = await programTenant(server, name, policy);
    await createLiveCampaign(server.url, tenant);
    await addCustomers(db, tenant.organizationId, 'c-', 1, CUSTOMERS);
    await db.query(
      `INSERT INTO points_ledger (organization_id, customer_id, amount, reason, source, occurred_at, created_at)
       SELECT $1, c.id, 20, 'behavior', '{}', now() - k * interval '30 days', now() - k * interval '30 days'
         FROM customers c, generate_series(1, $2) k WHERE c.organization_id = $1`,
      [tenant.organizationId, HISTORY_MONTHS],
    );
    const ids = (await db.query(`SELECT id FROM customers WHERE organization_id = $1`, [tenant.organizationId])).rows.map((r) => r.id as string);
    const base = `${server.url}/priv/v1/apps/${tenant.key}`;
    const headers = headersOf(tenant);
    return {
      post: (i: number) => send(`${base}/users/${pick(ids, i)}/events`, { method: 'POST', headers, body: JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } }) }),
      stored: async () => Number((await db.query(`SELECT count(*) AS n FROM events WHERE organization_id = $1`, [tenant.organizationId])).rows[0].n),
    };
  };
  const lifetime = await side('Lifetime', null);
  const period = await side('Period', YEARLY);
  await db.query('ANALYZE points_ledger');
  const cpu = () => server.cpu();
  const run = (s: Awaited<ReturnType<typeof side>>) => (t: number) => measured(cpu, () => load(s.post, CONCURRENCY, t));
  await interleavedNamed({ lifetime: run(lifetime), period: run(period) }, 3, 1); // warm-up
  const before = { lifetime: await lifetime.stored(), period: await period.stored() };
  const r = await interleavedNamed({ lifetime: run(lifetime), period: run(period) }, seconds);
  const tallies: Tally[] = [
    { name: 'V1, basis lifetime (ceiling)', role: 'ceiling', errors: r.lifetime.errors, stored: (await lifetime.stored()) - before.lifetime, expected: r.lifetime.statuses[200] ?? 0, unit: 'events' },
    { name: 'V1, basis period', role: 'workload', errors: r.period.errors, stored: (await period.stored()) - before.period, expected: r.period.statuses[200] ?? 0, unit: 'events' },
  ];
  checkTallies(tallies);
  const value = rps(r.period) / rps(r.lifetime);
  const ok = clean(tallies[1]) && value >= 0.9;
  const header = ['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', ...CPU_COLUMNS];
  return {
    output:
      `${table(header, [summary('V1, tier policy basis period (12 months)', r.period, r.lifetime), summary('V1, basis lifetime (ceiling)', r.lifetime, r.lifetime)])}\n` +
      `${tallyLines(tallies)}\nV1 under a period policy: ${(value * 100).toFixed(1)}% of V1 under lifetime: ${met(ok)} (target ≥ 90%)\n`,
    figures: [
      {
        figure: 'V1 under a period tier policy',
        key: 'tiers.v1_period',
        broken: clean(tallies[1]) ? undefined : 'errors, or fewer events stored than answered',
        value: rps(r.period),
        unit: 'req/s',
        ceiling: 'V1 under lifetime',
        ceilingValue: rps(r.lifetime),
        target: '≥ 90%',
        met: ok,
      },
    ],
  };
}

/**
 * The review sweeper over 1,000,000 due reviews (built with SQL: customers Gold from 500 points two months ago, kept at
 * last month's review, with nothing last month: this month's review takes them to Silver; a month end stands in for
 * the year end). V1 at a fixed rate with a worker running and nothing due; then while one worker reviews at the
 * default TIER_REVIEW_RATE, as long; then a worker without the rate limit reviews the rest, and every customer is
 * checked: Silver, one history row.
 */
async function reviewPart(server: Server, db: pg.Pool): Promise<Part> {
  const visitors = await programTenant(server, 'Visitors', YEARLY);
  await createLiveCampaign(server.url, visitors);
  await addCustomers(db, visitors.organizationId, 'v-', 1, CUSTOMERS);
  const visitorIds = (await db.query(`SELECT id FROM customers WHERE organization_id = $1`, [visitors.organizationId])).rows.map((r) => r.id as string);
  const request = (i: number) => ({
    url: `${server.url}/priv/v1/apps/${visitors.key}/users/${pick(visitorIds, i)}/events`,
    method: 'POST',
    headers: headersOf(visitors),
    body: JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } }),
  });
  const windows = (total: number) => openLoopWindows(request, V1_RATE, WINDOW, total);
  const visits = () => db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1`, [visitors.organizationId]).then((r) => r.rows[0].n as number);
  const idle = startNode('dist/src/worker.js', server.env);
  await windows(WINDOW); // warm-up
  const aloneFrom = await visits();
  const alone = await windows(REVIEW_SECONDS);
  await stopChild(idle);
  const baseline: Tally = { name: 'V1 at a fixed rate, no review due', role: 'baseline', errors: sentIn(alone) - answeredIn(alone), stored: (await visits()) - aloneFrom, expected: answeredIn(alone), unit: 'events' };
  checkTallies([baseline]);

  const yearEnd = await programTenant(server, 'Year end', MONTHLY);
  const [gold, silver] = await Promise.all(
    ['Gold', 'Silver'].map(async (name) => Number((await db.query(`SELECT id FROM tiers WHERE organization_id = $1 AND name = $2`, [yearEnd.organizationId, name])).rows[0].id)),
  );
  const built = performance.now();
  await db.query(
    `INSERT INTO customers (organization_id, external_id, time_zone, division_id, tier_id, tier_review_at, lifetime_points, available_points)
     SELECT $1, 'r-' || g, 'UTC', d.id, $2, date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 month', 500, 500
       FROM generate_series(1, $3) g, divisions d WHERE d.organization_id = $1`,
    [yearEnd.organizationId, gold, DUE_CUSTOMERS],
  );
  await db.query(
    `INSERT INTO points_ledger (organization_id, customer_id, amount, reason, source, occurred_at)
     SELECT $1, id, 500, 'behavior', '{}', date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '2 months' + interval '14 days'
       FROM customers WHERE organization_id = $1`,
    [yearEnd.organizationId],
  );
  await db.query('ANALYZE customers');
  await db.query('ANALYZE points_ledger');
  await db.query('CHECKPOINT');
  execFileSync('sync'); // the kernel writes the build's pages now, not during the windows measured
  const buildSeconds = (performance.now() - built) / 1000;
  const due = async () => Number((await db.query(`SELECT count(*) AS n FROM customers WHERE organization_id = $1 AND tier_review_at <= now()`, [yearEnd.organizationId])).rows[0].n);
  const reviewing = <T>(env: Record<string, string>, work: () => Promise<T>) => sweepRate({ ...server.env, ...env }, due, work);
  const paced = await reviewing({}, () => windows(REVIEW_SECONDS));
  const drained = await reviewing({ TIER_REVIEW_RATE: '1000000' }, async () => {
    while ((await due()) > 0) await sleep(1000);
  });
  const wrong = Number(
    (
      await db.query(
        `SELECT count(*) AS n FROM customers c WHERE c.organization_id = $1
            AND (c.tier_id <> $2 OR (SELECT count(*) FROM tier_history h WHERE h.customer_id = c.id) <> 1)`,
        [yearEnd.organizationId, silver],
      )
    ).rows[0].n,
  );
  const [p99Alone, p99During] = [percentile(latenciesIn(alone), 99), percentile(latenciesIn(paced.result), 99)];
  const metRatio = p99During <= 1.5 * p99Alone;
  return {
    output:
      table(['tier reviews', 'value', 'target', ''], [
        ['due reviews written', `${fmt(DUE_CUSTOMERS - drained.left)} of ${fmt(DUE_CUSTOMERS)} (built in ${buildSeconds.toFixed(1)} s)`, 'all', met(drained.left === 0)],
        ['reviews per second, TIER_REVIEW_RATE default (2,000)', fmt(paced.rate), '', ''],
        ['reviews per second, no rate limit (the rest)', fmt(drained.rate), '', ''],
        [`V1 p99 at ${V1_RATE}/s, a worker with no review due (${REVIEW_SECONDS} s)`, `${p99Alone.toFixed(1)} ms (${latenciesIn(alone).length} requests)`, '', ''],
        [`V1 p99 at ${V1_RATE}/s while it reviews at the default rate (${REVIEW_SECONDS} s)`, `${p99During.toFixed(1)} ms (${latenciesIn(paced.result).length} requests)`, `≤ 1.5× (${(1.5 * p99Alone).toFixed(1)} ms)`, met(metRatio)],
        ['customers not on Silver, or without exactly one history row', String(wrong), '0', met(wrong === 0)],
      ]) +
      `V1 p99 of each ${WINDOW} s window (ms), no review due: ${p99OfEach(alone)}; reviewing: ${p99OfEach(paced.result)}\n` +
      tallyLines([baseline, { name: 'V1 at a fixed rate while it reviews', role: 'workload', errors: sentIn(paced.result) - answeredIn(paced.result), stored: answeredIn(paced.result), expected: sentIn(paced.result), unit: 'answers 2xx' }]),
    figures: [
      { figure: 'tier reviews, default rate', value: paced.rate, unit: 'reviews/s' },
      { figure: 'tier reviews, no rate limit', value: drained.rate, unit: 'reviews/s', target: 'all written, once', met: drained.left === 0 && wrong === 0 },
      { figure: 'V1 p99 while the reviews run', value: p99During, unit: 'ms', ceiling: 'V1 p99 without them', ceilingValue: p99Alone, ratioAs: '×', target: '≤ 1.5×', met: metRatio },
    ],
  };
}
