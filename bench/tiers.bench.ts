/**
 * Tier policies (issue #30), in one run on a fresh database: V1 sync under a yearly period policy against V1 under
 * lifetime, side by side (target ≥ 90%); the review sweeper (one worker process) over 1,000,000 due reviews: reviews
 * per second, and V1's p99 at 100 requests/s while it runs against V1's p99 without it (target ≤ 1.5×).
 * The preview over 1,000,000 customers is `npm run bench:tiers-preview`.
 * Run: npm run bench:tiers (BENCH_SECONDS per workload, default 8; BENCH_ONLY=v1 or review for one part).
 */
import { runTiers, type TiersPart } from './support/tiers-phase.js';
import { runBench } from './support/verdict.js';

const only = process.env.BENCH_ONLY ? (process.env.BENCH_ONLY.split(',') as TiersPart[]) : undefined;
await runBench(async () => (await runTiers({ seconds: Number(process.env.BENCH_SECONDS ?? 8), only })).output);
