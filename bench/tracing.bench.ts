/**
 * The cost of traces (issue #32): V1 sync events against API processes side by side in one run, on one database,
 * interleaved in rounds: tracing off; tracing on as shipped, sampled at 10% (OTEL_TRACES_SAMPLER=
 * parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=0.1) and exporting OTLP to a local receiver; and the same without
 * pg's instrumentation (OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg). Target: on ≥ 85% of off, printed for both.
 * A side that errors or stores fewer events than it answered, or a traced side that exports nothing, ends the run
 * with FAILED (exit code 1), never a ratio.
 * Run: npm run bench:tracing (BENCH_SECONDS per side, default 20; BENCH_TRACING_ENV, a JSON object of variables for the
 * traced APIs, tries another setting, e.g. '{"OTEL_TRACES_SAMPLER":"always_off"}').
 */
import { runTracing } from './support/tracing-phase.js';
import { runBench } from './support/verdict.js';

await runBench(async () => (await runTracing({ seconds: Number(process.env.BENCH_SECONDS ?? 20) })).output);
