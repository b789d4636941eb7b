import { createServer, type Server } from 'node:http';

/** A span as an OTLP receiver got it: its service, the instrumentation that made it, and its attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  scope: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The endpoint to give as OTEL_EXPORTER_OTLP_ENDPOINT (the exporter posts to <endpoint>/v1/traces). */
  endpoint: string;
  /** Every request the receiver got, whatever its path. */
  requests: number;
  /** The spans of every POST /v1/traces so far, in the order received. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

interface OtlpTraces {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<{ name: string; kind: number; traceId: string; spanId: string; parentSpanId?: string; attributes?: OtlpAttribute[] }>;
    }>;
  }>;
}

function plain(value: OtlpValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}

function attributes(list: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));
}

/**
 * A small OTLP/HTTP receiver for JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json), as a collector would stand: it keeps the
 * bodies POSTed to /v1/traces and answers 200, so a spec can read the spans that real processes exported.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: OtlpTraces[] = [];
  const receiver: OtlpReceiver = {
    endpoint: '',
    requests: 0,
    spans: () =>
      bodies.flatMap((body) =>
        (body.resourceSpans ?? []).flatMap((resourceSpans) => {
          const resource = attributes(resourceSpans.resource?.attributes);
          return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
            (scopeSpans.spans ?? []).map((span) => ({
              service: String(resource['service.name']),
              scope: scopeSpans.scope?.name ?? '',
              name: span.name,
              kind: span.kind,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              attributes: attributes(span.attributes),
              resource,
            })),
          );
        }),
      ),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    receiver.requests += 1;
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') bodies.push(JSON.parse(body) as OtlpTraces);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  receiver.endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return receiver;
}
