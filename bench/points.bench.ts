/**
 * Points a program runs on (issue #16), in one run on a fresh database: a debit against the raw `pg` ceiling of the
 * same transaction; V1 throughput with a budgeted campaign where 10% of events complete, against the same campaign
 * without a budget (target ≥ 90%); the expiry sweeper (one worker process) over 1,000,000 due credits: credits expired
 * per second, and V1's p99 at 100 requests/s while it runs against V1's p99 without it (target ≤ 1.5×).
 * Run: npm run bench:points (BENCH_SECONDS per workload, default 8; BENCH_ONLY=debit,budget or expiry for some parts).
 */
import { runPoints, type PointsPart } from './support/points-phase.js';
import { runBench } from './support/verdict.js';

const only = process.env.BENCH_ONLY ? (process.env.BENCH_ONLY.split(',') as PointsPart[]) : undefined;
await runBench(async () => (await runPoints({ seconds: Number(process.env.BENCH_SECONDS ?? 8), only })).output);
