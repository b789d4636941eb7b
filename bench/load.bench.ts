/**
 * Load test: V1 sync events at a fixed rate (open loop: each request sent on schedule, its latency counted from the
 * time it was due), while a steady V2 stream (batches of 100) is accepted by the same API and processed by a worker
 * process, on the customers the V1 requests touch. The campaign of v1.bench.ts, 10,000 customers, a fresh database,
 * the built API and worker as separate processes (stopped, and the database and Redis keys dropped, at the end).
 * Prints the latencies (p50/p95/p99/max), achieved rate and errors by status of both streams, the V2 events accepted
 * and processed with their lag, the CPU each process used, and a table of checks (all V2 events processed, events
 * stored = requests answered, every customer's ledger sum = their balances). It asserts nothing.
 * Run: npm run bench:load (LOAD_RATE V1 requests/s, default 200; LOAD_SECONDS, default 60; LOAD_V2_RATE V2 events/s,
 * default 500).
 */
import { performance } from 'node:perf_hooks';
import { Queue } from 'bullmq';
import pg from 'pg';
import { QueueName } from '../src/queues/queue-names.js';
import { createLiveCampaign } from './support/campaign.js';
import { cpuBetween, cpuSnapshot } from './support/cpu.js';
import { addCustomers, customerIds } from './support/customers.js';
import { percentile, table } from './support/load.js';
import { openLoop, OpenLoopResult, succeeded } from './support/open-loop.js';
import { startNode, stopAll } from './support/processes.js';
import { bootstrap, startServer } from './support/server.js';

