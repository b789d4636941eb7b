/**
 * V2 events benchmark: the campaign of v1.bench.ts (10 live behaviors, 5 listening to `visit`), 10,000 customers,
 * batches of 100 events for random customers. Prints, side by side in one run:
 * - events accepted per second by the API (10 connections), with no worker and with 2 workers saturated by a backlog,
 *   next to a node:http server storing the same batches in one INSERT, then `addBulk` (the acceptance ceiling);
 * - events processed per second by 1 and 2 worker processes draining a backlog, next to the raw `pg` transaction of
 *   v1.bench.ts (the processing ceiling) and a no-op BullMQ worker taking the same number of jobs (the queue's);
 * - the lag from acceptance to processing at half the 1-worker capacity, and Redis memory and keys around the
 *   processing phases (completed jobs are removed).
 * A ceiling that errors or stores less than it should ends the run with FAILED (exit code 1), never a ratio.
 * Run: npm run bench:v2 (BENCH_SECONDS per phase, default 10; BENCH_ONLY=acceptance for acceptance and its ceiling alone).
 */
import { runV2 } from './support/v2-phase.js';
import { runBench } from './support/verdict.js';

await runBench(async () => (await runV2({ seconds: Number(process.env.BENCH_SECONDS ?? 10), only: process.env.BENCH_ONLY })).output);
