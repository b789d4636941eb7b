/**
 * V1 events benchmark: a realistic campaign (10 live behaviors, 5 listening to the event sent), 10,000 customers,
 * 10 concurrent connections. Prints, side by side in one run: V1 sync events, the retrieval route, and a raw `pg`
 * script doing the same transaction shape (lock customer, upsert progress, insert event, update points) as the
 * ceiling; then the same V1 load on a single customer (lock contention) with its totals checked.
 * Run: npm run bench:v1 (BENCH_SECONDS per phase, default 10).
 */
import pg from 'pg';
import { load, LoadResult, send, summary, table } from './support/load.js';
import { bootstrap, startServer } from './support/server.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 10;
const CUSTOMERS = 10_000;
/** A progress state of the size the service writes; the raw phase runs last, so it never feeds the API. */
const RAW_STATE = JSON.stringify({ achieved: 1, completions: [], window: null, goals: { '1': { count: 0, completed: false, pivots: [], lastDay: null, countedAt: [] } } });

const goal = (name: string, extra: Record<string, unknown> = {}) => ({ goals: [{ achievement: { name, event_count: 1, ...extra } }] });
const BEHAVIORS = [
  { name: 'Visit', points: 1, data: {}, goal_groups: [goal('visit')] },
  { name: 'Five visits', points: 10, data: { max_times_achievable: 100 }, goal_groups: [goal('visit', { event_count: 5 })] },
  { name: 'Three stores a week', points: 25, data: { period: 604800, max_times_achievable_per_period: 1 }, goal_groups: [goal('visit', { type: 'unique', unique_attribute: 'store_id', event_count: 3 })] },
  { name: 'Visit streak', points: 15, data: {}, goal_groups: [goal('visit', { event_count: 3, data: { consecutive: true } })] },
  { name: 'Hourly visit', points: 2, data: {}, goal_groups: [goal('visit', { data: { min_time_between_events: 3600 } })] },
  { name: 'Purchase', points: 5, data: {}, goal_groups: [goal('purchase')] },
  { name: 'Share', points: 3, data: {}, goal_groups: [goal('share')] },
  { name: 'Review', points: 4, data: {}, goal_groups: [goal('review')] },
  { name: 'Login', points: 1, data: {}, goal_groups: [goal('login')] },
  { name: 'Referral', points: 50, data: {}, goal_groups: [goal('referral')] },
];

