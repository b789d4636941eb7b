/**
 * The V1 benchmark's measurements (see v1.bench.ts), on a fresh database and API process of their own: V1 sync
 * events, the retrieval route, the framework floor (a Nest route that does nothing) and the raw `pg` ceiling P
 * interleaved in rounds, then V1 on a single customer.
 */
import pg from 'pg';
import { createLiveCampaign } from './campaign.js';
import { CPU_COLUMNS, interleavedNamed, load, LoadResult, measured, percentile, send, summary, table } from './load.js';
import { rawTransaction } from './raw-pg.js';
import { bootstrap, startServer } from './server.js';
import type { Figure } from './summary.js';

const CONCURRENCY = 10;
const CUSTOMERS = 10_000;

export interface V1Options {
  /** Per workload. */
  seconds: number;
  /** `v1`: V1 and the ceiling alone. */
  only?: string;
  port?: number;
}

/** Answers the text v1.bench.ts prints and the figures of the summary table. */
export async function runV1({ seconds, only, port = 3900 }: V1Options): Promise<{ output: string; figures: Figure[] }> {
  const server = await startServer(port);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: CONCURRENCY });
  try {
    const tenant = await bootstrap(server.url);
    const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
    const base = `${server.url}/priv/v1/apps/${tenant.key}`;
    await createLiveCampaign(server.url, tenant);

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
    // The framework floor: GET /health/live answers {"status":"ok"} from memory (no PostgreSQL, no Redis), through
    // the app's global middleware as every route is (request id, request log line, in-process metrics).
    const floorLoad = (s: number) => measured(cpu, () => load(() => send(`${server.url}/health/live`), CONCURRENCY, s));
    const header = ['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', ...CPU_COLUMNS];

    await interleavedNamed({ v1: v1Load, raw: rawLoad }, 2, 1); // warm-up: compiled rules, connection pools, JIT
    if (only === 'v1') {
      const { v1, raw } = await interleavedNamed({ v1: v1Load, raw: rawLoad }, seconds);
      return { output: table(header, [summary('V1 sync event', v1, raw), summary('raw pg transaction P (ceiling)', raw, raw)]), figures: v1Figures(v1, raw) };
    }
    // Every workload of the comparison, interleaved in rounds (one more is one more entry here, its row and its
    // figures below). Slot for ceiling S, added by the event path's refactor: a node:http server running the
    // service's exact SQL over raw pg, started next to the API; its workload goes in this record as `s`.
    const { v1, retrieval, floor, raw } = await interleavedNamed({ v1: v1Load, retrieval: retrievalLoad, floor: floorLoad, raw: rawLoad }, seconds);
    // A customer of its own, so the contention totals are this phase's alone.
    const one = (await db.query(`INSERT INTO customers (organization_id, external_id, time_zone, division_id) SELECT $1, 'contended', 'America/New_York', id FROM divisions WHERE organization_id = $1 RETURNING id`, [tenant.organizationId])).rows[0].id as string;
    const before = (await db.query(`SELECT count(*)::int AS n FROM events WHERE customer_id = $1`, [one])).rows[0].n as number;
    const contended = await measured(cpu, () => load((i) => post(one, i), CONCURRENCY, seconds));
    const check = (
      await db.query(
        `SELECT c.available_points, c.lifetime_points,
                (SELECT coalesce(sum(amount), 0) FROM points_ledger WHERE customer_id = c.id) AS ledger,
                (SELECT count(*) FROM events WHERE customer_id = c.id) AS events
           FROM customers c WHERE c.id = $1`,
        [one],
      )
    ).rows[0];

    const rows: string[][] = [
      summary('V1 sync event (10 behaviors, 5 listening)', v1, raw),
      summary('retrieval GET users/:id/events', retrieval, raw),
      summary('GET /health/live, a Nest route doing nothing (floor)', floor, raw),
      summary('raw pg transaction P (ceiling)', raw, raw),
      summary('V1 sync, every request one customer', contended, raw),
    ];
    const stored = Number(check.events) - before;
    const exact =
      Number(check.ledger) === Number(check.lifetime_points) && Number(check.lifetime_points) === Number(check.available_points) && stored === contended.requests;
    const statuses = (r: LoadResult) => JSON.stringify(r.statuses);
    const output =
      table(header, rows) +
      `contention: statuses ${statuses(contended)}; events stored ${stored} of ${contended.requests} sent; ` +
      `ledger sum ${check.ledger} = lifetime ${check.lifetime_points} = available ${check.available_points}: ${exact ? 'exact' : 'MISMATCH'}\n` +
      `floor: GET /health/live answers from memory (no PostgreSQL, no Redis) through the app's global middleware; its API CPU per request is what any Nest route costs\n` +
      `${CUSTOMERS} customers, ${CONCURRENCY} connections, ${seconds}s per phase, node ${process.version}\n`;
    const errors5xx = Object.entries(contended.statuses).reduce((n, [status, count]) => n + (Number(status) >= 500 ? count : 0), 0);
    const figures: Figure[] = [
      ...v1Figures(v1, raw),
      ...floorFigures(v1, floor, raw),
      { figure: 'retrieval GET users/:id/events', value: rps(retrieval), unit: 'req/s', ceiling: 'raw pg transaction P', ceilingValue: rps(raw) },
      { figure: 'V1 sync, every request one customer', value: rps(contended), unit: 'req/s', ceiling: 'raw pg transaction P', ceilingValue: rps(raw) },
      {
        figure: 'V1 one customer: 5xx, events stored, ledger = balances',
        value: exact && errors5xx === 0 ? 'exact' : `MISMATCH (${errors5xx} 5xx)`,
        unit: '',
        target: 'no 5xx, exact totals',
        met: exact && errors5xx === 0,
      },
    ];
    return { output, figures };
  } finally {
    await db.end();
    await server.stop();
  }
}

