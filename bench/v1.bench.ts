/**
 * V1 events benchmark: a realistic campaign (10 live behaviors, 5 listening to the event sent), 10,000 customers,
 * 10 concurrent connections. Prints, side by side in one run: V1 sync events, the retrieval route, GET /health/live
 * (a Nest route that does nothing: the framework floor), the ceiling S (a plain node:http server running the service's
 * own statements and engine over raw `pg`, no framework, no auth: support/plain-server.ts) and a raw `pg` script doing
 * the same transaction shape (lock customer, upsert progress, insert event, update points) as the ceiling P,
 * interleaved in rounds so that the machine's slow spells hit them alike; then the same V1 load on a single
 * customer (lock contention) with its totals checked. Each row adds the CPU a request cost the API, PostgreSQL and
 * this process (the load generator, and the raw script itself in the raw row; S's own process is its API column).
 * A ceiling that errors or stores less than it should ends the run with FAILED (exit code 1), never a ratio.
 * Beside V1: the same load on an organization whose campaign runs a live experiment (issue #43), and its ratio to V1.
 * Run: npm run bench:v1 (BENCH_SECONDS per workload, default 10; BENCH_ONLY=v1 for V1, the experiment, S and P alone).
 */
import { runV1 } from './support/v1-phase.js';
import { runBench } from './support/verdict.js';

await runBench(async () => (await runV1({ seconds: Number(process.env.BENCH_SECONDS ?? 10), only: process.env.BENCH_ONLY })).output);
