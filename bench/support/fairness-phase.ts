/**
 * Issue #28's benchmark (see fairness.bench.ts), on a fresh database, API and worker processes of its own: B's
 * workload alone, the events worker's capacity, then B's workload again while A floods V2, simulates its history, and
 * sends requests at and over the limits, and made-up keys knock on the API. What B saw in both phases is compared.
 */
import { performance } from 'node:perf_hooks';
import { Queue } from 'bullmq';
import pg from 'pg';
import { QueueName } from '../../src/queues/queue-names.js';
import { cpuBetween, cpuSnapshot } from './cpu.js';
import { badAuthLoad, bRequests, probeKeys, B_V1_RATE, B_V2_RATE, count, eventsAfter, floodBodies, floodRequest, FLOOD_BATCH, is2xx, limitLoad, limitRequests, maxId, v2Lag } from './fairness-loads.js';
import { fairnessReport, type Measured, type PhaseResult } from './fairness-report.js';
import { setUpA, setUpB, type OrgA } from './fairness-setup.js';
import { startWorkers, type Workers } from './fairness-workers.js';
import { openLoop } from './open-loop.js';
import { stopAll } from './processes.js';
import { startServer } from './server.js';
import type { Figure } from './summary.js';
import { BenchFailed } from './verdict.js';