const rps = (r: LoadResult) => r.requests / r.seconds;

/**
 * Issue #13's costs: the API's CPU per V1 request against a Nest route that does nothing (≤ 2×), and PostgreSQL's
 * CPU per V1 request against the raw transaction P (≤ 1.4×); all measured in the same rounds by the same generator.
 */
function floorFigures(v1: LoadResult, floor: LoadResult, raw: LoadResult): Figure[] {
  if (!v1.cpuPerRequest || !floor.cpuPerRequest || !raw.cpuPerRequest) return [];
  return [
    {
      figure: 'API CPU per V1 request',
      value: v1.cpuPerRequest.api,
      unit: 'µs',
      ceiling: 'GET /health/live (does nothing)',
      ceilingValue: floor.cpuPerRequest.api,
      ratioAs: '×',
      target: '≤ 2× ceiling',
      met: v1.cpuPerRequest.api <= 2 * floor.cpuPerRequest.api,
    },
    {
      figure: 'PostgreSQL CPU per V1 request',
      value: v1.cpuPerRequest.postgres,
      unit: 'µs',
      ceiling: 'raw pg transaction P',
      ceilingValue: raw.cpuPerRequest.postgres,
      ratioAs: '×',
      target: '≤ 1.4× ceiling',
      met: v1.cpuPerRequest.postgres <= 1.4 * raw.cpuPerRequest.postgres,
    },
  ];
}

/** V1 throughput (target 50% of the raw transaction), p99 (target ≤ 3× its p99), and CPU per request. */
function v1Figures(v1: LoadResult, raw: LoadResult): Figure[] {
  const p99 = percentile(v1.latenciesMs, 99);
  const rawP99 = percentile(raw.latenciesMs, 99);
  const figures: Figure[] = [
    { figure: 'V1 sync event (10 behaviors, 5 listening)', value: rps(v1), unit: 'req/s', ceiling: 'raw pg transaction P', ceilingValue: rps(raw), target: '≥ 50% of ceiling', met: rps(v1) >= 0.5 * rps(raw) },
    { figure: 'V1 sync event p99', value: p99, unit: 'ms', ceiling: 'raw pg transaction P p99', ceilingValue: rawP99, ratioAs: '×', target: '≤ 3× ceiling', met: p99 <= 3 * rawP99 },
  ];
  if (v1.cpuPerRequest && raw.cpuPerRequest) {
    const cost = (c: NonNullable<LoadResult['cpuPerRequest']>) => c.api + c.postgres + c.bench;
    figures.push({
      figure: 'V1 CPU per request (API + PG + load generator)',
      value: cost(v1.cpuPerRequest),
      unit: 'µs',
      ceiling: 'raw pg transaction P (PG + script)',
      ceilingValue: cost(raw.cpuPerRequest),
      ratioAs: '×',
    });
  }
  return figures;
}