const RATE = Number(process.env.LOAD_RATE ?? 200);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const V2_RATE = Number(process.env.LOAD_V2_RATE ?? 500);
const BATCH = 100;
const CUSTOMERS = 10_000;
const WARM_UP_SECONDS = 3;
const DRAIN_TIMEOUT_MS = 120_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const server = await startServer(3930);
const database = new URL(server.databaseUrl).pathname.slice(1);
const db = new pg.Pool({ connectionString: server.databaseUrl, max: 4 });
const queue = new Queue(QueueName.Events, { connection: { url: server.env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null }, prefix: server.env.QUEUE_PREFIX });
try {
  const tenant = await bootstrap(server.url);
  await createLiveCampaign(server.url, tenant);
  await addCustomers(db, tenant.organizationId, 'bench-', 1, CUSTOMERS);
  const ids = await customerIds(db, tenant.organizationId);

  const worker = startNode('dist/src/worker.js', { ...server.env, LOG_LEVEL: 'warn' });
  for (const deadline = Date.now() + 30_000; (await queue.getWorkersCount()) < 1; await sleep(50)) {
    if (Date.now() > deadline || worker.exitCode !== null) throw new Error('the worker process did not connect');
  }

  const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
  const v1 = (i: number) => ({
    url: `${server.url}/priv/v1/apps/${tenant.key}/users/${ids[(i * 7919) % ids.length]}/events`,
    method: 'POST',
    headers,
    body: JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } }),
  });
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const bodies = Array.from({ length: 200 }, () =>
    JSON.stringify({ events: Array.from({ length: BATCH }, () => ({ name: 'visit', external_id: `bench-${1 + Math.floor(random() * CUSTOMERS)}`, context: { store_id: `s${Math.floor(random() * 13)}` } })) }),
  );
  const v2 = (i: number) => ({ url: `${server.url}/priv/v2/apps/${tenant.key}/events`, method: 'POST', headers, body: bodies[i % bodies.length] });
  const both = (seconds: number) => Promise.all([openLoop(v1, RATE, seconds), openLoop(v2, V2_RATE / BATCH, seconds)]);

  await both(WARM_UP_SECONDS); // JIT, pools, rules cache; not counted
  const from = Number((await db.query(`SELECT coalesce(max(id), 0) AS id FROM events`)).rows[0].id);
  const cpu = () => ({ server: server.cpu(), worker: cpuSnapshot([worker.pid!], database) });
  const before = cpu();
  const [r1, r2] = await both(SECONDS);
  const after = cpu();
  const loadEnded = performance.now();
  const pending = async () => Number((await db.query(`SELECT count(*) AS n FROM events WHERE status = 'pending'`)).rows[0].n);
  while ((await pending()) > 0 && performance.now() - loadEnded < DRAIN_TIMEOUT_MS) await sleep(100);
  const drainSeconds = (performance.now() - loadEnded) / 1000;

  const left = await pending();
  const counts: Record<string, number> = {};
  for (const r of (await db.query(`SELECT source, status, count(*)::int AS n FROM events WHERE id > $1 GROUP BY 1, 2`, [from])).rows) counts[`${r.source} ${r.status}`] = r.n;
  const v2Stored = Object.entries(counts).reduce((n, [k, c]) => n + (k.startsWith('v2 ') ? c : 0), 0);
  const lag = (
    await db.query(
      `SELECT percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM processed_at - created_at) * 1000) AS p,
              max(extract(epoch FROM processed_at - created_at)) * 1000 AS max
         FROM events WHERE id > $1 AND source = 'v2' AND processed_at IS NOT NULL`,
      [from],
    )
  ).rows[0];
  const ledger = (
    await db.query(
      `SELECT count(*)::int AS customers, count(*) FILTER (WHERE ledger <> available_points OR ledger <> lifetime_points)::int AS mismatched,
              sum(ledger)::bigint AS ledger, sum(available_points)::bigint AS available
         FROM (SELECT c.available_points, c.lifetime_points, (SELECT coalesce(sum(amount), 0) FROM points_ledger l WHERE l.customer_id = c.id) AS ledger
                 FROM customers c WHERE c.organization_id = $1) x`,
      [tenant.organizationId],
    )
  ).rows[0];

  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '-');
  const row = (name: string, r: OpenLoopResult, perRequest: number) => [
    name,
    `${r.scheduled} at ${(r.scheduled / SECONDS).toFixed(0)}/s`,
    `${((succeeded(r) * perRequest) / r.seconds).toFixed(0)}`,
    ...[50, 95, 99].map((p) => ms(percentile(r.latenciesMs, p))),
    ms(Math.max(...r.latenciesMs)),
    String(r.scheduled - succeeded(r)),
    JSON.stringify(r.statuses),
  ];
  const share = (seconds: number) => `${((seconds / SECONDS) * 100).toFixed(0)}%`;
  const checks: Array<[string, string, string, boolean]> = [
    ['V1 requests answered 2xx', String(r1.scheduled), String(succeeded(r1)), succeeded(r1) === r1.scheduled],
    ['V1 events stored and processed', String(succeeded(r1)), String(counts['v1 processed'] ?? 0), (counts['v1 processed'] ?? 0) === succeeded(r1)],
    ['V2 batches accepted', String(r2.scheduled), String(succeeded(r2)), succeeded(r2) === r2.scheduled],
    ['V2 events stored', String(succeeded(r2) * BATCH), String(v2Stored), v2Stored === succeeded(r2) * BATCH],
    ['V2 events processed', String(v2Stored), String(counts['v2 processed'] ?? 0), (counts['v2 processed'] ?? 0) === v2Stored],
    ['events still pending (whole run)', '0', String(left), left === 0],
    ['customers whose ledger sum ≠ available or lifetime points', '0', `${ledger.mismatched} of ${ledger.customers}`, ledger.mismatched === 0],
    ['generator on schedule (max send delay, ms)', '≤ 100', ms(Math.max(r1.maxSendDelayMs, r2.maxSendDelayMs)), Math.max(r1.maxSendDelayMs, r2.maxSendDelayMs) <= 100],
  ];
  const [p50, p95, p99] = (lag.p as number[] | null) ?? [NaN, NaN, NaN];
  process.stdout.write(
    table(
      ['stream', 'sent', 'answered 2xx/s (V2: events/s)', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'errors', 'statuses'],
      [row('V1 sync event (open loop)', r1, 1), row(`V2 batches of ${BATCH} (events/s)`, r2, BATCH)],
    ) +
      `latency from each request's due time to its answer; ${SECONDS} s after a ${WARM_UP_SECONDS} s warm-up\n` +
      `V2: ${v2Stored.toLocaleString('en-US')} events accepted, ${(counts['v2 processed'] ?? 0).toLocaleString('en-US')} processed by 1 worker; ` +
      `lag accepted → processed p50 ${ms(p50)} ms, p95 ${ms(p95)} ms, p99 ${ms(p99)} ms, max ${ms(Number(lag.max))} ms; ` +
      `queue drained ${drainSeconds.toFixed(1)} s after the load ended\n` +
      `CPU over the ${SECONDS} s (share of one core): API ${share(cpuBetween(before.server.api, after.server.api))}, worker ${share(cpuBetween(before.worker.api, after.worker.api))}, ` +
      `PostgreSQL ${share(cpuBetween(before.server.postgres, after.server.postgres))}, load generator ${share(after.server.bench - before.server.bench)}\n` +
      `events of the window by source and status: ${JSON.stringify(counts)}; points: ledger ${ledger.ledger}, available ${ledger.available}\n\n` +
      table(['check', 'expected', 'actual', 'ok'], checks.map(([name, expected, actual, ok]) => [name, expected, actual, ok ? 'ok' : 'FAILED'])) +
      `${CUSTOMERS} customers, V1 at ${RATE}/s, V2 at ${V2_RATE} events/s, node ${process.version}\n`,
  );
} finally {
  await stopAll();
  await Promise.allSettled([queue.close(), db.end()]);
  await server.stop();
}