/** A's flood offers this many times the events worker's capacity. */
const FLOOD_FACTOR = 10;
/** After a phase, how long B's V2 events (and A's simulations) may still take: past it, they count as they are. */
const WAIT_MS = Number(process.env.BENCH_FAIR_WAIT_SECONDS ?? 45) * 1000;
const WARM_UP_SECONDS = 3;
/** A's loads of the loaded phase (BENCH_FAIR_LOADS, comma-separated; all by default): to tell which one costs B what. */
const LOADS = new Set((process.env.BENCH_FAIR_LOADS ?? 'flood,simulations,limits,keys').split(',').map((l) => l.trim()));
const none = { scheduled: 0, statuses: {}, latenciesMs: [], maxSendDelayMs: 0, seconds: 0 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface FairnessOptions {
  /** Per phase. */
  seconds: number;
  port?: number;
}

/** Answers the text fairness.bench.ts prints and the figures of the summary table. */
export async function runFairness({ seconds, port = 3970 }: FairnessOptions): Promise<{ output: string; figures: Figure[] }> {
  const began = performance.now();
  const progress = (step: string) => process.stderr.write(`fairness bench: ${step} at ${((performance.now() - began) / 1000).toFixed(0)} s\n`);
  const server = await startServer(port);
  const database = new URL(server.databaseUrl).pathname.slice(1);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: 6 });
  const queue = new Queue(QueueName.Events, { connection: { url: server.env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null }, prefix: server.env.QUEUE_PREFIX });
  let workers: Workers | undefined;
  try {
    const b = await setUpB(server.url, db);
    const a = await setUpA(server.url, db);
    progress(`setup (A: ${a.behaviors} behaviors, ${a.goals} live goals, ${a.history.events} stored events in ${a.history.seconds.toFixed(0)} s)`);
    workers = await startWorkers(server.env);
    const w = workers;
    const bReq = bRequests(server.url, b);
    const bLoads = (s: number) => Promise.all([openLoop(bReq.v1, B_V1_RATE, s), openLoop(bReq.v2, B_V2_RATE, s)]);
    const cpu = () => ({ server: server.cpu(), workers: w.processes.map((p) => cpuSnapshot([p.pid!], database)) });
    const dbNow = async () => (await db.query(`SELECT clock_timestamp() AS at`)).rows[0].at as Date;

    /** B's workload for `seconds` beside `other`, then B's V2 lag (waiting at most WAIT_MS) and what was stored. */
    const phase = async <T>(other: (s: number) => Promise<T>): Promise<PhaseResult & { other: T }> => {
      const from = await maxId(db);
      const [before, startedAt] = [cpu(), await dbNow()];
      const [[v1, v2], extra] = await Promise.all([bLoads(seconds), other(seconds)]);
      const [after, endedAt] = [cpu(), await dbNow()];
      const lag = await v2Lag(db, b.tenant.organizationId, from, WAIT_MS);
      const cpuSeconds = {
        api: cpuBetween(before.server.api, after.server.api),
        postgres: cpuBetween(before.server.postgres, after.server.postgres),
        workers: after.workers.map((s, i) => cpuBetween(before.workers[i].api, s.api)),
        bench: after.server.bench - before.server.bench,
      };
      return { from, startedAt, endedAt, v1, v2, lag, stored: await eventsAfter(db, b.tenant.organizationId, from), cpuSeconds, other: extra };
    };

    await bLoads(WARM_UP_SECONDS); // JIT, pools, rules cache: not counted
    const alone = await phase(async () => undefined);
    if (alone.lag.processed === 0) throw new BenchFailed([`none of B's ${alone.lag.events} V2 events was processed with B alone (${WAIT_MS / 1000} s)`]);
    const perQueue = await w.perQueue(); // after the phase: every worker connection is up by now
    progress('alone');

    const calibration = await calibrate(server.url, db, queue, a);
    progress(`calibration (${Math.round(calibration.capacity)} events/s)`);

    const floodRate = (FLOOD_FACTOR * calibration.capacity) / FLOOD_BATCH;
    const flood = floodRequest(server.url, a, floodBodies(100));
    const limits = limitRequests(server.url, a);
    const aFrom = await maxId(db);
    const simulations = LOADS.has('simulations') ? await startSimulations(server.url, a) : [];
    const tenants = { A: a.tenant, B: b.tenant };
    const loaded = await phase((s) =>
      Promise.all([
        LOADS.has('flood') ? openLoop(flood, floodRate, s, 30_000) : Promise.resolve(none),
        LOADS.has('limits') ? limitLoad(limits, s) : Promise.resolve(Object.fromEntries(Object.keys(limits).map((k) => [k, none])) as unknown as Awaited<ReturnType<typeof limitLoad>>),
        LOADS.has('keys') ? badAuthLoad(server.url, s) : Promise.resolve(none),
        probeKeys(server.url, tenants, s),
      ]),
    );
    const [floodResult, limitResults, badAuth, probes] = loaded.other;
    const aProcessed = Number(
      (
        await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND id > $2 AND processed_at BETWEEN $3 AND $4`, [
          a.tenant.organizationId,
          aFrom,
          loaded.startedAt,
          loaded.endedAt,
        ])
      ).rows[0].n,
    );
    const aStored = await eventsAfter(db, a.tenant.organizationId, aFrom);
    const floodStored = Object.entries(aStored).reduce((n, [k, c]) => n + (k.startsWith('v2 ') ? c : 0), 0);
    if (LOADS.has('flood') && (count(floodResult, is2xx) === 0 || floodStored === 0)) throw new BenchFailed([`A's flood stored nothing (${JSON.stringify(floodResult.statuses)}): the phase was not loaded`]);
    const simulationStates = await waitForSimulations(db, simulations, loaded.endedAt.getTime() + WAIT_MS);
    progress('loaded');

    const measured: Measured = {
      seconds,
      a,
      b,
      perQueue,
      alone,
      loaded,
      calibration,
      flood: { result: floodResult, rate: floodRate * FLOOD_BATCH, stored: floodStored, processedDuringPhase: aProcessed, storedByStatus: aStored },
      limits: limitResults,
      badAuth,
      probes,
      simulations: simulationStates,
      health: w.health,
      waitSeconds: WAIT_MS / 1000,
    };
    return fairnessReport(measured);
  } finally {
    try {
      await stopAll();
      await Promise.allSettled([workers?.close(), queue.close(), db.end()]);
    } finally {
      await server.stop();
    }
  }
}

export interface Calibration {
  events: number;
  seconds: number;
  capacity: number;
}

/**
 * The events worker's capacity on A's flood events: one batch to warm it up (A's rules compiled, connections), then a
 * backlog of about 3 seconds of work (sized on the warm-up) queued while the queue is paused, timed from resuming it to
 * the last event's processed_at.
 */
async function calibrate(url: string, db: pg.Pool, queue: Queue, a: OrgA): Promise<Calibration> {
  const [body] = floodBodies(1);
  const post = async () => {
    const res = await fetch(`${url}/priv/v2/apps/${a.tenant.key}/events`, { method: 'POST', headers: { authorization: a.tenant.auth, 'content-type': 'application/json' }, body });
    if (res.status !== 200) throw new Error(`calibration batch not accepted: ${res.status} ${(await res.text()).slice(0, 300)}`);
  };
  const pending = async (from: number) => Number((await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND id > $2 AND status = 'pending'`, [a.tenant.organizationId, from])).rows[0].n);
  const drained = async (from: number) => {
    for (const deadline = performance.now() + 60_000; (await pending(from)) > 0; await sleep(50)) {
      if (performance.now() > deadline) throw new BenchFailed([`calibration: A's events still pending after 60 s`]);
    }
  };
  const warmFrom = await maxId(db);
  const warmStart = performance.now();
  await post();
  await drained(warmFrom);
  const rough = FLOOD_BATCH / ((performance.now() - warmStart) / 1000);
  const batches = Math.min(40, Math.max(2, Math.round((rough * 3) / FLOOD_BATCH)));
  await queue.pause();
  const from = await maxId(db);
  try {
    for (let i = 0; i < batches; i += 1) await post();
  } finally {
    await queue.resume();
  }
  const started = Date.now();
  await drained(from);
  const end = (await db.query(`SELECT max(processed_at) AS at FROM events WHERE organization_id = $1 AND id > $2`, [a.tenant.organizationId, from])).rows[0].at as Date;
  const events = batches * FLOOD_BATCH;
  const seconds = Math.max(0.001, (end.getTime() - started) / 1000);
  return { events, seconds, capacity: events / seconds };
}

/** Two simulations of A's draft campaign over its whole history, created over HTTP; answers their ids. */
async function startSimulations(url: string, a: OrgA): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < 2; i += 1) {
    const res = await fetch(`${url}/priv/v1/apps/${a.tenant.key}/management/campaigns/${a.draftId}/simulations`, {
      method: 'POST',
      headers: { authorization: a.tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ simulation: { from: a.history.from.toISOString(), to: a.history.to.toISOString() } }),
    });
    if (res.status !== 202) throw new BenchFailed([`simulation not created: ${res.status} ${(await res.text()).slice(0, 300)}`]);
    ids.push(((await res.json()) as { simulation: { id: number } }).simulation.id);
  }
  return ids;
}

export interface SimulationState {
  id: number;
  status: string;
  eventsReplayed: number;
  seconds: number | null;
  error: string | null;
}

/** Waits until the simulations have finished, or `deadline` (epoch ms); answers their rows as they are. */
async function waitForSimulations(db: pg.Pool, ids: number[], deadline: number): Promise<SimulationState[]> {
  const read = async () =>
    (
      await db.query(
        `SELECT id, status, events_replayed, error, extract(epoch FROM completed_at - started_at)::float8 AS seconds FROM simulations WHERE id = ANY($1) ORDER BY id`,
        [ids],
      )
    ).rows.map((r) => ({ id: Number(r.id), status: r.status as string, eventsReplayed: Number(r.events_replayed), seconds: r.seconds as number | null, error: r.error as string | null }));
  let rows = await read();
  while (rows.some((r) => r.status === 'queued' || r.status === 'running') && Date.now() < deadline) {
    await sleep(250);
    rows = await read();
  }
  return rows;
}
