/**
 * Issue #17's benchmark, on a fresh database and API process of its own (see simulation.bench.ts): a campaign's
 * simulation over 1,000,000 stored events of 100,000 customers replayed by one real worker process, against the
 * engine's own rate on the same events in memory (the ceiling), with the worker's memory sampled along the run and the
 * simulation's results checked against the in-memory loop's.
 */
import fs from 'node:fs';
import pg from 'pg';
import { table } from './load.js';
import { bootstrap, startServer } from './server.js';
import { buildSimulationData, createDraftCampaign, SIMULATED_BEHAVIORS, WINDOW_DAYS, type SimulationSizes } from './simulation-data.js';
import { canonical, readReplay, REPLAY_PAGE, replayInMemory, replaySetup, type CeilingPass, type ReadResult } from './simulation-replay.js';
import { newestProfile, rssAt, rssBytes, startWorker, summarizeProfile, watchSimulation } from './simulation-worker.js';
import { stopChild } from './processes.js';
import { cpuSnapshot, cpuBetween } from './cpu.js';
import { fmt, figuresTable, type Figure } from './summary.js';
import { checkTallies, tallyLines, type Tally } from './verdict.js';

/** The issue's targets. */
export const TARGET_RATE = 100_000;
export const TARGET_RATIO = 0.3;
/** "Memory flat": the worker's RSS at the end of the run within this of its RSS at 10% of the events. */
export const FLAT_MARGIN_MB = 64;
/** Passes of the in-memory loop: the first warms the engine up; the ceiling is the fastest. */
const CEILING_PASSES = 3;

export interface SimulationOptions {
  sizes?: SimulationSizes;
  port?: number;
  /** A directory for the worker's V8 CPU profile (`node --cpu-prof`); none by default. */
  profileDir?: string;
}

const MB = 1024 * 1024;
const mb = (bytes: number | null | undefined) => (bytes === null || bytes === undefined ? '-' : `${(bytes / MB).toFixed(0)} MB`);
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
const rate = (events: number, seconds: number) => events / seconds;