async function main(): Promise<void> {
  const server = await startServer(3900);
  try {
    const tenant = await bootstrap(server.url);
    const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
    const base = `${server.url}/priv/v1/apps/${tenant.key}`;
    const now = Date.now();
    const campaign = (await (
      await fetch(`${base}/management/campaigns`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ campaign: { name: 'Everyday', status: 'live', starts_at: new Date(now - 86_400_000).toISOString(), ends_at: new Date(now + 365 * 86_400_000).toISOString() } }),
      })
    ).json()) as { campaign: { id: number } };
    const batch = await fetch(`${base}/management/campaigns/${campaign.campaign.id}/behaviors/_batch`, { method: 'POST', headers, body: JSON.stringify({ behaviors: BEHAVIORS }) });
    if (batch.status !== 201) throw new Error(`behaviors not created: ${await batch.text()}`);

    const db = new pg.Pool({ connectionString: server.databaseUrl, max: CONCURRENCY });
    const ids: string[] = (
      await db.query(
        `INSERT INTO customers (organization_id, external_id, time_zone, division_id)
         SELECT $1, 'bench-' || g, 'America/New_York', d.id FROM generate_series(1, $2) g, divisions d WHERE d.organization_id = $1
         RETURNING id`,
        [tenant.organizationId, CUSTOMERS],
      )
    ).rows.map((r) => r.id);
    const pick = (i: number) => ids[(i * 7919) % ids.length];
    const event = (i: number) => JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } });
    const post = (id: string, i: number) => send(`${base}/users/${id}/events`, { method: 'POST', headers, body: event(i) });

    await load((i) => post(pick(i), i), CONCURRENCY, 2); // warm-up: compiled rules, connection pools, JIT
    const v1 = await load((i) => post(pick(i), i), CONCURRENCY, SECONDS);
    if (process.env.BENCH_ONLY === 'v1') {
      process.stdout.write(table(['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling'], [summary('V1 sync event', v1)]));
      await db.end();
      return;
    }
    const retrieval = await load(
      (i) => send(`${base}/users/${pick(i)}/events`, { headers }),
      CONCURRENCY,
      SECONDS,
    );
    // A customer of its own, so the contention totals are this phase's alone.
    const one = (await db.query(`INSERT INTO customers (organization_id, external_id, time_zone, division_id) SELECT $1, 'contended', 'America/New_York', id FROM divisions WHERE organization_id = $1 RETURNING id`, [tenant.organizationId])).rows[0].id as string;
    const before = (await db.query(`SELECT count(*)::int AS n FROM events WHERE customer_id = $1`, [one])).rows[0].n as number;
    const contended = await load((i) => post(one, i), CONCURRENCY, SECONDS);
    const check = (
      await db.query(
        `SELECT c.available_points, c.lifetime_points,
                (SELECT coalesce(sum(amount), 0) FROM points_ledger WHERE customer_id = c.id) AS ledger,
                (SELECT count(*) FROM events WHERE customer_id = c.id) AS events
           FROM customers c WHERE c.id = $1`,
        [one],
      )
    ).rows[0];
    const raw = await load(
      async (i) => {
        const client = await db.connect();
        try {
          const id = pick(i);
          await client.query('BEGIN');
          await client.query('SELECT id, available_points FROM customers WHERE id = $1 FOR UPDATE', [id]);
          await client.query(
            `INSERT INTO customer_progress (customer_id, behavior_id, state, achieved) SELECT $1, b.id, $2, 1 FROM behaviors b WHERE b.name = 'Visit'
             ON CONFLICT (customer_id, behavior_id) DO UPDATE SET state = EXCLUDED.state, achieved = customer_progress.achieved + 1`,
            [id, RAW_STATE],
          );
          await client.query(
            `INSERT INTO events (organization_id, api_key_id, customer_id, source, name, occurred_at, status) SELECT $1, k.id, $2, 'v1', 'visit', now(), 'processed' FROM api_keys k WHERE k.key = $3`,
            [tenant.organizationId, id, tenant.key],
          );
          await client.query('UPDATE customers SET available_points = available_points + 1, lifetime_points = lifetime_points + 1 WHERE id = $1', [id]);
          await client.query('COMMIT');
          return 200;
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        } finally {
          client.release();
        }
      },
      CONCURRENCY,
      SECONDS,
    );
    await db.end();

    const rows: string[][] = [
      summary('V1 sync event (10 behaviors, 5 listening)', v1, raw),
      summary('retrieval GET users/:id/events', retrieval, raw),
      summary('raw pg transaction (ceiling)', raw, raw),
      summary('V1 sync, every request one customer', contended, raw),
    ];
    process.stdout.write(table(['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling'], rows));
    const statuses = (r: LoadResult) => JSON.stringify(r.statuses);
    process.stdout.write(
      `contention: statuses ${statuses(contended)}; events stored ${Number(check.events) - before} of ${contended.requests} sent; ` +
        `ledger sum ${check.ledger} = lifetime ${check.lifetime_points} = available ${check.available_points}: ` +
        `${Number(check.ledger) === Number(check.lifetime_points) && Number(check.lifetime_points) === Number(check.available_points) && Number(check.events) - before === contended.requests ? 'exact' : 'MISMATCH'}\n`,
    );
    process.stdout.write(`${CUSTOMERS} customers, ${CONCURRENCY} connections, ${SECONDS}s per phase, node ${process.version}\n`);
  } finally {
    await server.stop();
  }
}

await main();
