import { startTracing } from './tracing.js';

/**
 * The worker's entry point. Tracing starts first, when configured (src/tracing.ts): it patches only the modules loaded
 * after it has started, so the process itself (src/worker-process.ts) is imported once it has started.
 */
await startTracing('campaign-engine-worker');
await import('./worker-process.js');