export async function runSimulation({ sizes = { customers: 100_000, events: 1_000_000 }, port = 3960, profileDir }: SimulationOptions = {}): Promise<{ output: string; figures: Figure[] }> {
  const log = (line: string) => process.stderr.write(`bench:simulation: ${line}\n`);
  const server = await startServer(port);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: 4 });
  const database = new URL(server.databaseUrl).pathname.slice(1);
  try {
    // 1. The data: organization and draft campaign through the API, customers and events with SQL.
    const tenant = await bootstrap(server.url, 'Replayed');
    const campaignId = await createDraftCampaign(server.url, tenant);
    log(`building ${fmt(sizes.customers)} customers and ${fmt(sizes.events)} events over ${WINDOW_DAYS} days`);
    const data = await buildSimulationData(db, tenant, sizes, { log });
    const setup = await replaySetup(db, tenant.organizationId, campaignId, data.from, data.to);

    // 2. The ceiling: the same events and customers read into memory first (not timed), then the engine's loop alone.
    log('reading the events into memory (not timed)');
    const loaded = await readReplay(db, setup.scope, true);
    const { events, snapshots } = loaded.kept!;
    const passes: CeilingPass[] = [];
    for (let i = 0; i < CEILING_PASSES; i += 1) {
      passes.push(replayInMemory(setup, events, snapshots));
      log(`in-memory pass ${i + 1}: ${fmt(rate(passes[i].events, passes[i].seconds))} events/s`);
    }
    const best = passes.reduce((a, b) => (rate(b.events, b.seconds) > rate(a.events, a.seconds) ? b : a));
    const ceiling = rate(best.events, best.seconds);
    const passesAgree = passes.every((p) => canonical(p.results) === canonical(best.results));
    // The ceiling must replay every event read (a pass that skips them all would be fast and wrong): errors are the
    // passes that disagree with the fastest.
    const ceilingTally: Tally = {
      name: 'engine over the events in memory',
      role: 'ceiling',
      errors: passes.filter((p) => canonical(p.results) !== canonical(best.results)).length,
      stored: best.events,
      expected: loaded.events,
      unit: 'events replayed',
    };
    checkTallies([ceilingTally]);
    events.length = 0; // the worker's run should not share the machine with a collector walking a million events
    snapshots.clear();

    // 3. Reading alone: the worker's reads (cursor pages, customers) with no engine.
    log('reading alone (the cursor, no engine)');
    const reading: ReadResult = await readReplay(db, setup.scope, false);

    // 4. The replay by one worker process: the simulation created through the API, its row watched.
    log(`replay by one worker process${profileDir ? ` (CPU profile in ${profileDir})` : ''}`);
    const profileSince = Date.now();
    if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
    const worker = await startWorker(server.env, profileDir);
    let watched: Awaited<ReturnType<typeof watchSimulation>>;
    let idleRss: number | null;
    let cpu: { worker: number; postgres: number };
    try {
      await new Promise((r) => setTimeout(r, 1000));
      idleRss = rssBytes(worker.pid!);
      const before = cpuSnapshot([worker.pid!], database);
      const res = await fetch(`${server.url}/priv/v1/apps/${tenant.key}/management/campaigns/${campaignId}/simulations`, {
        method: 'POST',
        headers: { authorization: tenant.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ simulation: { from: data.from.toISOString(), to: data.to.toISOString() } }),
      });
      if (res.status !== 202) throw new Error(`simulation not created: ${res.status} ${await res.text()}`);
      const { simulation } = (await res.json()) as { simulation: { id: number } };
      watched = await watchSimulation(db, simulation.id, worker.pid!);
      const after = cpuSnapshot([worker.pid!], database);
      cpu = { worker: cpuBetween(before.api, after.api), postgres: cpuBetween(before.postgres, after.postgres) };
    } finally {
      await stopChild(worker, 30_000);
    }
    const { samples, finished } = watched;
    if (finished.status !== 'completed') throw new Error(`simulation ${finished.status}: ${finished.error ?? ''}`);

    // 5. The figures.
    const replayRate = rate(finished.eventsReplayed, finished.seconds);
    const ratio = replayRate / ceiling;
    const at10 = rssAt(samples, finished.eventsReplayed, 0.1);
    const at50 = rssAt(samples, finished.eventsReplayed, 0.5);
    const running = samples.filter((s) => s.status === 'running' && s.rss !== null);
    const atEnd = running.at(-1) ?? null;
    const afterEnd = samples.find((s) => s.status === 'completed') ?? null;
    const peak = Math.max(...running.map((s) => s.rss!));
    const growth = at10 && atEnd ? (atEnd.rss! - at10.rss!) / MB : NaN;
    const flat = Number.isFinite(growth) && growth <= FLAT_MARGIN_MB;
    const equal = canonical(finished.results) === canonical(best.results) && finished.eventsReplayed === best.events && finished.customers === best.customers;
    const results = finished.results as { points: number; achievements: number; customers_achieved: number; behaviors: Record<string, { achievements: number; points: number }> };
    const readRate = rate(reading.events, reading.seconds);
    const predicted = 1 / (1 / readRate + 1 / ceiling);

    const tallies: Tally[] = [
      { name: 'simulation replay by the worker', role: 'workload', errors: finished.status === 'completed' ? 0 : 1, stored: finished.eventsReplayed, expected: best.events, unit: 'events replayed' },
      ceilingTally,
    ];
    const figures: Figure[] = [
      { figure: 'simulation replay, 1 worker process', value: replayRate, unit: 'events/s', target: `≥ ${fmt(TARGET_RATE)} events/s`, met: replayRate >= TARGET_RATE },
      {
        figure: 'simulation replay vs the engine in memory',
        key: 'simulation.vsMemory',
        ...(equal ? {} : { broken: 'the simulation results differ from the in-memory loop' }),
        value: replayRate,
        unit: 'events/s',
        ceiling: 'the same loop over events in memory',
        ceilingValue: ceiling,
        target: `≥ ${TARGET_RATIO * 100}% of ceiling`,
        met: ratio >= TARGET_RATIO && finished.eventsReplayed === best.events,
      },
      {
        figure: 'worker RSS at the end of the replay',
        value: atEnd?.rss ? atEnd.rss / MB : NaN,
        unit: 'MB',
        ceiling: 'RSS at 10% of the events',
        ceilingValue: at10?.rss ? at10.rss / MB : undefined,
        ratio: Number.isFinite(growth) ? `${growth >= 0 ? '+' : ''}${growth.toFixed(0)} MB` : '',
        target: `flat (≤ +${FLAT_MARGIN_MB} MB)`,
        met: flat,
      },
      { figure: 'simulation results = the in-memory loop’s', value: equal ? 'equal' : 'DIFFERENT', unit: '', target: 'equal', met: equal },
    ];
    const output =
      figuresTable(figures) +
      '\n' +
      table(['measurement', 'value'], [
        ['data', `${fmt(data.customers)} customers, ${fmt(data.events)} events (${fmt(loaded.events)} in the range, ${fmt(loaded.customers)} customers with events) over ${WINDOW_DAYS} days; events table ${mb(data.eventsBytes)}`],
        ['build (SQL, never the API)', `${data.buildSeconds.toFixed(1)} s: ${data.steps.map((s) => `${s.step} ${s.seconds.toFixed(1)} s`).join(', ')}${data.partitionsCreated.length ? `; partitions created: ${data.partitionsCreated.join(', ')}` : ''}`],
        ['campaign (draft, simulated live over the range)', `${SIMULATED_BEHAVIORS.length} behaviors: ${SIMULATED_BEHAVIORS.map((b) => b.name).join(', ')}`],
        ['replay by the worker', `${fmt(finished.eventsReplayed)} events, ${fmt(finished.customers)} customers in ${finished.seconds.toFixed(2)} s (completed_at − started_at): ${fmt(replayRate)} events/s`],
        ['CPU over the replay', `worker ${cpu.worker.toFixed(1)} s (${((cpu.worker / finished.seconds) * 100).toFixed(0)}% of a core), PostgreSQL ${cpu.postgres.toFixed(1)} s; per event: worker ${((cpu.worker * 1e6) / finished.eventsReplayed).toFixed(1)} µs, PostgreSQL ${((cpu.postgres * 1e6) / finished.eventsReplayed).toFixed(1)} µs`],
        ['ceiling: the engine over the events in memory', `${passes.map((p) => `${fmt(rate(p.events, p.seconds))}`).join(', ')} events/s (${CEILING_PASSES} passes, the fastest kept; passes ${passesAgree ? 'agree' : 'DISAGREE'}): ${((best.seconds * 1e6) / best.events).toFixed(2)} µs per event`],
        [
          'reading alone (cursor pages with their profiles, no engine)',
          `${fmt(readRate)} events/s: ${reading.seconds.toFixed(2)} s, of which waiting for pages ${reading.fetchSeconds.toFixed(2)} s (${reading.pages} pages of up to ${fmt(REPLAY_PAGE.customer)} customers, the first ${reading.firstPageSeconds.toFixed(2)} s)`,
        ],
        ['reading + engine, one after the other (predicted)', `${fmt(predicted)} events/s (the worker's replay: ${((replayRate / predicted) * 100).toFixed(0)}% of it)`],
        [
          'worker RSS (VmRSS every 250 ms)',
          `idle ${mb(idleRss)}; at 10% ${mb(at10?.rss)} (${fmt(at10?.eventsReplayed ?? NaN)} events), 50% ${mb(at50?.rss)} (${fmt(at50?.eventsReplayed ?? NaN)}), end ${mb(atEnd?.rss)} (${fmt(atEnd?.eventsReplayed ?? NaN)}, last sample while running), after completion ${mb(afterEnd?.rss)}; peak ${mb(peak)}; ${samples.length} samples`,
        ],
        [
          'results',
          `${fmt(results.achievements)} achievements, ${fmt(results.points)} points, ${fmt(results.customers_achieved)} customers achieved; ` +
            Object.entries(results.behaviors)
              .map(([name, b]) => `${name} ${fmt(b.achievements)}`)
              .join(', ') +
            ` (${equal ? 'equal to' : 'DIFFERENT from'} the in-memory loop's)`,
        ],
      ]) +
      `targets: ≥ ${fmt(TARGET_RATE)} events/s (${met(replayRate >= TARGET_RATE)}); ≥ ${TARGET_RATIO * 100}% of the ceiling (${(ratio * 100).toFixed(0)}%: ${met(ratio >= TARGET_RATIO)}); ` +
      `memory flat, RSS at the end ≤ RSS at 10% + ${FLAT_MARGIN_MB} MB (${met(flat)}); node ${process.version}\n` +
      tallyLines(tallies) +
      (profileDir ? profileOutput(profileDir, profileSince) : '');
    return { output, figures };
  } finally {
    await db.end();
    await server.stop();
  }
}

function profileOutput(dir: string, since: number): string {
  const file = newestProfile(dir, since);
  if (!file) return `no CPU profile found in ${dir}\n`;
  return summarizeProfile(file, 'run', 'run-simulation.use-case', [
    'evaluate@src/engine/evaluate',
    'localParts@src/engine/time',
    'iso@src/engine/time',
    'add@simulations/simulation-results',
    'loadCustomers@simulations/run-simulation',
    'replayEvent@event-log.repository',
    'parseRow@pg/lib/result',
  ]);
}
