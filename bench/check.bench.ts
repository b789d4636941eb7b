/**
 * The benchmark guard CI runs (`npm run bench:check`, after the tests): short runs of the ratios that matter, each
 * measured side by side with its ceiling in the same run, compared with its floor in bench/floors.json (60% of the
 * ratio a full run recorded: this machine's noise passes, a regression like the events worker's 3.5× fails):
 * - the rules engine (100 live behaviors, 1 listening) against its index lookup + counter;
 * - V1 sync against the ceiling S and against the raw pg transaction P; retrieval against P;
 * - V2 acceptance against its ceiling (the service's statement + addBulk on node:http); V2 processing by 1 worker
 *   against the raw pg transaction;
 * - a simulation replay by one worker on a small history against the engine's loop over the same events in memory;
 * - a points debit against the raw pg transaction of the same debit;
 * - one organization's others beside a hot customer of theirs (p99 and throughput against the same alone), and a
 *   burst of 1,000 V1 events of one organization (answers 200 with exact books, of 1,000).
 * Each benchmark runs on a fresh database and API process of its own, through the same phase functions as the full
 * benchmarks (their `check` options). Prints one table (ratio, floor, met / NOT met) and exits 1 when a ratio is
 * below its floor, a ratio is missing, or a ceiling FAILED (errors, or fewer rows stored than it should).
 * Env: BENCH_CHECK_SECONDS (per workload of V1, V2 and points, default 5).
 * A change that moves a ratio on purpose moves its floor in bench/floors.json in the same commit, and says why.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { freePort } from '../test/support/ports.js';
import { engineFigures, engineTable, measureEngine } from './support/engine-phase.js';
import { table } from './support/load.js';
import { runPipeline } from './support/pipeline-phase.js';
import { runPoints } from './support/points-phase.js';
import { runSimulation } from './support/simulation-phase.js';
import { type Figure } from './support/summary.js';
import { runV1 } from './support/v1-phase.js';
import { runV2 } from './support/v2-phase.js';

interface Floor {
  /** The lowest ratio (value / ceiling) that passes: 60% of `recorded`; for a time (a `×` figure), the highest: `recorded` / 0.6. */
  floor: number;
  /** The ratio the full run recorded. */
  recorded: number;
  /** What the ratio is. */
  ratio: string;
  /** The run (command, date, commit) `recorded` comes from, and why a floor moved. */
  from: string;
}

const SECONDS = Number(process.env.BENCH_CHECK_SECONDS ?? 5);
const floors = (JSON.parse(fs.readFileSync(new URL('../../bench/floors.json', import.meta.url), 'utf8')) as { floors: Record<string, Floor> }).floors;
const began = performance.now();
const log = (line: string) => process.stderr.write(`bench:check: ${line} at ${((performance.now() - began) / 1000).toFixed(0)} s\n`);

const PIPELINE_KEYS = ['pipeline.hotSameOrganizationP99', 'pipeline.hotSameOrganizationThroughput', 'pipeline.organizationBurst'];
const found = new Map<string, Figure>();
const failures: Array<{ section: string; message: string }> = [];
const outputs: string[] = [];

/** Runs one benchmark in its check form; its keyed figures are kept, a failure (a ceiling that lies) is recorded. */
async function section(name: string, keys: string[], run: () => Promise<{ output: string; figures: Figure[] }>): Promise<void> {
  log(`${name}...`);
  try {
    const { output, figures } = await run();
    outputs.push(`## ${name}\n\n${output}`);
    for (const f of figures) if (f.key && keys.includes(f.key)) found.set(f.key, f);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    failures.push({ section: name, message });
    outputs.push(`## ${name}\n\nFAILED: ${error instanceof Error ? (error.stack ?? message) : message}\n`);
    for (const key of keys) found.delete(key);
  }
  log(`${name} done`);
}

await section('engine (bench:engine)', ['engine.100x1'], async () => {
  const rows = measureEngine();
  return { output: engineTable(rows), figures: engineFigures(rows) };
});
await section('V1 and retrieval (bench:v1)', ['v1.vsS', 'v1.vsP', 'retrieval.vsP'], async () => runV1({ seconds: SECONDS, only: 'check', port: await freePort() }));
await section('V2 acceptance and processing (bench:v2)', ['v2.acceptance', 'v2.processing1'], async () =>
  runV2({ seconds: SECONDS, only: 'check', port: await freePort(), ceilingPort: await freePort() }),
);
await section('simulation replay, small history (bench:simulation)', ['simulation.vsMemory'], async () =>
  // Large enough that the replay takes seconds (a 1 s replay is mostly the worker's warm-up).
  runSimulation({ sizes: { customers: 20_000, events: 200_000 }, port: await freePort() }),
);
await section('points debit (bench:points)', ['points.debit'], async () => runPoints({ seconds: SECONDS, only: ['debit'], port: await freePort() }));
await section('pipeline: a hot customer among its organization, a burst of one organization (bench:pipeline)', PIPELINE_KEYS, async () =>
  runPipeline({ seconds: SECONDS, only: 'check', port: await freePort() }),
);

const sectionOf: Record<string, string> = {
  'engine.100x1': 'engine',
  'v1.vsS': 'V1',
  'v1.vsP': 'V1',
  'retrieval.vsP': 'V1',
  'v2.acceptance': 'V2',
  'v2.processing1': 'V2',
  'simulation.vsMemory': 'simulation',
  'points.debit': 'points',
  ...Object.fromEntries(PIPELINE_KEYS.map((key) => [key, 'pipeline'])),
};
let failed = failures.length > 0;
const rows = Object.entries(floors).map(([key, f]) => {
  const figure = found.get(key);
  const broken = failures.find((x) => x.section.toLowerCase().startsWith((sectionOf[key] ?? key).toLowerCase()));
  if (!figure || typeof figure.value !== 'number' || !figure.ceilingValue) {
    failed = true;
    return [key, f.ratio, '-', '-', broken ? 'FAILED' : 'missing', f.floor.toFixed(3), broken ? 'FAILED' : 'NOT met'];
  }
  const ratio = figure.value / figure.ceilingValue;
  // A time (× its ceiling) passes at most its floor, a rate at least. A figure whose workload errored or stored less
  // than it should fails whatever its ratio.
  const ok = (figure.ratioAs === '×' ? ratio <= f.floor : ratio >= f.floor) && !figure.broken;
  if (!ok) failed = true;
  const num = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
  return [key, f.ratio, num(figure.value), num(figure.ceilingValue), ratio.toFixed(3), f.floor.toFixed(3), ok ? 'met' : figure.broken ? `NOT met (${figure.broken})` : 'NOT met'];
});
const unknown = [...found.keys()].filter((k) => !(k in floors));
const total = (performance.now() - began) / 1000;
process.stdout.write(
  outputs.join('\n') +
    '\n## bench:check\n\n' +
    table(['key', 'ratio (value / ceiling, same run)', 'value', 'ceiling', 'ratio', 'floor', ''], rows) +
    failures.map((x) => `FAILED ${x.section}: ${x.message}\n`).join('') +
    (unknown.length ? `figures without a floor: ${unknown.join(', ')}\n` : '') +
    `floors: bench/floors.json (60% of a full run's ratio); ${SECONDS} s per workload; ${total.toFixed(0)} s; node ${process.version}\n` +
    (failed ? 'bench:check FAILED\n' : 'bench:check passed\n'),
);
if (failed) process.exitCode = 1;
