/**
 * Extensions benchmark (issues #29, #45): V1 sync events on an API with the example extensions (examples/coupon-pool,
 * examples/referral, examples/store-radius) and the bench's own loaded (EXTENSIONS), whose campaign's `visit` behavior
 * has two extension criteria (`store_id starts_with "s"`, `location within_km` an area) and an extension reward
 * (`bench_points`), against V1 on an API without extensions whose campaign does the same with built-ins (`contains`,
 * `exists`, `points`): the same 10 behaviors, 10,000 customers each, 10 connections, interleaved in rounds. The side
 * without extensions is the ceiling; target ≥ 95%. Each side's events stored are checked against its answers.
 * Informative, on the extended API: `visit_flaky`, listened to by a campaign whose operator throws on one event in ten
 * (the bulkhead skips it and runs the evaluation again) and by a healthy one.
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
  'dist/examples/store-radius/store-radius.module.js#StoreRadiusModule',
  'dist/bench/support/bench-extensions.js#BenchExtensionsModule',
].join(',');

/** Paris, and every event's place (within 50 km of it). */
const AREA = { lat: 48.8566, lon: 2.3522, km: 50 };
const PLACE = '48.8606,2.3376';

/** What the first behavior's goal and outcome are built of, on each side: the same work, by built-ins or by extensions. */
interface Rules {
  criteria: object[];
  outcome: object;
}
const PLAIN: Rules = { criteria: [{ field: 'store_id', op: 'contains', value: 's' }, { field: 'location', op: 'exists', value: true }], outcome: { points: 1 } };
const EXTENDED: Rules = { criteria: [{ field: 'store_id', op: 'starts_with', value: 's' }, { field: 'location', op: 'within_km', value: AREA }], outcome: { bench_points: { points: 1 } } };

const behaviorsWith = ({ criteria, outcome }: Rules) =>
  BEHAVIORS.map((b, i) => (i === 0 ? { ...b, goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 1, criteria } }] }], outcome_config: [outcome] } : b));

/** Two campaigns listening to visit_flaky: one whose goal's operator throws on one event in ten, one without. */
const FLAKY = [{ name: 'Flaky visit', points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit_flaky', event_count: 1, criteria: [{ field: 'n', op: 'bench_flaky', value: 0 }] } }] }] }];
const HEALTHY = [{ name: 'Any flaky visit', points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit_flaky', event_count: 1 } }] }] }];

interface Side {
  server: BenchServer;
  db: pg.Pool;
  post(i: number, event?: string): Promise<number>;
  stored(): Promise<number>;
}

async function side(port: number, env: NodeJS.ProcessEnv, rules: Rules, flaky = false): Promise<Side> {
  const server = await startServer(port, env);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  const tenant = await bootstrap(server.url);
  await createLiveCampaign(server.url, tenant, behaviorsWith(rules));
  if (flaky) {
    await createLiveCampaign(server.url, tenant, FLAKY, 'Flaky');
    await createLiveCampaign(server.url, tenant, HEALTHY, 'Healthy');
  }
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
    post: (i, event = 'visit') =>
      send(`${base}/users/${ids[(i * 7919) % ids.length]}/events`, { method: 'POST', headers, body: JSON.stringify({ events: { [event]: { store_id: `s${i % 13}`, location: PLACE, n: i } } }) }),
    stored: async () => Number((await db.query(`SELECT count(*) AS n FROM events`)).rows[0].n),
  };
}

await runBench(async () => {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const plain = await side(3910, {}, PLAIN);
  let extended: Side | undefined;
  try {
    const ext = (extended = await side(3911, { EXTENSIONS }, EXTENDED, true));
    const run = (s: Side, event?: string) => (t: number) => measured(() => s.server.cpu(), () => load((i) => s.post(i, event), CONCURRENCY, t));
    await interleavedNamed({ plain: run(plain), extended: run(ext) }, 3, 1); // warm-up
    const before = { plain: await plain.stored(), extended: await ext.stored() };
    const r = await interleavedNamed({ plain: run(plain), extended: run(ext) }, seconds);
    const afterMain = await ext.stored();
    // Informative: one event in ten fails the flaky campaign's operator; the answer is 200 all the same.
    const flaky = await interleavedNamed({ flaky: run(ext, 'visit_flaky') }, seconds, 1);
    const tallies: Tally[] = [
      { name: 'V1 without extensions (ceiling)', role: 'ceiling', errors: r.plain.errors, stored: (await plain.stored()) - before.plain, expected: r.plain.statuses[200] ?? 0, unit: 'events' },
      { name: 'V1 with extensions', role: 'workload', errors: r.extended.errors, stored: afterMain - before.extended, expected: r.extended.statuses[200] ?? 0, unit: 'events' },
      { name: 'V1 visit_flaky, one in ten failing a campaign', role: 'workload', errors: flaky.flaky.errors, stored: (await ext.stored()) - afterMain, expected: flaky.flaky.statuses[200] ?? 0, unit: 'events' },
    ];
    checkTallies(tallies);
    const rps = (x: typeof r.plain) => x.requests / x.seconds;
    const value = rps(r.extended) / rps(r.plain);
    const figures: Figure[] = [
      {
        figure: 'V1 with the example extensions, two extension criteria and an extension reward',
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
    const rows = [
      summary('V1, EXTENSIONS: coupon-pool, referral, store-radius, bench', r.extended, r.plain),
      summary('V1 without extensions (ceiling)', r.plain, r.plain),
      summary('V1 visit_flaky (informative: 1 in 10 fails a campaign)', flaky.flaky, r.plain),
    ];
    return `${table(header, rows)}\n${tallyLines(tallies)}\n${figuresTable(figures)}\nV1 with extensions: ${(value * 100).toFixed(1)}% of V1 without: ${value >= 0.95 ? 'met' : 'NOT met'} (target ≥ 95%)\n`;
  } finally {
    await Promise.all([plain.db.end(), extended?.db.end()]);
    await Promise.all([plain.server.stop(), extended?.server.stop()]);
  }
});
