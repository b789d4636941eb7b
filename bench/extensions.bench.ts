/**
 * Extensions benchmark (issue #29): V1 sync events on an API with both example extensions (examples/coupon-pool,
 * examples/referral) and a custom criteria operator loaded (EXTENSIONS), whose campaign's `visit` behavior names that
 * operator, against V1 on an API without extensions whose campaign names a built-in operator of the same work
 * (`contains`): the same 10 behaviors, 10,000 customers each, 10 connections, interleaved in rounds. The side without
 * extensions is the ceiling; target ≥ 95%. Each side's events stored are checked against its answers.
 * Run: npm run bench:extensions (BENCH_SECONDS per workload, default 10).
 */
import pg from 'pg';
import { BEHAVIORS, createLiveCampaign } from './support/campaign.js';
import { CPU_COLUMNS, interleavedNamed, load, measured, send, summary, table } from './support/load.js';
import { bootstrap, startServer, type BenchServer } from './support/server.js';
import { figuresTable, type Figure } from './support/summary.js';
import { checkTallies, clean, runBench, tallyLines, type Tally } from './support/verdict.js';

const CONCURRENCY = 10;
const CUSTOMERS = 10_000;
const EXTENSIONS = [
  'dist/examples/coupon-pool/coupon-pool.module.js#CouponPoolModule',
  'dist/examples/referral/referral.module.js#ReferralModule',
  'dist/bench/support/bench-extensions.js#BenchExtensionsModule',
].join(',');

/** BEHAVIORS with the first one's goal restricted by `op` on the store id (every store id starts with "s"). */
const behaviorsWith = (op: string) =>
  BEHAVIORS.map((b, i) => (i === 0 ? { ...b, goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 1, criteria: [{ field: 'store_id', op, value: 's' }] } }] }] } : b));

interface Side {
  server: BenchServer;
  db: pg.Pool;
  post(i: number): Promise<number>;
  stored(): Promise<number>;
}

async function side(port: number, env: NodeJS.ProcessEnv, op: string): Promise<Side> {
  const server = await startServer(port, env);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  const tenant = await bootstrap(server.url);
  await createLiveCampaign(server.url, tenant, behaviorsWith(op));
  const ids: string[] = (
    await db.query(
      `INSERT INTO customers (organization_id, external_id, time_zone, division_id)
       SELECT $1, 'bench-' || g, 'America/New_York', d.id FROM generate_series(1, $2) g, divisions d WHERE d.organization_id = $1 RETURNING id`,
      [tenant.organizationId, CUSTOMERS],
    )
  ).rows.map((r) => r.id);
  const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
  const base = `${server.url}/priv/v1/apps/${tenant.key}`;
  return {
    server,
    db,
    post: (i) => send(`${base}/users/${ids[(i * 7919) % ids.length]}/events`, { method: 'POST', headers, body: JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } }) }),
    stored: async () => Number((await db.query(`SELECT count(*) AS n FROM events`)).rows[0].n),
  };
}

await runBench(async () => {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const plain = await side(3910, {}, 'contains');
  let extended: Side | undefined;
  try {
    extended = await side(3911, { EXTENSIONS }, 'starts_with');
    const run = (s: Side) => (t: number) => measured(() => s.server.cpu(), () => load(s.post, CONCURRENCY, t));
    await interleavedNamed({ plain: run(plain), extended: run(extended) }, 3, 1); // warm-up
    const before = { plain: await plain.stored(), extended: await extended.stored() };
    const r = await interleavedNamed({ plain: run(plain), extended: run(extended) }, seconds);
    const tallies: Tally[] = [
      { name: 'V1 without extensions (ceiling)', role: 'ceiling', errors: r.plain.errors, stored: (await plain.stored()) - before.plain, expected: r.plain.statuses[200] ?? 0, unit: 'events' },
      { name: 'V1 with extensions', role: 'workload', errors: r.extended.errors, stored: (await extended.stored()) - before.extended, expected: r.extended.statuses[200] ?? 0, unit: 'events' },
    ];
    checkTallies(tallies);
    const rps = (x: typeof r.plain) => x.requests / x.seconds;
    const value = rps(r.extended) / rps(r.plain);
    const figures: Figure[] = [
      {
        figure: 'V1 with both example extensions and a custom operator',
        key: 'extensions.v1',
        broken: clean(tallies[1]) ? undefined : 'errors, or fewer events stored than answered',
        value: rps(r.extended),
        unit: 'req/s',
        ceiling: 'V1 without extensions (built-in operator)',
        ceilingValue: rps(r.plain),
        target: '≥ 95%',
        met: clean(tallies[1]) && value >= 0.95,
      },
    ];
    const header = ['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', ...CPU_COLUMNS];
    const rows = [summary('V1, EXTENSIONS: coupon-pool, referral, starts_with', r.extended, r.plain), summary('V1 without extensions (ceiling)', r.plain, r.plain)];
    return `${table(header, rows)}\n${tallyLines(tallies)}\n${figuresTable(figures)}\nV1 with extensions: ${(value * 100).toFixed(1)}% of V1 without: ${value >= 0.95 ? 'met' : 'NOT met'} (target ≥ 95%)\n`;
  } finally {
    await Promise.all([plain.db.end(), extended?.db.end()]);
    await Promise.all([plain.server.stop(), extended?.server.stop()]);
  }
});
