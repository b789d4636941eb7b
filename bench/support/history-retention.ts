/**
 * Retention on the large database: when `events` is partitioned by month (partitions named events_YYYY_MM, as another
 * branch makes it), the time to drop the oldest month's partition while V1 events arrive at a steady rate, and the
 * V1 latencies around it. So that a kept database keeps its 12 months, the partition dropped is one more month
 * before the oldest, created and filled for the measurement with a month's share of the events (the generator's rows,
 * for the same customers): the oldest partition at the moment it is dropped, of the size the others have.
 * Modes (BENCH_HISTORY_DROP): `drop` (DROP TABLE of the partition), `detach` (ALTER TABLE events DETACH PARTITION,
 * then DROP TABLE), `detach-concurrently` (DETACH PARTITION ... CONCURRENTLY, then DROP TABLE).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { eventsStatement, isPartitioned, kindAt, storeName, countBefore, eventsOf, type HistoryPlan } from './history-data.js';
import type { HistoryApi } from './history-server.js';
import { customerUuid } from './history-workloads.js';
import { percentile } from './load.js';

export type DropMode = 'drop' | 'detach' | 'detach-concurrently';

export type RetentionResult =
  | { available: false; reason: string }
  | {
      available: true;
      mode: DropMode;
      partition: string;
      rows: number;
      bytes: number;
      fillSeconds: number;
      /** Each statement of the drop and its time. */
      statements: Array<{ sql: string; ms: number }>;
      dropMs: number;
      error: string | null;
      rate: number;
      before: Window;
      during: Window;
      after: Window;
      statuses: Record<string, number>;
    };

export interface Window {
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

interface Sample {
  dueMs: number;
  latencyMs: number;
  status: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 4000 });

/**
 * Open loop (as open-loop.ts: request i due at i / rate, latency from its due time) that keeps each request's due
 * time, to tell the requests due while the drop ran from the others.
 */
async function timedOpenLoop(request: (i: number) => { url: string; headers: Record<string, string>; body: string }, rate: number, seconds: number, start: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  const inFlight: Array<Promise<void>> = [];
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; ) {
    const now = performance.now();
    for (; i < total && start + (i * 1000) / rate <= now; i += 1) {
      const due = start + (i * 1000) / rate;
      const r = request(i);
      inFlight.push(
        new Promise<void>((resolve) => {
          const done = (status: string) => {
            samples.push({ dueMs: due - start, latencyMs: performance.now() - due, status });
            resolve();
          };
          const req = http.request(r.url, { method: 'POST', headers: r.headers, agent }, (res) => {
            res.on('data', () => undefined);
            res.on('end', () => done(String(res.statusCode)));
            res.on('error', () => done('error'));
          });
          req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
          req.on('error', (e) => done(e.message === 'timeout' ? 'timeout' : 'error'));
          req.end(r.body);
        }),
      );
    }
    if (i < total) await new Promise((r) => setTimeout(r, Math.max(0, start + (i * 1000) / rate - performance.now())));
  }
  await Promise.all(inFlight);
  return samples;
}

function windowOf(samples: Sample[]): Window {
  const l = samples.map((s) => s.latencyMs);
  return { requests: samples.length, p50: percentile(l, 50), p99: percentile(l, 99), max: l.length ? Math.max(...l) : NaN };
}

interface Partition {
  name: string;
  bound: string;
}

async function partitions(db: pg.Pool): Promise<Partition[]> {
  return (
    await db.query(
      `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'events'::regclass ORDER BY c.relname`,
    )
  ).rows;
}

