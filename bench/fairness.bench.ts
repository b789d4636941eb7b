/**
 * Issue #28, "one organization cannot slow another": two organizations on one fresh database, the API and two worker
 * processes as `npm start` runs them (WORKER_QUEUES: one for events, webhooks, audience jobs and points, one for
 * simulations). Prints, side by side in one run, what organization B (a small campaign) sees:
 * - alone: V1 sync events at 20 requests/s and single-event V2 batches at 5/s (open loops), their latencies, and the
 *   lag of B's V2 events from acceptance to processing;
 * - while organization A floods V2 at 10 × the events worker's capacity (calibrated in between on A's events), runs two
 *   simulations over its 2-year history of 200,000 stored events, sends V1 requests at the limits of docs/limits.md
 *   (100 instances of 1,024-character unique values against a campaign of 200 behaviors and 5,000 live goals) and over
 *   them (which must answer 400), while 400 requests with made-up keys knock (401, then 429).
 * Targets: B's V1 p99 loaded ≤ 2× alone, B's V2 lag p99 loaded ≤ 2,000 ms, no lock-renewal failure or stalled job in
 * the workers' logs and queues, no 5xx to B. Setup that stores nothing (A's history, B's V2 events never processed)
 * ends the run with FAILED (exit code 1).
 * Run: npm run bench:fairness (BENCH_SECONDS per phase, default 15; about 3 minutes). BENCH_FAIR_WAIT_SECONDS (45):
 * how long B's V2 events and A's simulations may take after the loaded phase; BENCH_FAIR_HISTORY: A's stored events.
 */
import { runFairness } from './support/fairness-phase.js';
import { runBench } from './support/verdict.js';

await runBench(async () => (await runFairness({ seconds: Number(process.env.BENCH_SECONDS ?? 15) })).output);
