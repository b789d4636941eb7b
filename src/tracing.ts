import type { Attributes } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import type { RunningTracing } from './tracing/attributes.js';

export { ORGANIZATION_ATTRIBUTE, REQUEST_ID_ATTRIBUTE } from './tracing/attributes.js';

let running: RunningTracing | null = null;

/**
 * Whether traces are asked for, from the standard OpenTelemetry variables alone: an exporter named in
 * OTEL_TRACES_EXPORTER (other than none), or an OTLP endpoint in OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; never when OTEL_SDK_DISABLED is true.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters.includes('none')) return false;
  if (exporters.length > 0) return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts tracing when it is configured (tracingConfigured), before the process loads anything it traces: the entry
 * points call this first and only then import the rest (src/main.ts, src/worker.ts). Without the variables nothing
 * of the SDK is loaded and nothing is patched. `serviceName` is the default of OTEL_SERVICE_NAME.
 */
export async function startTracing(serviceName: string): Promise<void> {
  if (running || !tracingConfigured()) return;
  const { startSdk } = await import('./tracing/sdk.js');
  running = startSdk(serviceName);
}

/** BullMQ's telemetry for the queues and workers when tracing runs (undefined otherwise: BullMQ traces nothing). */
export function queueTelemetry(): Telemetry | undefined {
  return running?.queueTelemetry;
}

/** Sets attributes on the active span when tracing runs; nothing otherwise. */
export function markActiveSpan(attributes: Attributes): void {
  running?.markActiveSpan(attributes);
}

/** Exports what is buffered and stops the SDK (at shutdown); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const stopping = running;
  running = null;
  await stopping?.stop();
}