/** Measures the drop of the oldest month's partition while V1 runs at `rate`; not available when events is not partitioned. */
export async function measureRetention(
  api: HistoryApi,
  db: pg.Pool,
  plan: HistoryPlan,
  options: { mode: DropMode; rate: number; log: (line: string) => void },
): Promise<RetentionResult> {
  if (!(await isPartitioned(db, 'events'))) {
    return { available: false, reason: 'events is not partitioned in this schema (no row for it in pg_partitioned_table)' };
  }
  const monthly = (await partitions(db)).filter((p) => /^events_\d{4}_\d{2}$/.test(p.name));
  if (monthly.length === 0) return { available: false, reason: 'events is partitioned but has no partition named events_YYYY_MM' };
  const oldest = monthly[0];
  const from = /FROM \('([^']+)'\)/.exec(oldest.bound)?.[1];
  if (!from) return { available: false, reason: `the oldest partition's bound is not a range: ${oldest.bound}` };

  // One month before the oldest: its partition, filled with a month's share of the events (ids after every other).
  const bounds = (await db.query(`SELECT ($1::timestamptz - interval '1 month') AS start, $1::timestamptz AS end`, [from])).rows[0] as { start: Date; end: Date };
  const y = bounds.start.getUTCFullYear();
  const m = bounds.start.getUTCMonth() + 1;
  const name = `events_${y}_${String(m).padStart(2, '0')}`;
  const started = performance.now();
  await db.query(`CREATE TABLE ${name} PARTITION OF events FOR VALUES FROM ('${bounds.start.toISOString()}') TO ('${bounds.end.toISOString()}')`);
  const month = Math.round(plan.sizes.events / 12);
  const base = Number((await db.query(`SELECT max(id) + 1 AS id FROM events`)).rows[0].id);
  const monthPlan: HistoryPlan = {
    ...plan,
    sizes: { customers: plan.sizes.customers, events: month },
    t0Ms: bounds.start.getTime(),
    spanMs: bounds.end.getTime() - bounds.start.getTime() - 60_000,
    eventBase: base,
  };
  const chunk = 200_000;
  for (let a = 0; a < month; a += chunk) {
    await db.query(`SET synchronous_commit = off`);
    await db.query(eventsStatement(monthPlan, a, Math.min(month, a + chunk)));
  }
  await db.query(`VACUUM (ANALYZE) ${name}`);
  await db.query('CHECKPOINT');
  const fillSeconds = (performance.now() - started) / 1000;
  const bytes = Number((await db.query(`SELECT pg_total_relation_size($1::regclass) AS s`, [name])).rows[0].s);
  options.log(`retention: ${name} filled with ${month.toLocaleString('en-US')} events (${(bytes / 1024 / 1024).toFixed(0)} MB) in ${fillSeconds.toFixed(1)} s`);

  const statements =
    options.mode === 'drop'
      ? [`DROP TABLE ${name}`]
      : [`ALTER TABLE events DETACH PARTITION ${name}${options.mode === 'detach-concurrently' ? ' CONCURRENTLY' : ''}`, `DROP TABLE ${name}`];
  const { tenant, sizes } = plan;
  const headers = { authorization: `Basic ${Buffer.from(`${tenant.key}:${tenant.secret}`).toString('base64')}`, 'content-type': 'application/json' };
  const request = (i: number) => {
    const c = (Math.floor(sizes.customers / 3) + i * 7919) % sizes.customers;
    const j = eventsOf(sizes, c) + 1_000 + i; // past anything the workloads sent: a visit or a login, a new store
    const kind = kindAt(c, j) === 'purchase' ? 'login' : kindAt(c, j);
    const body = kind === 'visit' ? { events: { visit: { store_id: storeName(c, countBefore('visit', c, j)) } } } : { events: { login: 1 } };
    return { url: `${api.url}/priv/v1/apps/${tenant.key}/users/${customerUuid(c)}/events`, headers, body: JSON.stringify(body) };
  };
  const BEFORE_S = 3;
  const AFTER_S = 4;
  const ddl = new pg.Client({ connectionString: api.env.DATABASE_URL });
  await ddl.connect();
  const done: Array<{ sql: string; ms: number }> = [];
  let error: string | null = null;
  let dropStart = 0;
  let dropEnd = 0;
  const start = performance.now() + 50;
  try {
    const [samples] = await Promise.all([
      timedOpenLoop(request, options.rate, BEFORE_S + AFTER_S, start),
      (async () => {
        await new Promise((r) => setTimeout(r, start + BEFORE_S * 1000 - performance.now()));
        dropStart = performance.now() - start;
        for (const sql of statements) {
          const t = performance.now();
          try {
            await ddl.query(sql);
          } catch (e) {
            error = `${sql}: ${(e as Error).message}`;
            break;
          } finally {
            done.push({ sql, ms: performance.now() - t });
          }
        }
        dropEnd = performance.now() - start;
      })(),
    ]);
    const statuses: Record<string, number> = {};
    for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    return {
      available: true,
      mode: options.mode,
      partition: name,
      rows: month,
      bytes,
      fillSeconds,
      statements: done,
      dropMs: dropEnd - dropStart,
      error,
      rate: options.rate,
      before: windowOf(samples.filter((s) => s.dueMs < dropStart)),
      // Requests due while the statements ran, and those that were in flight when they began (due up to the
      // slowest request before, 1 s at most).
      during: windowOf(samples.filter((s) => s.dueMs >= dropStart - 1000 && s.dueMs <= dropEnd && s.dueMs + s.latencyMs >= dropStart)),
      after: windowOf(samples.filter((s) => s.dueMs > dropEnd)),
      statuses,
    };
  } finally {
    await ddl.query(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
    await ddl.end();
  }
}
