/**
 * Simulations (issue #17), in one run on a fresh database: 1,000,000 stored events of 100,000 customers over the last
 * 28 days (written with SQL), a draft campaign of four behaviors (a count goal, a unique goal on store_id, a streak, a
 * weekly cap) simulated over the whole range by one worker process: events replayed per second (the row's
 * events_replayed / (completed_at − started_at)), against the engine's own loop over the same events in memory (the
 * ceiling), the worker's RSS along the run, and the simulation's results against the in-memory loop's.
 * Targets: ≥ 100,000 events/s, ≥ 30% of the ceiling, memory flat.
 * Run: npm run bench:simulation (about 2 minutes). BENCH_SIM_CUSTOMERS and BENCH_SIM_EVENTS change the sizes;
 * BENCH_PROFILE=1 runs the worker under `node --cpu-prof` (profile in BENCH_PROFILE_DIR, default /tmp/prof) and
 * prints where its time went.
 */
import { runSimulation } from './support/simulation-phase.js';
import { runBench } from './support/verdict.js';

await runBench(
  async () =>
    (
      await runSimulation({
        sizes: { customers: Number(process.env.BENCH_SIM_CUSTOMERS ?? 100_000), events: Number(process.env.BENCH_SIM_EVENTS ?? 1_000_000) },
        profileDir: process.env.BENCH_PROFILE === '1' ? (process.env.BENCH_PROFILE_DIR ?? '/tmp/prof') : undefined,
      })
    ).output,
);
