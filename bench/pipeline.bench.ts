/**
 * Issue #13 ("One evaluation pipeline") benchmark: a hot customer (50 connections on one customer) next to V1
 * traffic for 10,000 others, measured in rounds against the same traffic alone, then cold-cache bursts (100 V1 events
 * at once right after a behavior is created), each burst's statuses and every customer's points checked.
 * Run: npm run bench:pipeline (BENCH_SECONDS per workload, default 8; BENCH_BURSTS, default 4).
 */
import { runPipeline } from './support/pipeline-phase.js';
import { runBench } from './support/verdict.js';

await runBench(async () => (await runPipeline({ seconds: Number(process.env.BENCH_SECONDS ?? 8) })).output);
