/**
 * The event log's migration to monthly partitions (1764800000000) on a populated log, at the size bench:history
 * builds: its kept LARGE database (`BENCH_KEEP_HISTORY=1 npm run bench:history` first) is migrated back to one table,
 * then forward again. The forward run is the outage of that upgrade (the API and workers are stopped for it:
 * docs/operations.md). Every event, idempotency key and id is checked after each direction; the database ends as it
 * began, so bench:history can use it again.
 * Run: npm run bench:migration
 * Env: BENCH_MIGRATION_DATABASE (ce_bench_history_large).
 */
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { migrations } from '../migrations/index.js';
import { PartitionedEventLog1764800000000 } from '../migrations/1764800000000-partitioned-event-log.js';
import { dataSourceOptions } from '../src/database/data-source.js';
import { databaseExists, databaseUrl } from './support/history-server.js';
import { table } from './support/load.js';

const NAME = process.env.BENCH_MIGRATION_DATABASE ?? 'ce_bench_history_large';
const log = (line: string) => process.stderr.write(`migration bench: ${line}\n`);
const through = migrations.slice(0, migrations.indexOf(PartitionedEventLog1764800000000) + 1);

interface Facts {
  events: number;
  keys: number;
  maxId: number;
  checksum: string;
  partitioned: boolean;
  bytes: number;
}

/** What must survive both directions: the events (a checksum of id, time and key), the keys, the ids. */
async function facts(db: DataSource): Promise<Facts> {
  const [row] = await db.query(
    `SELECT count(*)::bigint AS events, coalesce(max(id), 0)::bigint AS max_id,
            sum(hashtext(id::text || ':' || occurred_at::text || ':' || coalesce(transaction_id, ''))::bigint)::text AS checksum,
            count(transaction_id)::bigint AS keys,
            EXISTS (SELECT 1 FROM pg_partitioned_table WHERE partrelid = 'events'::regclass) AS partitioned,
            (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('events'::regclass))::bigint AS bytes
       FROM events`,
  );
  return { events: Number(row.events), keys: Number(row.keys), maxId: Number(row.max_id), checksum: row.checksum, partitioned: row.partitioned, bytes: Number(row.bytes) };
}

async function timed(label: string, run: () => Promise<unknown>): Promise<number> {
  log(`${label}...`);
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  log(`${label}: ${seconds.toFixed(1)} s`);
  return seconds;
}

if (!(await databaseExists(NAME))) {
  process.stderr.write(`migration bench: no database ${NAME}: run BENCH_KEEP_HISTORY=1 npm run bench:history first\n`);
  process.exit(1);
}
const all = new DataSource(dataSourceOptions(databaseUrl(NAME), 2));
const partitioning = new DataSource({ ...dataSourceOptions(databaseUrl(NAME), 2), migrations: through });
await all.initialize();
await partitioning.initialize();
try {
  const before = await facts(all);
  if (!before.partitioned) throw new Error(`${NAME} is not partitioned: migrate it first (npm run migration:run)`);
  log(`${NAME}: ${before.events.toLocaleString('en-US')} events, ${(before.bytes / 1024 ** 3).toFixed(2)} GB with indexes`);
  const rows: string[][] = [];
  // Back: the migrations after the partitioning, then the partitioning itself.
  let back = 0;
  while ((await all.query(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`))[0].name !== through[through.length - 2].name) {
    const last = (await all.query(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`))[0].name as string;
    back += await timed(`down ${last}`, () => all.undoLastMigration({ transaction: 'each' }));
  }
  await all.query('VACUUM ANALYZE events');
  await all.query('CHECKPOINT');
  const unpartitioned = await facts(all);
  const sameBack = unpartitioned.checksum === before.checksum && !unpartitioned.partitioned;
  rows.push(['down to one table', `${back.toFixed(1)} s`, unpartitioned.events.toLocaleString('en-US'), sameBack ? 'same events' : 'DIFFERENT']);
  // Forward: the partitioning alone (the outage), then the rest.
  const up = await timed('up 1764800000000 (the partitioning)', () => partitioning.runMigrations({ transaction: 'each' }));
  const rest = await timed('up the migrations after it', () => all.runMigrations({ transaction: 'each' }));
  const after = await facts(all);
  const [{ keys }] = await all.query(`SELECT count(*)::bigint AS keys FROM event_transactions`);
  const sameUp = after.checksum === before.checksum && after.partitioned && Number(keys) === after.keys;
  rows.push(['up 1764800000000: partitions, copy, idempotency keys', `${up.toFixed(1)} s`, after.events.toLocaleString('en-US'), sameUp ? 'same events and keys' : 'DIFFERENT']);
  rows.push(['up the migrations after it', `${rest.toFixed(1)} s`, '', '']);
  process.stdout.write(
    `Migrating a populated event log (${NAME}): ${before.events.toLocaleString('en-US')} events, ${before.keys.toLocaleString('en-US')} with a transaction id, ` +
      `${(before.bytes / 1024 ** 3).toFixed(2)} GB with indexes\n` +
      table(['step', 'time', 'events after', 'check'], rows) +
      `the partitioning: ${((up / before.events) * 1e6).toFixed(1)} s per million events\n`,
  );
  if (!sameBack || !sameUp) process.exitCode = 1;
} finally {
  await partitioning.destroy();
  await all.destroy();
}
