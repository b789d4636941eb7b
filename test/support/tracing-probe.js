// Plain JavaScript, loaded into a process under test with `node --import ./test/support/tracing-probe.js`: on SIGUSR2
// it writes to stderr which tracing packages the process has loaded (the OpenTelemetry SDK, its exporters and
// instrumentations, the module hooks, BullMQ's telemetry), from Node's module cache, so a spec can tell that a process
// without the OTEL_* variables loads none of them, and that one with them does.
import { createRequire } from 'node:module';

const TRACING = /node_modules\/(@opentelemetry\/(?:sdk-[^/]+|instrumentation[^/]*|exporter-[^/]+)|import-in-the-middle|require-in-the-middle|bullmq-otel)\//;
const cache = createRequire(import.meta.url).cache;

process.on('SIGUSR2', () => {
  const loaded = new Set();
  for (const file of Object.keys(cache)) {
    const match = TRACING.exec(file);
    if (match) loaded.add(match[1]);
  }
  process.stderr.write(`tracing packages loaded: ${JSON.stringify([...loaded].sort())}\n`);
});
