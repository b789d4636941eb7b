/**
 * History at scale (issue #15): the same workloads on a SMALL database (10,000 customers) and a LARGE one (1,000,000
 * customers, 10,000,000 events over the last 12 months, 5,000,000 progress rows, 20,000,000 points ledger entries), in
 * one run, side by side: V1 sync events for existing customers, V2 acceptance (batches of 100), retrieval and the
 * timeline, each measured in interleaved rounds (10 connections, one API process per database), then EXPLAIN
 * (ANALYZE, BUFFERS) of the statements behind them on both, then (when `events` is partitioned by month) the drop of the
 * oldest month's partition while V1 runs. Target: each workload at least 80% of its small-database figure; the drop
 * under 1 s.
 * Both databases are built with all migrations, their organization, key, campaign and behaviors through the API, and
 * their bulk rows with INSERT ... SELECT generate_series (bench/support/history-data.ts); the build time and the sizes
 * are printed. The LARGE database is kept with BENCH_KEEP_HISTORY=1 (reused by the next run when it holds the expected
 * rows: the rows a run adds are taken out again at the end), else dropped with the small one.
 * Run: npm run bench:history
 * Env: BENCH_HISTORY_CUSTOMERS (1,000,000), BENCH_HISTORY_EVENTS (10,000,000), BENCH_HISTORY_SMALL_CUSTOMERS (10,000;
 * its events in the same proportion), BENCH_SECONDS per workload and database (10), BENCH_KEEP_HISTORY=1,
 * BENCH_HISTORY_DROP (drop | detach | detach-concurrently), BENCH_HISTORY_DROP_RATE (V1 requests/s during the drop,
 * 100), BENCH_HISTORY_INDEXES (drop | keep: indexes during the build), BENCH_HISTORY_BUILD_JOBS (2),
 * BENCH_HISTORY_PLANS=1 (print both databases' plans), BENCH_HISTORY_WORKLOADS (v1,v2,retrieval,timeline: the ones
 * measured), BENCH_ROUNDS (5).
 */
import os from 'node:os';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onInterrupt } from './support/cleanup.js';
import { acceptanceWorkingSet, DAY, sizes as tableSizes, restoreHistory, WINDOW_DAYS, expectedRows, type HistorySizes, type TableSize } from './support/history-data.js';
import { explainStatements, type Explained } from './support/history-explain.js';
import { measureRetention, type DropMode, type RetentionResult } from './support/history-retention.js';
import { databaseUrl, dropDatabase } from './support/history-server.js';
import { loadAverage, prepareHistory, type HistoryDatabase } from './support/history-setup.js';
import { trafficPerRequest, smokeTest, workloads, WORKLOADS, CONCURRENCY } from './support/history-workloads.js';
import { interleavedNamed, percentile, table, type LoadResult } from './support/load.js';
import { checkTallies, tallyLines, type Tally } from './support/verdict.js';
import { int } from './support/env.js';

const LARGE: HistorySizes = { customers: int('BENCH_HISTORY_CUSTOMERS', 1_000_000), events: int('BENCH_HISTORY_EVENTS', 10_000_000) };
const smallCustomers = int('BENCH_HISTORY_SMALL_CUSTOMERS', 10_000);
const SMALL: HistorySizes = { customers: smallCustomers, events: Math.round((LARGE.events / LARGE.customers) * smallCustomers) };
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = int('BENCH_ROUNDS', 5);
const SELECTED = (process.env.BENCH_HISTORY_WORKLOADS ?? WORKLOADS.map((w) => w.key).join(',')).split(',').map((k) => k.trim());
const MEASURED = WORKLOADS.filter((w) => SELECTED.includes(w.key));
if (MEASURED.length === 0 || MEASURED.length !== SELECTED.length) throw new Error(`BENCH_HISTORY_WORKLOADS must list some of ${WORKLOADS.map((w) => w.key).join(', ')}`);
const KEEP = process.env.BENCH_KEEP_HISTORY === '1';
const DROP_MODE = (process.env.BENCH_HISTORY_DROP ?? 'drop') as DropMode;
if (!['drop', 'detach', 'detach-concurrently'].includes(DROP_MODE)) throw new Error('BENCH_HISTORY_DROP must be drop, detach or detach-concurrently');
const DROP_RATE = int('BENCH_HISTORY_DROP_RATE', 100);
const INDEXES = (process.env.BENCH_HISTORY_INDEXES ?? 'drop') as 'drop' | 'keep';
if (!['drop', 'keep'].includes(INDEXES)) throw new Error('BENCH_HISTORY_INDEXES must be drop or keep');
const JOBS = int('BENCH_HISTORY_BUILD_JOBS', 2);
if (LARGE.events / LARGE.customers > 20) throw new Error('the generator spreads events at most 20 per customer over the year (throttles and caps assume it)');
const TARGET = 0.8;
const DROP_TARGET_MS = 1000;

