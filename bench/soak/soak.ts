/**
 * A soak under faults (issue #31): the API (2 processes) and 2 workers on a PostgreSQL and a Redis of the soak's own,
 * every kind of traffic at once for `--minutes` (default 10), faults on a schedule drawn from `--seed` (printed: pass
 * it again to rerun the same schedule and traffic choices), then, once the traffic has stopped and the workers have
 * drained, the books checked to the point, and a report (stdout, and soak-<seed>.md in the working directory).
 * Exit code 1 when a target is not met. Run: npm run soak -- --minutes 10 [--seed 12345]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { checkBooks } from './books.js';
import { startCluster, type SoakCluster } from './cluster.js';
import { faultSchedule, runFaults } from './faults.js';
import { seeded } from './random.js';
import { startReceiver } from './receiver.js';
import { soakReport, type MemorySample } from './report.js';
import { setUpTenant, SetupApi } from './setup.js';
import { Traffic } from './traffic.js';

const CUSTOMERS = 300;
const DRAIN_MAX_MS = 10 * 60_000;
const MEMORY_EVERY_MS = 5_000;

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, seed: { type: 'string' } } });
const minutes = Number(values.minutes);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!(minutes > 0) || !Number.isInteger(seed)) throw new Error('usage: npm run soak -- --minutes <n> [--seed <integer>]');
const durationMs = Math.round(minutes * 60_000);
const log = (line: string) => process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

log(`seed ${seed}, ${minutes} minutes (rerun: npm run soak -- --minutes ${minutes} --seed ${seed})`);
const random = seeded(seed);
const cluster = await startCluster({ log, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
const receiver = await startReceiver(seeded(seed + 1));
const db = new pg.Pool({ connectionString: cluster.databaseUrl, application_name: 'soak-books', max: 2 });
db.on('error', () => undefined); // its connections are terminated with the others by a fault
let exitCode: number | undefined;
try {
  const tenant = await setUpTenant(new SetupApi(cluster.apiUrls[0], cluster.adminToken), receiver.url, seeded(seed + 2), durationMs, CUSTOMERS);
  await drained(db, cluster, 120_000, false);
  receiver.mode('flaky', 0.05, 0.02);
  const schedule = faultSchedule(random, durationMs);
  log(`faults: ${schedule.map((f) => `${(f.at / 1000).toFixed(0)}s ${f.kind}${f.target === undefined ? '' : `-${f.target}`}`).join(', ')}`);

  const traffic = new Traffic(cluster.apiUrls, tenant, seeded(seed + 3), log);
  const startedAt = Date.now();
  const stopFaults = new AbortController();
  traffic.start();
  const faults = runFaults(schedule, cluster, receiver, startedAt, log, stopFaults.signal);
  const memory: MemorySample[] = [];
  const sampling = setInterval(() => memory.push({ at: Date.now(), kb: cluster.memory() }), MEMORY_EVERY_MS);
  await sleep(durationMs);
  clearInterval(sampling);
  log('traffic stops');
  await traffic.stop();
  const endedAt = Date.now();
  stopFaults.abort();
  const windows = await faults;

  receiver.mode('ok');
  await receiver.up();
  const drainStart = Date.now();
  await drained(db, cluster, DRAIN_MAX_MS, true);
  const drainMs = Date.now() - drainStart;
  log(`drained in ${(drainMs / 1000).toFixed(1)} s; simulations rerun`);
  const simulationPairs = await rerunSimulations(cluster, tenant.key, tenant.auth, tenant.everydayId, traffic.simulations);
  await drained(db, cluster, DRAIN_MAX_MS, true);
  const books = await checkBooks(db, tenant.organizationId, traffic.sent, receiver, { simulationPairs, model: { tenant, apiUrl: cluster.apiUrls[0] } });
  const { text, met } = soakReport({ seed, minutes, startedAt, endedAt, sent: traffic.sent, skipped: traffic.skipped, windows, books, memory, drainMs });
  process.stdout.write(`\n${text}\n`);
  writeFileSync(`soak-${seed}.md`, `${text}\n`);
  exitCode = met ? 0 : 1;
} finally {
  await db.end().catch(() => undefined);
  await receiver.close();
  await cluster.stop();
}
process.exit(exitCode ?? 1);

/**
 * Waits until nothing is left to do: no event pending, no simulation queued or running and, when `deliveries`, no
 * webhook delivery open (pending or retrying). Throws after `maxMs`, naming what is left.
 */
async function drained(pool: pg.Pool, soak: SoakCluster, maxMs: number, deliveries: boolean): Promise<void> {
  const until = Date.now() + maxMs;
  let left = '';
  while (Date.now() < until) {
    const { rows } = await pool
      .query(
        `SELECT (SELECT count(*) FROM events WHERE status = 'pending')::int AS events,
                (SELECT count(*) FROM simulations WHERE status IN ('queued', 'running'))::int AS simulations,
                (SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'retrying'))::int AS deliveries`,
      )
      .catch(() => ({ rows: [{ events: -1, simulations: -1, deliveries: -1 }] }));
    const r = rows[0] as { events: number; simulations: number; deliveries: number };
    left = `${r.events} events pending, ${r.simulations} simulations running, ${r.deliveries} deliveries open`;
    if (r.events === 0 && r.simulations === 0 && (!deliveries || r.deliveries === 0)) return;
    await sleep(1000);
  }
  throw new Error(`not drained after ${maxMs / 1000} s (${soak.apiUrls.length} APIs): ${left}`);
}

/** Each completed simulation run again over the same range, after the drain: the books compare both. */
async function rerunSimulations(soak: SoakCluster, key: string, auth: string, campaignId: number, runs: Array<{ id: number; from: string; to: string }>): Promise<Array<{ original: number; rerun: number }>> {
  const api = new SetupApi(soak.apiUrls[0], soak.adminToken);
  const pairs: Array<{ original: number; rerun: number }> = [];
  for (const run of runs) {
    const created = await api.call('POST', `/priv/v1/apps/${key}/management/campaigns/${campaignId}/simulations`, auth, { simulation: { from: run.from, to: run.to } });
    pairs.push({ original: run.id, rerun: (created.simulation as { id: number }).id });
  }
  return pairs;
}
