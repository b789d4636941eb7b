import { startTracing } from './tracing.js';

/**
 * The API's entry point. Tracing starts first, when configured (src/tracing.ts): it patches only the modules loaded
 * after it has started, so the process itself (src/api-process.ts) is imported once it has started.
 */
await startTracing('campaign-engine-api');
await import('./api-process.js');
