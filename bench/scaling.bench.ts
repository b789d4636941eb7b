/**
 * How cost grows, on one fresh database and API process (dropped and stopped at the end):
 * - V1 sync events (the 10-behavior campaign of v1.bench.ts) with 1,000, 100,000 and 1,000,000 progress rows: 100,
 *   10,000 and 100,000 customers with a row for each behavior, written straight into the database; requests go to
 *   random customers among them all;
 * - V1 sync events with 1, 10 and 100 live behaviors (campaigns of 10), one of them listening to the event sent, an
 *   organization each with 10,000 customers, measured in rounds;
 * - V2 acceptance (no worker) with batches of 1, 10, 100 and 1,000 events, measured in rounds;
 * - V2 processing by one worker with 1 and 36 monthly partitions holding events (support/partitions-phase.ts).
 * 10 connections; each row adds the CPU a request (a V2 event) cost the API, PostgreSQL and the load generator, and its
 * throughput against the table's first row.
 * Run: npm run bench:scaling (BENCH_SECONDS per measurement, default 5: about 3 minutes; BENCH_ONLY=partitions for the
 * last phase alone). Exits 1 when a phase FAILED (events not processed).
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createLiveCampaign, oneListening } from './support/campaign.js';
import { addCustomers, customerIds } from './support/customers.js';
import { CPU_COLUMNS, interleaved, load, LoadResult, measured, percentile, send, summary, table } from './support/load.js';
import { runPartitionsPhase } from './support/partitions-phase.js';
import { bootstrap, startServer } from './support/server.js';
import { problem, tallyLines, type Tally } from './support/verdict.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 10;
const began = performance.now();
const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
const progress = (step: string) => process.stderr.write(`scaling bench: ${step} at ${elapsed()}\n`);
const HEADER = ['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs first row', ...CPU_COLUMNS];

const server = await startServer(3920);
const db = new pg.Pool({ connectionString: server.databaseUrl, max: CONCURRENCY });
try {
  if (process.env.BENCH_ONLY === 'partitions') {
    const months = await runPartitionsPhase(server, db, 10_000);
    process.stdout.write(months.output);
    if (months.failed) process.exitCode = 1;
  } else await allPhases();
} finally {
  await db.end();
  await server.stop();
}

async function allPhases(): Promise<void> {
  const cpu = () => server.cpu();
  const visit = (i: number) => JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } });
  /** V1 sync `visit` events for customers picked in `ids` (a spread that visits them all). */
  const v1 = (tenant: { key: string; auth: string }, ids: string[]) => (seconds: number) =>
    measured(cpu, () =>
      load(
        (i) =>
          send(`${server.url}/priv/v1/apps/${tenant.key}/users/${ids[(i * 7919) % ids.length]}/events`, {
            method: 'POST',
            headers: { authorization: tenant.auth, 'content-type': 'application/json' },
            body: visit(i),
          }),
        CONCURRENCY,
        seconds,
      ),
    );

  // 1. Progress rows: one organization that grows between the measurements.
  const grown = await bootstrap(server.url, 'Progress');
  await createLiveCampaign(server.url, grown);
  const progressRows: string[][] = [];
  const fills: string[] = [];
  let first: LoadResult | undefined;
  let customers = 0;
  for (const rows of [1_000, 100_000, 1_000_000]) {
    const started = performance.now();
    await addCustomers(db, grown.organizationId, 'scale-', customers + 1, rows / 10, true);
    customers = rows / 10;
    const total = Number((await db.query(`SELECT count(*) AS n FROM customer_progress`)).rows[0].n);
    fills.push(`${total.toLocaleString('en-US')} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const run = v1(grown, await customerIds(db, grown.organizationId));
    await run(first ? 1 : 3); // warm-up: the new rows' pages, rules cache, JIT (the API's first load)
    const result = await run(SECONDS);
    first ??= result;
    progressRows.push(summary(`${rows.toLocaleString('en-US')} progress rows (${customers.toLocaleString('en-US')} customers)`, result, first));
    progress(`${rows.toLocaleString('en-US')} progress rows`);
  }

  // 2. Live behaviors: an organization for each count, campaigns of 10 behaviors, the first behavior listening.
  const behaviorLoads: Array<(s: number) => Promise<LoadResult>> = [];
  const behaviorCounts = [1, 10, 100];
  for (const count of behaviorCounts) {
    const tenant = await bootstrap(server.url, `Behaviors ${count}`);
    const behaviors = oneListening(count);
    for (let c = 0; c < behaviors.length; c += 10) await createLiveCampaign(server.url, tenant, behaviors.slice(c, c + 10), `Campaign ${c / 10 + 1}`);
    await addCustomers(db, tenant.organizationId, 'bench-', 1, 10_000);
    behaviorLoads.push(v1(tenant, await customerIds(db, tenant.organizationId)));
  }
  await interleaved(behaviorLoads, behaviorLoads.length, 1); // warm-up
  const byBehaviors = await interleaved(behaviorLoads, SECONDS);
  const behaviorRows = byBehaviors.map((r, i) => summary(`${behaviorCounts[i]} live behavior${behaviorCounts[i] > 1 ? 's' : ''}, 1 listening`, r, byBehaviors[0]));
  progress('live behaviors');

  // 3. V2 acceptance by batch size: the 10-behavior campaign, 10,000 customers by external id, no worker running.
  const v2 = await bootstrap(server.url, 'V2');
  await createLiveCampaign(server.url, v2);
  await addCustomers(db, v2.organizationId, 'bench-', 1, 10_000);
  const batchSizes = [1, 10, 100, 1000];
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const batchLoads = batchSizes.map((size) => {
    // Bodies built once (the load generator shares the CPU): about 20,000 events' worth for each size.
    const bodies = Array.from({ length: Math.max(20, 20_000 / size) }, () =>
      JSON.stringify({
        events: Array.from({ length: size }, () => ({ name: 'visit', external_id: `bench-${1 + Math.floor(random() * 10_000)}`, context: { store_id: `s${Math.floor(random() * 13)}` } })),
      }),
    );
    const headers = { authorization: v2.auth, 'content-type': 'application/json' };
    return (seconds: number) =>
      measured(cpu, () => load((i) => send(`${server.url}/priv/v2/apps/${v2.key}/events`, { method: 'POST', headers, body: bodies[i % bodies.length] }), CONCURRENCY, seconds));
  });
  await interleaved(batchLoads, batchLoads.length, 1); // warm-up
  const v2Events = async () => Number((await db.query(`SELECT count(*) AS n FROM events WHERE organization_id = $1`, [v2.organizationId])).rows[0].n);
  const v2From = await v2Events();
  const byBatch = await interleaved(batchLoads, SECONDS);
  const v2Stored = (await v2Events()) - v2From;
  const eventsPerSecond = (r: LoadResult, size: number) => (r.requests * size) / r.seconds;
  const batchRows = byBatch.map((r, i) => {
    const size = batchSizes[i];
    const perEvent = (us: number | undefined) => ((us ?? NaN) / size).toFixed((us ?? NaN) / size < 10 ? 1 : 0);
    return [
      String(size),
      Math.round(eventsPerSecond(r, size)).toLocaleString('en-US'),
      (r.requests / r.seconds).toFixed(0),
      percentile(r.latenciesMs, 50).toFixed(1),
      percentile(r.latenciesMs, 99).toFixed(1),
      String(r.errors),
      `${((eventsPerSecond(r, size) / eventsPerSecond(byBatch[0], 1)) * 100).toFixed(0)}%`,
      perEvent(r.cpuPerRequest?.api),
      perEvent(r.cpuPerRequest?.postgres),
      perEvent(r.cpuPerRequest?.bench),
    ];
  });
  progress('V2 batch sizes');

  // 4. V2 processing by one worker, with 1 and 36 months holding events.
  const months = await runPartitionsPhase(server, db, 10_000);
  if (months.failed) process.exitCode = 1;
  progress('months holding events');

  // Each table's first row is its baseline: it must not error; V2's batches must all be stored.
  const ok = (r: LoadResult) => r.statuses[200] ?? 0;
  const tallies: Tally[] = [
    { name: 'V1, 1,000 progress rows (first row)', role: 'baseline', errors: first!.errors, stored: ok(first!), expected: first!.requests, unit: 'answers 200' },
    { name: 'V1, 1 live behavior (first row)', role: 'baseline', errors: byBehaviors[0].errors, stored: ok(byBehaviors[0]), expected: byBehaviors[0].requests, unit: 'answers 200' },
    { name: 'V2 acceptance, every batch size', role: 'baseline', errors: byBatch.reduce((n, r) => n + r.errors, 0), stored: v2Stored, expected: byBatch.reduce((n, r, i) => n + ok(r) * batchSizes[i], 0), unit: 'events' },
  ];
  const failures = tallies.map(problem).filter((p) => p !== null);
  if (failures.length) process.exitCode = 1;
  process.stdout.write(
    `V1 sync events by progress rows (10 live behaviors, 5 listening; requests spread over every customer)\n${table(HEADER, progressRows)}` +
      `filled with INSERT ... SELECT generate_series: ${fills.join(', ')} (cumulative)\n\n` +
      `V1 sync events by live behaviors (10,000 customers; in rounds)\n${table(HEADER, behaviorRows)}\n` +
      `V2 acceptance by batch size (no worker; in rounds)\n` +
      table(['events per batch', 'events/s', 'batches/s', 'p50 ms', 'p99 ms', 'errors', 'vs first row', 'API CPU µs/event', 'PG CPU µs/event', 'bench CPU µs/event'], batchRows) +
      `\n${months.output}` +
      `${CONCURRENCY} connections, ${SECONDS}s per measurement, node ${process.version}, total ${elapsed()}\n` +
      tallyLines(tallies) +
      (failures.length ? `FAILED: ${failures.join('; ')}\n` : ''),
  );
}
