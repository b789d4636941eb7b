/**
 * V1 events benchmark: a realistic campaign (10 live behaviors, 5 listening to the event sent), 10,000 customers,
 * 10 concurrent connections. Prints, side by side in one run: V1 sync events, the retrieval route, and a raw `pg`
 * script doing the same transaction shape (lock customer, upsert progress, insert event, update points) as the
 * ceiling, interleaved in rounds so that the machine's slow spells hit them alike; then the same V1 load on a single
 * customer (lock contention) with its totals checked. Each row adds the CPU a request cost the API, PostgreSQL and
 * this process (the load generator, and the raw script itself in the raw row).
 * Run: npm run bench:v1 (BENCH_SECONDS per workload, default 10; BENCH_ONLY=v1 for V1 and the ceiling alone).
 */
import pg from 'pg';
import { CPU_COLUMNS, interleaved, load, LoadResult, measured, send, summary, table } from './support/load.js';
import { createLiveCampaign } from './support/campaign.js';
import { rawTransaction } from './support/raw-pg.js';
import { bootstrap, startServer } from './support/server.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 10;
const CUSTOMERS = 10_000;

async function main(): Promise<void> {
  const server = await startServer(3900);
  try {
    const tenant = await bootstrap(server.url);
    const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
    const base = `${server.url}/priv/v1/apps/${tenant.key}`;
    await createLiveCampaign(server.url, tenant);

    const db = new pg.Pool({ connectionString: server.databaseUrl, max: CONCURRENCY });
    const customers = async (prefix: string): Promise<string[]> =>
      (
        await db.query(
          `INSERT INTO customers (organization_id, external_id, time_zone, division_id)
           SELECT $1, $2 || g, 'America/New_York', d.id FROM generate_series(1, $3) g, divisions d WHERE d.organization_id = $1
           RETURNING id`,
          [tenant.organizationId, prefix, CUSTOMERS],
        )
      ).rows.map((r) => r.id);
    // The raw phase writes progress the engine never wrote: its customers are its own.
    const [ids, rawIds] = [await customers('bench-'), await customers('raw-')];
    const pick = (list: string[], i: number) => list[(i * 7919) % list.length];
    const event = (i: number) => JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } });
    const post = (id: string, i: number) => send(`${base}/users/${id}/events`, { method: 'POST', headers, body: event(i) });
    const cpu = () => server.cpu();
    const v1Load = (s: number) => measured(cpu, () => load((i) => post(pick(ids, i), i), CONCURRENCY, s));
    const rawLoad = (s: number) => measured(cpu, () => load((i) => rawTransaction(db, tenant.organizationId, tenant.key, pick(rawIds, i)), CONCURRENCY, s));
    const retrievalLoad = (s: number) => measured(cpu, () => load((i) => send(`${base}/users/${pick(ids, i)}/events`, { headers }), CONCURRENCY, s));

    await interleaved([v1Load, rawLoad], 2, 1); // warm-up: compiled rules, connection pools, JIT
    if (process.env.BENCH_ONLY === 'v1') {
      const [v1, raw] = await interleaved([v1Load, rawLoad], SECONDS);
      process.stdout.write(table(['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', ...CPU_COLUMNS], [summary('V1 sync event', v1, raw), summary('raw pg transaction (ceiling)', raw, raw)]));
      await db.end();
      return;
    }
    const [v1, retrieval, raw] = await interleaved([v1Load, retrievalLoad, rawLoad], SECONDS);
    // A customer of its own, so the contention totals are this phase's alone.
    const one = (await db.query(`INSERT INTO customers (organization_id, external_id, time_zone, division_id) SELECT $1, 'contended', 'America/New_York', id FROM divisions WHERE organization_id = $1 RETURNING id`, [tenant.organizationId])).rows[0].id as string;
    const before = (await db.query(`SELECT count(*)::int AS n FROM events WHERE customer_id = $1`, [one])).rows[0].n as number;
    const contended = await measured(cpu, () => load((i) => post(one, i), CONCURRENCY, SECONDS));
    const check = (
      await db.query(
        `SELECT c.available_points, c.lifetime_points,
                (SELECT coalesce(sum(amount), 0) FROM points_ledger WHERE customer_id = c.id) AS ledger,
                (SELECT count(*) FROM events WHERE customer_id = c.id) AS events
           FROM customers c WHERE c.id = $1`,
        [one],
      )
    ).rows[0];
    await db.end();

    const rows: string[][] = [
      summary('V1 sync event (10 behaviors, 5 listening)', v1, raw),
      summary('retrieval GET users/:id/events', retrieval, raw),
      summary('raw pg transaction (ceiling)', raw, raw),
      summary('V1 sync, every request one customer', contended, raw),
    ];
    process.stdout.write(table(['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', ...CPU_COLUMNS], rows));
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
