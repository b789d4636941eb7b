import type { Attributes } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';

/** The span attribute naming the request: its x-request-id (the logs' req_id), on the HTTP span and the job's. */
export const REQUEST_ID_ATTRIBUTE = 'request.id';
/** The span attribute naming the organization the request or job works for (the logs' organization_id). */
export const ORGANIZATION_ATTRIBUTE = 'organization.id';

/** What a started SDK offers the rest of the process (src/tracing/sdk.ts). */
export interface RunningTracing {
  /** BullMQ's telemetry: a job carries the trace context from the queue's add to the worker's processing. */
  queueTelemetry: Telemetry;
  /** Sets attributes on the span active at the call (an HTTP request's, a job's), if any. */
  markActiveSpan(attributes: Attributes): void;
  /** Exports the spans still buffered and stops the SDK. */
  stop(): Promise<void>;
}
