import type { IncomingMessage } from 'node:http';
import { trace, type Attributes, type Span } from '@opentelemetry/api';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BullMQOtel } from 'bullmq-otel';
import { ORGANIZATION_ATTRIBUTE, REQUEST_ID_ATTRIBUTE, type RunningTracing } from './attributes.js';
import { selectedInstrumentations, type InstrumentationName } from './selection.js';

/** Paths scraped or probed every few seconds: no trace of their own (they would crowd out the requests). */
const PROBES = /^\/(metrics|health)(\/|\?|$)/;

type Instrumentation = HttpInstrumentation | ExpressInstrumentation | PgInstrumentation | IORedisInstrumentation;

/** Each instrumentation, made only when selected: one made is enabled at once (it patches its module). */
const MAKE: Record<InstrumentationName, () => Instrumentation> = {
  http: () =>
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request) => PROBES.test(request.url ?? ''),
      // The only outgoing HTTP is webhook deliveries to customers' URLs: no span (a URL may carry a token) and no
      // trace headers sent to them. The delivery job's span covers the call.
      disableOutgoingRequestInstrumentation: true,
      applyCustomAttributesOnSpan: (span, request) => markRequestSpan(span, request as IncomingMessage),
    }),
  // Route handlers only: a span per middleware would cost more than it tells (the HTTP span has the route).
  express: () => new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
  // Statements inside a request's or a job's trace; never their parameter values. No span for taking a pooled
  // connection (db_pool_clients counts the waits; a wait shows as the time before the first statement).
  pg: () => new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
  // The command's name alone: a command's arguments hold job data and keys.
  ioredis: () => new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
};

/**
 * Starts the OpenTelemetry Node SDK for traces, configured by the standard variables (exporter, endpoint, protocol,
 * sampler, resource, instrumentations; see docs/operations.md, Traces), with the instrumentations of what the service
 * uses: incoming HTTP, Express's route handlers, pg and ioredis. BullMQ traces its own jobs (queueTelemetry, given to
 * BullModule).
 *
 * Every module these instrumentations patch (node:http, express, pg, ioredis) is CommonJS, loaded through require()
 * even when an ES module imports it, so require's hook is enough: no ES-module loader hook is registered (it would
 * route every module of the process through a loader thread at start, for nothing patched). What matters is that the
 * SDK starts before those modules are loaded, which is why the entry points import the rest of the process after this
 * has returned.
 */
export function startSdk(serviceName: string): RunningTracing {
  // Traces only: this service's metrics are Prometheus's (/metrics) and its logs JSON lines on stdout. Either can
  // still be asked of the SDK with its own variable.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const named = Boolean(process.env.OTEL_SERVICE_NAME?.trim()) || /(^|,)\s*service\.name\s*=/.test(process.env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    serviceName: named ? undefined : serviceName,
    instrumentations: selectedInstrumentations().map((name) => MAKE[name]()),
  });
  sdk.start();
  return {
    queueTelemetry: new BullMQOtel({ tracerName: 'bullmq' }),
    markActiveSpan: (attributes: Attributes) => trace.getActiveSpan()?.setAttributes(attributes),
    stop: () => sdk.shutdown(),
  };
}

/** The request's id and, once authenticated, its organization, on the request's HTTP span (set as it ends). */
function markRequestSpan(span: Span, request: IncomingMessage & { id?: string; tenant?: { organizationId: number } }): void {
  if (request.id) span.setAttribute(REQUEST_ID_ATTRIBUTE, request.id);
  if (request.tenant) span.setAttribute(ORGANIZATION_ATTRIBUTE, request.tenant.organizationId);
}
