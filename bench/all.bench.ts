/**
 * Every benchmark of bench/ in one run: the rules engine, V1 sync events and retrieval, issue #13's hot customer and
 * cold-cache bursts, V2 acceptance, processing and lag, points (debits, budgets, expiry), and simulations (issue #17's
 * replay of 1,000,000 stored events by one worker), each next to the ceiling measured in the same run (the raw
 * `pg` transaction P, the service's own statements on node:http S, a Nest route that does nothing, the same traffic without the hot customer, the acceptance
 * ceiling of one INSERT + addBulk on node:http, the no-op BullMQ worker, the engine's index lookup, the engine's replay
 * loop over the same events in memory), then issue #28's fairness (one organization's small workload alone and while
 * another floods the service: B against itself). V1, the pipeline phase, V2, points, simulations and fairness each get
 * a freshly created database and API process, dropped and stopped at the end (even on failure). Prints each benchmark's own tables as it ends, then one summary table:
 * figure, value, ceiling, ratio and the issue's target, and the total time.
 * Run: npm run bench (BENCH_SECONDS per phase of V1, the pipeline phase, V2, points and fairness, default 8: about 22
 * minutes on a 2-core machine).
 */
import { performance } from 'node:perf_hooks';
import { engineFigures, engineTable, measureEngine } from './support/engine-phase.js';
import { runFairness } from './support/fairness-phase.js';
import { runPipeline } from './support/pipeline-phase.js';
import { runPoints } from './support/points-phase.js';
import { runSimulation } from './support/simulation-phase.js';
import { figuresTable, type Figure } from './support/summary.js';
import { runV1 } from './support/v1-phase.js';
import { runV2 } from './support/v2-phase.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const began = performance.now();
const figures: Figure[] = [];
const durations: string[] = [];
let failed = false;

/** Runs one benchmark, prints its tables, keeps its figures; a failure is printed and the next benchmark still runs. */
async function section(title: string, run: () => Promise<{ output: string; figures: Figure[] }>): Promise<void> {
  const start = performance.now();
  process.stderr.write(`bench: ${title}...\n`);
  try {
    const result = await run();
    process.stdout.write(`\n## ${title}\n\n${result.output}`);
    figures.push(...result.figures);
  } catch (error) {
    failed = true;
    process.stdout.write(`\n## ${title}\n\nFAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    figures.push({ figure: `${title}: FAILED`, value: '-', unit: '' });
  }
  durations.push(`${title} ${((performance.now() - start) / 1000).toFixed(0)} s`);
}

await section('Rules engine (bench:engine)', async () => {
  const rows = measureEngine();
  return { output: engineTable(rows), figures: engineFigures(rows) };
});
await section('Events V1 and retrieval (bench:v1)', () => runV1({ seconds: SECONDS }));
await section('One evaluation pipeline: hot customer, cold-cache bursts (bench:pipeline)', () => runPipeline({ seconds: SECONDS }));
await section('Events V2 and the workers (bench:v2)', () => runV2({ seconds: SECONDS }));
await section('Points: debits, budgets, expiry (bench:points)', () => runPoints({ seconds: SECONDS }));
await section('Simulations: replay of stored events (bench:simulation)', () => runSimulation());
await section('One organization cannot slow another (bench:fairness)', () => runFairness({ seconds: SECONDS }));

const total = (performance.now() - began) / 1000;
process.stdout.write(
  `\n## Summary\n\n${figuresTable(figures)}` +
    `ratio: % of the ceiling for rates, × the ceiling for times and costs; engine on one core, V1, pipeline and V2 ${SECONDS}s per phase, ` +
    `each on a fresh database; node ${process.version}\n` +
    `total ${Math.floor(total / 60)} min ${Math.round(total % 60)} s (${durations.join(', ')})\n`,
);
if (failed) process.exitCode = 1;
