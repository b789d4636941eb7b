/**
 * The tier policy preview at scale (issue #30, contract §17): POST .../management/tier_policy/preview on an organization
 * of 1,000,000 customers and 20,000,000 ledger credits, against the target of 20 s.
 * The database is its own (`ce_bench_tiers_preview`): migrated, its organization (Europe/Paris) and four tiers created
 * through the API, then its rows generated with INSERT ... SELECT generate_series: the credits in time order, as the
 * event path appends them (each customer's credits spread over the table, the preview's hard case), their
 * `occurred_at` over the last 3 years, each to a customer drawn at random (about 20 each), of amounts by customer
 * (ten activity levels); a tier outcome for one customer in 500; each customer's points and tier as lifetime stores them.
 * The preview is then asked of the API (one process) BENCH_TIERS_RUNS times for a 12-month `one_level` policy, the
 * figure the target is checked on, and once each for a quarterly and a monthly `to_qualified` policy and a monthly
 * `one_level` one (the shorter the period, the more reviews each customer's standing walks through, and the fewer
 * customers share one computation).
 * Run: npm run bench:tiers-preview
 * Env: BENCH_TIERS_CUSTOMERS (1,000,000), BENCH_TIERS_CREDITS (20,000,000), BENCH_TIERS_RUNS (3), BENCH_KEEP_TIERS=1 (keep
 * the database, reused by the next run when it holds the same sizes).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { onInterrupt } from './support/cleanup.js';
import { ADMIN_TOKEN, databaseComment, databaseExists, databaseUrl, dropDatabase, migrate, setDatabaseComment, startApi, type HistoryApi } from './support/history-server.js';
import { table } from './support/load.js';
import { int } from './support/env.js';

const CUSTOMERS = int('BENCH_TIERS_CUSTOMERS', 1_000_000);
const CREDITS = int('BENCH_TIERS_CREDITS', 20_000_000);
const RUNS = int('BENCH_TIERS_RUNS', 3);
const KEEP = process.env.BENCH_KEEP_TIERS === '1';
const TARGET_S = 20;
const NAME = 'ce_bench_tiers_preview';
const PORT = 3951;
const TIME_ZONE = 'Europe/Paris';
const YEARS = 3;
const TIERS = [
  { name: 'Bronze', min_points: 250 },
  { name: 'Silver', min_points: 750 },
  { name: 'Gold', min_points: 1500, retain_points: 1200 },
  { name: 'Platinum', min_points: 3000, retain_points: 2500 },
];
const POLICIES = [
  { label: '12 months, one_level', policy: { basis: 'period', period_months: 12, downgrade: 'one_level' }, runs: RUNS, target: true },
  { label: '3 months, to_qualified, 30 grace days', policy: { basis: 'period', period_months: 3, downgrade: 'to_qualified', grace_days: 30 }, runs: 1, target: false },
  { label: '1 month, to_qualified', policy: { basis: 'period', period_months: 1, downgrade: 'to_qualified' }, runs: 1, target: false },
  { label: '1 month, one_level', policy: { basis: 'period', period_months: 1, downgrade: 'one_level' }, runs: 1, target: false },
];

const began = performance.now();
const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
const log = (line: string) => process.stderr.write(`tiers-preview bench [${elapsed()}]: ${line}\n`);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(', ');

interface Built {
  organizationId: number;
  key: string;
  secret: string;
  seconds: number;
  steps: Array<{ step: string; seconds: number }>;
}

let api: HistoryApi | null = null;
let cleaning: Promise<void> | undefined;
const cleanup = () =>
  (cleaning ??= (async () => {
    await api?.stop().catch(() => undefined);
    if (!KEEP) await dropDatabase(NAME).catch(() => undefined);
  })());
const forget = onInterrupt(cleanup);

/** The organization, its key and tiers, through the API. */
async function createTenant(url: string): Promise<{ organizationId: number; key: string; secret: string }> {
  const res = await fetch(`${url}/admin/v1/organizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ organization: { name: 'Tiers preview', time_zone: TIME_ZONE }, application: { name: 'Bench' } }),
  });
  if (res.status !== 201) throw new Error(`organization not created: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { api_key: string; api_secret: string; organization: { id: number } };
  const tenant = { organizationId: body.organization.id, key: body.api_key, secret: body.api_secret };
  for (const tier of TIERS) {
    const created = await fetch(`${url}/priv/v1/apps/${tenant.key}/management/tiers`, { method: 'POST', headers: headers(tenant), body: JSON.stringify({ tier }) });
    if (created.status !== 201) throw new Error(`tier not created: ${created.status} ${await created.text()}`);
  }
  return tenant;
}

const headers = (t: { key: string; secret: string }) => ({
  authorization: `Basic ${Buffer.from(`${t.key}:${t.secret}`).toString('base64')}`,
  'content-type': 'application/json',
});

/** The bulk rows, with SQL; the ledger's customer and event indexes built after them (one sort each). */
async function generate(db: pg.Client, organizationId: number, nowMs: number): Promise<Array<{ step: string; seconds: number }>> {
  const steps: Array<{ step: string; seconds: number }> = [];
  const step = async (name: string, sql: string, values: unknown[] = []) => {
    const started = performance.now();
    await db.query(sql, values);
    steps.push({ step: name, seconds: (performance.now() - started) / 1000 });
    log(`${name}: ${steps.at(-1)!.seconds.toFixed(1)} s`);
  };
  const [{ id: divisionId }] = (await db.query(`SELECT id FROM divisions WHERE organization_id = $1 AND parent_id IS NULL`, [organizationId])).rows;
  const indexes = (
    await db.query(`SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = 'points_ledger'::regclass AND NOT indisprimary`)
  ).rows as Array<{ name: string; definition: string }>;
  // Foreign keys are not checked while generating (the rows are consistent by construction).
  await db.query(`SET session_replication_role = replica`);
  for (const index of indexes) await db.query(`DROP INDEX ${index.name}`);
  const from = new Date(nowMs - YEARS * 365 * 86_400_000).toISOString();
  const span = `${YEARS * 365} days`;
  await step('customer ids', `CREATE UNLOGGED TABLE bench_ids AS SELECT c, gen_random_uuid() AS id FROM generate_series(0, $1::int - 1) c`, [CUSTOMERS]);
  await db.query(`ALTER TABLE bench_ids ADD PRIMARY KEY (c)`);
  await step(
    `${fmt(CREDITS)} ledger credits`,
    `INSERT INTO points_ledger (id, organization_id, customer_id, amount, reason, source, created_at, occurred_at)
     SELECT g.i + 1, $1, b.id, (1 + abs(hashint8(g.i # 7777777)::bigint) % (20 + (b.c % 10) * 40))::int, 'behavior', '{}'::jsonb, t.at, t.at
       FROM generate_series(0::bigint, $2::bigint - 1) g(i)
       CROSS JOIN LATERAL (SELECT $3::timestamptz + (g.i::float8 / $2::bigint) * $4::interval AS at) t
       JOIN bench_ids b ON b.c = abs(hashint8(g.i)::bigint) % $5::int`,
    [organizationId, CREDITS, from, span, CUSTOMERS],
  );
  await step(
    'tier outcomes (one customer in 500)',
    `INSERT INTO customer_tier_outcomes (customer_id, tier_id, event_id, occurred_at)
     SELECT b.id, (SELECT id FROM tiers WHERE organization_id = $1 AND name = 'Gold'), 0, $2::timestamptz + (abs(hashint8(b.c)::bigint) % 1000) / 1000.0 * $3::interval
       FROM bench_ids b WHERE b.c % 500 = 0`,
    [organizationId, from, span],
  );
  await step(
    `${fmt(CUSTOMERS)} customers`,
    `INSERT INTO customers (id, organization_id, external_id, time_zone, division_id, available_points, lifetime_points, tier_id)
     SELECT b.id, $1, 'cust-' || b.c, $2, $3, coalesce(s.points, 0), coalesce(s.points, 0),
            (SELECT t.id FROM tiers t
              WHERE t.organization_id = $1 AND t.deleted_at IS NULL
                AND (t.min_points <= coalesce(s.points, 0) OR t.id IN (SELECT o.tier_id FROM customer_tier_outcomes o WHERE o.customer_id = b.id))
              ORDER BY t.min_points DESC LIMIT 1)
       FROM bench_ids b
       LEFT JOIN (SELECT customer_id, sum(amount) AS points FROM points_ledger GROUP BY customer_id) s ON s.customer_id = b.id`,
    [organizationId, TIME_ZONE, divisionId],
  );
  for (const index of indexes) await step(`index ${index.name}`, index.definition);
  await db.query(`SET session_replication_role = origin`);
  await db.query(`DROP TABLE bench_ids`);
  await step('sequence, VACUUM ANALYZE, CHECKPOINT', `SELECT setval(pg_get_serial_sequence('points_ledger', 'id'), $1)`, [CREDITS]);
  for (const t of ['points_ledger', 'customers', 'customer_tier_outcomes']) await db.query(`VACUUM ANALYZE ${t}`);
  await db.query('CHECKPOINT');
  return steps;
}

async function build(): Promise<Built> {
  const comment = (await databaseExists(NAME)) ? await databaseComment(NAME) : null;
  try {
    const kept = JSON.parse(comment ?? 'null') as (Built & { customers: number; credits: number }) | null;
    if (KEEP && kept && kept.customers === CUSTOMERS && kept.credits === CREDITS) {
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
  const tenant = await createTenant(api.url);
  const db = new pg.Client({ connectionString: databaseUrl(NAME) });
  await db.connect();
  try {
    const steps = await generate(db, tenant.organizationId, Date.now());
    const built = { ...tenant, seconds: (performance.now() - started) / 1000, steps };
    if (KEEP) await setDatabaseComment(NAME, JSON.stringify({ ...built, customers: CUSTOMERS, credits: CREDITS }));
    return built;
  } finally {
    await db.end();
  }
}

async function sizes(): Promise<{ customers: number; credits: number; outcomes: number; ledgerBytes: number; perCustomer: number[] }> {
  const db = new pg.Client({ connectionString: databaseUrl(NAME) });
  await db.connect();
  try {
    const [row] = (
      await db.query(
        `SELECT (SELECT count(*) FROM customers)::bigint AS customers, (SELECT count(*) FROM points_ledger)::bigint AS credits,
                (SELECT count(*) FROM customer_tier_outcomes)::bigint AS outcomes, pg_total_relation_size('points_ledger')::bigint AS ledger_bytes`,
      )
    ).rows;
    const spread = (
      await db.query(`SELECT percentile_disc(ARRAY[0.01, 0.5, 0.99]) WITHIN GROUP (ORDER BY n) AS p FROM (SELECT count(*) AS n FROM points_ledger GROUP BY customer_id) x`)
    ).rows[0].p as string[];
    return { customers: Number(row.customers), credits: Number(row.credits), outcomes: Number(row.outcomes), ledgerBytes: Number(row.ledger_bytes), perCustomer: spread.map(Number) };
  } finally {
    await db.end();
  }
}

async function preview(url: string, tenant: { key: string; secret: string }, policy: object): Promise<{ seconds: number; body: Record<string, unknown> }> {
  const started = performance.now();
  const res = await fetch(`${url}/priv/v1/apps/${tenant.key}/management/tier_policy/preview`, { method: 'POST', headers: headers(tenant), body: JSON.stringify({ tier_policy: policy }) });
  const seconds = (performance.now() - started) / 1000;
  if (res.status !== 200) throw new Error(`preview answered ${res.status}: ${await res.text()}`);
  return { seconds, body: (await res.json()) as Record<string, unknown> };
}

try {
  log(`load average ${loadAverage()}; ${os.cpus().length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GB RAM, node ${process.version}`);
  const built = await build();
  const size = await sizes();
  if (size.customers !== CUSTOMERS || size.credits !== CREDITS) throw new Error(`the database holds ${size.customers} customers and ${size.credits} credits`);
  log(`${fmt(size.customers)} customers, ${fmt(size.credits)} credits (${size.perCustomer.join(' / ')} per customer at p1 / p50 / p99), ${fmt(size.outcomes)} tier outcomes; ledger ${(size.ledgerBytes / 1024 ** 3).toFixed(2)} GB`);
  const rows: string[][] = [];
  const answers: string[] = [];
  let targetMet = true;
  for (const p of POLICIES) {
    const seconds: number[] = [];
    for (let run = 0; run < p.runs; run += 1) {
      log(`preview, ${p.label}, run ${run + 1} of ${p.runs} (load average ${loadAverage()})`);
      try {
        const { seconds: s, body } = await preview(api!.url, built, p.policy);
        seconds.push(s);
        if (run === 0) answers.push(`${p.label}: ${JSON.stringify({ customers: body.customers, tiers: body.tiers, moves: body.moves })}`);
        log(`${s.toFixed(1)} s`);
      } catch (error) {
        // The target's figure must be measured; another policy's failure (a timeout) is reported with the rest.
        if (p.target) throw error;
        answers.push(`${p.label}: FAILED ${error instanceof Error ? error.message : String(error)}`);
        seconds.push(Infinity);
      }
    }
    const worst = Math.max(...seconds);
    const met = worst <= TARGET_S;
    if (p.target) targetMet = met;
    rows.push([p.label, seconds.map((s) => (Number.isFinite(s) ? s.toFixed(1) : 'failed')).join(', '), Number.isFinite(worst) ? `${(CUSTOMERS / worst / 1000).toFixed(0)}k` : '-', p.target ? `≤ ${TARGET_S} s` : `(≤ ${TARGET_S} s)`, met ? 'met' : 'NOT met']);
  }
  const out: string[] = [];
  out.push(`Tier policy preview: ${fmt(CUSTOMERS)} customers, ${fmt(CREDITS)} ledger credits over ${YEARS} years (in time order), ${TIME_ZONE}; ${os.cpus().length} cores, node ${process.version}\n`);
  out.push(`database ${NAME}: built in ${built.seconds.toFixed(0)} s (${built.steps.map((s) => `${s.step} ${s.seconds.toFixed(1)} s`).join('; ')})\n\n`);
  out.push(table(['policy previewed', 'seconds per run', 'customers/s (slowest)', 'target', ''], rows));
  out.push(`\n${answers.join('\n')}\n`);
  out.push(`\nload average at the end ${loadAverage()}; target (12 months, slowest run): ${targetMet ? 'met' : 'NOT met'}; total ${elapsed()}\n`);
  process.stdout.write(out.join(''));
} catch (error) {
  process.exitCode = 1;
  process.stderr.write(`tiers-preview bench FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await cleanup();
  forget();
  log(`done in ${elapsed()}`);
}