const LARGE_NAME = 'ce_bench_history_large';
const SMALL_NAME = `ce_bench_history_small_${randomBytes(3).toString('hex')}`;
const began = performance.now();
const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
const log = (line: string) => process.stderr.write(`history bench [${elapsed()}]: ${line}\n`);
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '-');
const mb = (bytes: number) => (bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(2)} GB` : `${(bytes / 1024 ** 2).toFixed(0)} MB`);

const databases: HistoryDatabase[] = [];
let finished = false;
/** Stops the APIs, puts a kept large database back as built, drops what is not kept; run once, also on Ctrl-C. */
let cleaning: Promise<void> | undefined;
const cleanup = () =>
  (cleaning ??= (async () => {
    for (const d of databases) {
      await d.api.stop().catch(() => undefined);
      await d.pool.end().catch(() => undefined);
    }
    const large = databases.find((d) => d.name === LARGE_NAME);
    if (KEEP && large && finished) {
      const put = await restoreHistory(large.url, large.plan).catch((e: Error) => (log(`could not put ${LARGE_NAME} back: ${e.message}`), 0));
      log(`${LARGE_NAME} kept (${put} customers touched by this run put back as built)`);
    }
    if (!KEEP) await dropDatabase(LARGE_NAME).catch(() => undefined);
    await dropDatabase(SMALL_NAME).catch(() => undefined);
  })());
const forget = onInterrupt(cleanup);

const machine = async () => {
  const db = new pg.Client({ connectionString: databaseUrl('postgres') });
  await db.connect();
  try {
    const version = (await db.query(`SHOW server_version`)).rows[0].server_version as string;
    const settings = (await db.query(`SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'autovacuum', 'max_wal_size', 'checkpoint_timeout')`)).rows;
    const setting = (name: string) => settings.find((r) => r.name === name);
    const bytes = (name: string) => Number(setting(name)?.setting) * ({ '8kB': 8192, MB: 1024 * 1024 }[setting(name)?.unit as string] ?? NaN);
    const show = (name: string) => (Number.isNaN(bytes(name)) ? `${setting(name)?.setting}${setting(name)?.unit === 's' ? ' s' : ''}` : mb(bytes(name)));
    const sharedBuffers = bytes('shared_buffers');
    const disk = fs.statfsSync('/');
    const line =
      `${os.cpus().length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GB RAM, PostgreSQL ${version} (shared_buffers ${show('shared_buffers')}, ` +
      `max_wal_size ${show('max_wal_size')}, checkpoint_timeout ${show('checkpoint_timeout')}, autovacuum ${show('autovacuum')}), ${mb(disk.bavail * disk.bsize)} free on /, node ${process.version}`;
    return { line, sharedBuffers };
  } finally {
    await db.end();
  }
};

try {
  const loadAtStart = loadAverage();
  const { line: machineLine, sharedBuffers } = await machine();
  log(`load average ${loadAtStart.join(', ')}; ${machineLine}`);
  const now = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const t0Ms = now - WINDOW_DAYS * DAY;
  const spanMs = WINDOW_DAYS * DAY - 3_600_000;
  const build = { indexes: INDEXES, jobs: JOBS };

  log(`LARGE database ${LARGE_NAME}: ${LARGE.customers.toLocaleString('en-US')} customers, ${LARGE.events.toLocaleString('en-US')} events`);
  const large = await prepareHistory(LARGE_NAME, { sizes: LARGE, port: 3941, reusable: true, t0Ms, spanMs, build, log });
  databases.push(large);
  log(`SMALL database ${SMALL_NAME}: ${SMALL.customers.toLocaleString('en-US')} customers, ${SMALL.events.toLocaleString('en-US')} events`);
  // The same 12 months as the large database's (a kept one was built earlier).
  const small = await prepareHistory(SMALL_NAME, { sizes: SMALL, port: 3940, reusable: false, t0Ms: large.plan.t0Ms, spanMs: large.plan.spanMs, build, log });
  databases.push(small);
  const [smallSizes, largeSizes] = [await tableSizes(small.pool), await tableSizes(large.pool)];
  const workingSet = { bytes: await acceptanceWorkingSet(large.pool), sharedBuffers };

  for (const d of [small, large]) {
    const problems = await smokeTest(d.api, d.plan);
    if (problems.length) throw new Error(`${d.name} does not answer as generated: ${problems.join('; ')}`);
  }
  log('both databases answer as generated (timeline, retrieval, a read_only visit)');

  // The workloads, interleaved in rounds: each workload on the small database, then on the large, round after round.
  const small4 = workloads(small.api, small.plan, small.pool);
  const large4 = workloads(large.api, large.plan, large.pool);
  const loads = {} as Record<string, (s: number) => Promise<LoadResult>>;
  for (const w of MEASURED) {
    loads[`${w.key} small`] = small4[w.key];
    loads[`${w.key} large`] = large4[w.key];
  }
  const updates = async (d: HistoryDatabase) =>
    Object.fromEntries(
      (await d.pool.query(`SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname IN ('customers', 'customer_progress')`)).rows.map((r) => [
        r.relname as string,
        { updated: Number(r.n_tup_upd), hot: Number(r.n_tup_hot_upd) },
      ]),
    ) as Record<string, { updated: number; hot: number }>;
  const updatesBefore = { small: await updates(small), large: await updates(large) };
  // Every run starts right after a checkpoint (a reused database's last run left its pages dirty), so that where the
  // next one falls depends on the run's own WAL, not on the run before.
  await large.pool.query('CHECKPOINT');
  log('warm-up (1 s per workload and database)');
  await interleavedNamed(loads, 1, 1);
  log(`measuring: ${MEASURED.length} workloads × 2 databases × ${SECONDS} s, in ${ROUNDS} rounds`);
  const maxEventId = async (d: HistoryDatabase) => Number((await d.pool.query(`SELECT coalesce(max(id), 0) AS id FROM events`)).rows[0].id);
  const eventsFrom = { small: await maxEventId(small), large: await maxEventId(large) };
  const results = await interleavedNamed(loads, SECONDS, ROUNDS);
  // Errors and rows of each database's workloads: SMALL is the baseline, so its errors, or events not stored for its
  // answers 200 (V1: one each, V2: a batch each), end the run FAILED; LARGE's are reported (and fail its targets).
  const tallies: Tally[] = [];
  for (const [size, d] of [['small', small], ['large', large]] as const) {
    const role = size === 'small' ? 'baseline' : 'workload';
    const of = (w: (typeof MEASURED)[number]) => results[`${w.key} ${size}`];
    const writes = MEASURED.filter((w) => w.key === 'v1' || w.key === 'v2');
    const reads = MEASURED.filter((w) => w.key === 'retrieval' || w.key === 'timeline');
    const stored = Number((await d.pool.query(`SELECT count(*) AS n FROM events WHERE id > $1`, [eventsFrom[size]])).rows[0].n);
    if (writes.length) {
      const expected = writes.reduce((n, w) => n + (of(w).statuses[200] ?? 0) * w.perRequest, 0);
      tallies.push({ name: `${size.toUpperCase()}: ${writes.map((w) => w.key).join(' + ')}`, role, errors: writes.reduce((n, w) => n + of(w).errors, 0), stored, expected, unit: 'events' });
    }
    if (reads.length) {
      const answered = reads.reduce((n, w) => n + (of(w).statuses[200] ?? 0), 0);
      tallies.push({ name: `${size.toUpperCase()}: ${reads.map((w) => w.key).join(' + ')}`, role, errors: reads.reduce((n, w) => n + of(w).errors, 0), stored: answered, expected: reads.reduce((n, w) => n + of(w).requests, 0), unit: 'answers 200' });
    }
  }
  checkTallies(tallies);
  const loadAfterWorkloads = loadAverage();
  const hot = (before: Record<string, { updated: number; hot: number }>, after: Record<string, { updated: number; hot: number }>) =>
    Object.keys(after)
      .sort()
      .map((t) => {
        const updated = after[t].updated - (before[t]?.updated ?? 0);
        const hotUpdated = after[t].hot - (before[t]?.hot ?? 0);
        return `${t} ${updated ? ((hotUpdated / updated) * 100).toFixed(0) : '-'}% of ${updated.toLocaleString('en-US')}`;
      })
      .join(', ');
  const hotLine =
    `updates during the workloads that were HOT (no new index entries): SMALL ${hot(updatesBefore.small, await updates(small))}; LARGE ${hot(updatesBefore.large, await updates(large))}\n` +
    tallyLines(tallies);

  log('EXPLAIN (ANALYZE, BUFFERS) of the statements, 10 customers each');
  const explained = { small: await explainStatements(small.url, small.plan, 10), large: await explainStatements(large.url, large.plan, 10) };

  log(`retention: ${DROP_MODE} of the oldest month's partition while V1 runs at ${DROP_RATE}/s`);
  const retention = await measureRetention(large.api, large.pool, large.plan, { mode: DROP_MODE, rate: DROP_RATE, log });

  finished = true;
  const output = report({ small, large, smallSizes, largeSizes, results, explained, retention, loadAtStart, loadAfterWorkloads, machineLine, hotLine, workingSet });
  // Figures that miss their targets are results, not failures: the exit code stays 0.
  process.stdout.write(output.text);
} catch (error) {
  process.exitCode = 1;
  process.stderr.write(`history bench FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await cleanup();
  forget();
  log(`done in ${elapsed()}`);
}

interface ReportInput {
  small: HistoryDatabase;
  large: HistoryDatabase;
  smallSizes: { database: number; tables: TableSize[] };
  largeSizes: { database: number; tables: TableSize[] };
  results: Record<string, LoadResult>;
  explained: { small: Explained[]; large: Explained[] };
  retention: RetentionResult;
  loadAtStart: number[];
  loadAfterWorkloads: number[];
  machineLine: string;
  hotLine: string;
  workingSet: { bytes: number; sharedBuffers: number };
}

function report(r: ReportInput): { text: string; allMet: boolean } {
  const { small, large } = r;
  const out: string[] = [];
  out.push(`History at scale: SMALL ${small.name}, LARGE ${large.name}; ${r.machineLine}\n`);
  out.push(`load average at start ${r.loadAtStart.join(', ')}, after the workloads ${r.loadAfterWorkloads.join(', ')}\n\n`);

  // Sizes and build.
  const built = (d: HistoryDatabase) =>
    d.reused
      ? `kept: built ${d.builtAt.slice(0, 16).replace('T', ' ')} in ${fmt(d.buildSeconds)} s (load ${d.build.loadAverage.join(', ')})`
      : `built in ${fmt(d.buildSeconds, 1)} s (indexes ${d.build.indexes}, ${d.build.jobs} jobs)`;
  out.push(
    table(
      ['database', 'customers', 'events', 'progress rows', 'ledger rows', 'pg_database_size', 'build'],
      [
        [`SMALL`, fmt(small.counts.customers), fmt(small.counts.events), fmt(small.counts.customer_progress), fmt(small.counts.points_ledger), mb(r.smallSizes.database), built(small)],
        [`LARGE`, fmt(large.counts.customers), fmt(large.counts.events), fmt(large.counts.customer_progress), fmt(large.counts.points_ledger), mb(r.largeSizes.database), built(large)],
      ],
    ),
  );
  out.push('\n');
  out.push(
    table(
      ['table', 'SMALL total', 'LARGE rows', 'LARGE heap + TOAST', 'LARGE indexes', 'LARGE total', 'LARGE bytes/row'],
      r.largeSizes.tables.map((t, i) => [
        t.table,
        mb(r.smallSizes.tables[i].total),
        fmt(large.counts[t.table] ?? t.rows),
        mb(t.heap),
        mb(t.indexes),
        mb(t.total),
        fmt(t.total / Math.max(1, large.counts[t.table] ?? t.rows)),
      ]),
    ),
  );
  out.push(`LARGE build steps: ${large.steps.map((s) => `${s.step} ${fmt(s.seconds, 1)} s`).join('; ')}\n`);
  const ws = r.workingSet;
  out.push(
    `LARGE: V2 acceptance writes at random into ${mb(ws.bytes)} (the idempotency keys' index, the customers with their external-id index, ` +
      `this month's event indexes); shared_buffers ${mb(ws.sharedBuffers)} ${ws.sharedBuffers > ws.bytes ? 'holds it' : 'does not hold it: its pages are read from the OS'}\n\n`,
  );

  // Workloads.
  const figures: Array<{ name: string; met: boolean }> = [];
  const rows = MEASURED.map((w) => {
    const [s, l] = [r.results[`${w.key} small`], r.results[`${w.key} large`]];
    const rate = (x: LoadResult) => (x.requests * w.perRequest) / x.seconds;
    const ratio = rate(l) / rate(s);
    const met = ratio >= TARGET && l.errors === 0 && s.errors === 0;
    figures.push({ name: w.name, met });
    const lat = (x: LoadResult) => `${percentile(x.latenciesMs, 50).toFixed(1)} / ${percentile(x.latenciesMs, 99).toFixed(1)}`;
    const cpu = (x: LoadResult, k: 'api' | 'postgres') => fmt((x.cpuPerRequest?.[k] ?? NaN) / w.perRequest, w.perRequest > 1 ? 1 : 0);
    const blocks = (x: LoadResult) => {
      const b = trafficPerRequest(x);
      return `${fmt(b.hit / w.perRequest, 1)}+${fmt(b.read / w.perRequest, 1)}`;
    };
    const wal = (x: LoadResult) => {
      const b = trafficPerRequest(x);
      return `${fmt(b.walBytes / w.perRequest / 1024, 1)} (${fmt(b.fpi / w.perRequest, 2)})`;
    };
    return [
      w.name,
      `${fmt(rate(s))} ${w.unit}`,
      `${fmt(rate(l))} ${w.unit}`,
      `${(ratio * 100).toFixed(0)}%`,
      `≥ ${TARGET * 100}% of SMALL`,
      met ? 'met' : 'NOT met',
      lat(s),
      lat(l),
      `${(percentile(l.latenciesMs, 99) / percentile(s.latenciesMs, 99)).toFixed(1)}×`,
      `${cpu(s, 'postgres')} / ${cpu(l, 'postgres')}`,
      `${cpu(s, 'api')} / ${cpu(l, 'api')}`,
      `${blocks(s)} / ${blocks(l)}`,
      `${wal(s)} / ${wal(l)}`,
      `${s.errors} / ${l.errors}`,
    ];
  });
  out.push(
    table(
      ['workload', 'SMALL', 'LARGE', 'LARGE / SMALL', 'target', '', 'SMALL p50 / p99 ms', 'LARGE p50 / p99 ms', 'p99 LARGE / SMALL', 'PG CPU µs SMALL / LARGE', 'API CPU µs SMALL / LARGE', 'buffers hit+read SMALL / LARGE', 'WAL kB (FPI) SMALL / LARGE', 'errors'],
      rows,
    ),
  );
  out.push(
    `${CONCURRENCY} connections, ${SECONDS} s per workload and database in ${ROUNDS} interleaved rounds; one API process per database; ` +
      `each workload's customers a quarter of the organization (c % 4), spread over it, each with its history (reads never meet a customer the writes grew); ` +
      `CPU, PostgreSQL buffers (8 kB pages hit in shared_buffers + read from the OS, pg_stat_database) and WAL written (kB, and full-page ` +
      `images, pg_stat_wal: the whole server) per request, per event for V2\n` +
      r.hotLine +
      '\n',
  );

  // EXPLAIN.
  const byName = new Map(r.explained.large.map((e) => [e.statement, e]));
  out.push(
    table(
      ['statement (EXPLAIN ANALYZE, BUFFERS, WAL; 10 customers)', 'SMALL ms', 'SMALL buffers hit / read', 'SMALL WAL B (FPI)', 'LARGE ms', 'LARGE buffers hit / read', 'LARGE WAL B (FPI)'],
      r.explained.small.map((s) => {
        const l = byName.get(s.statement);
        const cells = (e: Explained | undefined) =>
          !e
            ? ['-', '-', '-']
            : e.plan.startsWith('ERROR')
              ? [e.plan.slice(0, 60), '', '']
              : [e.ms.toFixed(3), `${fmt(e.hit, 1)} / ${fmt(e.read, 1)}`, e.walBytes ? `${fmt(e.walBytes)} (${fmt(e.fpi, 1)})` : ''];
        return [s.statement, ...cells(s), ...cells(l)];
      }),
    ),
  );
  out.push(`median execution time; buffers and WAL per execution (8 kB pages: hit in shared_buffers, read from the OS; WAL bytes and full-page images); writes rolled back\n`);
  if (process.env.BENCH_HISTORY_PLANS === '1') {
    for (const [name, plans] of [['SMALL', r.explained.small], ['LARGE', r.explained.large]] as const) {
      for (const e of plans) out.push(`\n-- ${name}: ${e.statement}\n${e.plan}\n`);
    }
  }
  out.push('\n');

  // Retention.
  let dropMet: boolean | null = null;
  if (!r.retention.available) {
    out.push(`retention drop: not available yet: ${r.retention.reason}; the figure needs the partitioned event log (issue #15), not a failure\n`);
  } else {
    const t = r.retention;
    dropMet = t.error === null && t.dropMs < DROP_TARGET_MS;
    const w = (x: typeof t.before) => `${x.requests} requests, p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms, max ${x.max.toFixed(1)} ms`;
    out.push(
      table(
        ['retention', 'value', 'target', ''],
        [
          [`${t.mode} of ${t.partition} (${fmt(t.rows)} events, ${mb(t.bytes)})`, `${fmt(t.dropMs, 1)} ms`, `< ${DROP_TARGET_MS} ms`, t.error ? 'FAILED' : dropMet ? 'met' : 'NOT met'],
          ...t.statements.map((s) => [`  ${s.sql}`, `${fmt(s.ms, 1)} ms`, '', '']),
          [`V1 p99 during the ${t.mode}`, `${t.during.p99.toFixed(1)} ms`, '', ''],
        ],
      ),
    );
    out.push(
      `V1 at ${t.rate}/s (open loop, latency from each request's due time): before ${w(t.before)}; during ${w(t.during)}; after ${w(t.after)}; ` +
        `statuses ${JSON.stringify(t.statuses)}${t.error ? `; ERROR ${t.error}` : ''}; the partition was created and filled for the measurement in ${t.fillSeconds.toFixed(1)} s\n`,
    );
  }
  const allMet = figures.every((f) => f.met) && dropMet !== false;
  out.push(
    `\nmet: ${figures.filter((f) => f.met).map((f) => f.name).join(', ') || 'none'}; NOT met: ${figures.filter((f) => !f.met).map((f) => f.name).join(', ') || 'none'}` +
      `${dropMet === null ? '' : dropMet ? '; retention drop met' : '; retention drop NOT met'}\n` +
      `expected rows: LARGE ${JSON.stringify(expectedRows(large.plan.sizes))}; total ${elapsed()}\n`,
  );
  return { text: out.join(''), allMet };
}
