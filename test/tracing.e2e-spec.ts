import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';
import { freePort } from './support/ports.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { deleteQueueKeys, ownQueuePrefix, waitFor } from './support/worker.js';

/**
 * Traces (docs/operations.md, Traces): the API and a worker run as real processes (`node dist/src/main.js`,
 * `node dist/src/worker.js`), exporting OTLP over HTTP/JSON to a receiver of the spec's own, as a collector would
 * stand. One V2 event is one trace from the API's HTTP span through BullMQ's add into the worker's job and its
 * statements; without the OTEL_* variables the processes load nothing of the SDK and export nothing.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROBE = './test/support/tracing-probe.js';
const PG = '@opentelemetry/instrumentation-pg';

interface Child {
  process: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<unknown>;
}

const children: Child[] = [];

/** This run's environment (database, admin token) without any OTEL_* variable of the machine's, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_') && name !== 'NODE_OPTIONS'));
  return { ...clean, LOG_LEVEL: 'info', ...env };
}

/** Starts a built process with the tracing probe loaded (test/support/tracing-probe.js). */
function start(script: 'main.js' | 'worker.js', env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ['--import', PROBE, `dist/src/${script}`], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const child: Child = { process: proc, stdout: '', stderr: '', exited: new Promise((resolve) => proc.on('exit', resolve)) };
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => (child.stdout += chunk));
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => (child.stderr += chunk));
  children.push(child);
  return child;
}

async function stop(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, 15_000)));
  await Promise.race([child.exited, late]).finally(() => clearTimeout(timer));
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
}

/** The tracing packages the process has loaded, as its probe reports them on SIGUSR2. */
async function loadedTracingPackages(child: Child): Promise<string[]> {
  const report = /tracing packages loaded: (\[.*\])\n/;
  child.stderr = child.stderr.replace(report, '');
  child.process.kill('SIGUSR2');
  await waitFor(() => report.test(child.stderr), 5_000, 'the tracing probe report');
  return JSON.parse(report.exec(child.stderr)![1]) as string[];
}

interface Stack {
  api: Child;
  worker: Child;
  baseUrl: string;
}

/** The API and an events worker on a queue prefix of their own, each with `env` and `workerEnv` added; ready. */
async function startStack(prefix: string, env: Record<string, string>, workerEnv = env): Promise<Stack> {
  const port = await freePort();
  const api = start('main.js', { PORT: String(port), QUEUE_PREFIX: prefix, ...env });
  const worker = start('worker.js', { QUEUE_PREFIX: prefix, WORKER_QUEUES: 'events', ...workerEnv });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => (await fetch(`${baseUrl}/health/ready`).catch(() => null))?.status === 200,
    30_000,
    `the API ready (stderr: ${api.stderr})`,
    200,
  );
  await waitFor(() => worker.stdout.includes('"msg":"worker ready"'), 30_000, `the worker ready (stderr: ${worker.stderr})`, 200);
  return { api, worker, baseUrl };
}

interface Sent {
  organizationId: number;
  apiKey: string;
  apiSecret: string;
  authorization: string;
}

/**
 * As a user would: an organization through the admin API, a customer, then one V2 event for it with `requestId` as
 * x-request-id and `storeId` in its context; waits until the customer's timeline shows the event processed.
 */
async function sendOneEvent(baseUrl: string, requestId: string, storeId: string): Promise<Sent> {
  const post = (path: string, authorization: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization, ...headers }, body: JSON.stringify(body) });
  const created = await post('/admin/v1/organizations', `Bearer ${TEST_ADMIN_TOKEN}`, { organization: { name: 'Traced' }, application: { name: 'Web' } });
  expect(created.status).toBe(201);
  const org = (await created.json()) as { organization: { id: number }; api_key: string; api_secret: string };
  const authorization = `Basic ${Buffer.from(`${org.api_key}:${org.api_secret}`).toString('base64')}`;
  const customer = await post(`/priv/v1/apps/${org.api_key}/users`, authorization, { user: { external_id: `traced-${requestId}` } });
  expect(customer.status).toBe(201);
  const userId = ((await customer.json()) as { user: { id: string } }).user.id;
  const sent = await post(`/priv/v2/apps/${org.api_key}/events`, authorization, { events: { name: 'visit', user_id: userId, context: { store_id: storeId } } }, { 'x-request-id': requestId });
  expect({ status: sent.status, body: await sent.text() }).toEqual({ status: 200, body: '{"status":"ok"}' });
  await waitFor(
    async () => {
      const res = await fetch(`${baseUrl}/priv/v1/apps/${org.api_key}/users/${userId}/timeline`, { headers: { authorization } });
      const timeline = (await res.json()) as { events?: Array<{ status: string }> };
      return timeline.events?.[0]?.status === 'processed';
    },
    30_000,
    'the event processed',
    200,
  );
  return { organizationId: org.organization.id, apiKey: org.api_key, apiSecret: org.api_secret, authorization };
}

/** The spans below `root` in its trace (its children, theirs, and so on). */
function descendants(spans: ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] {
  const found: ReceivedSpan[] = [];
  let parents = new Set([root.spanId]);
  while (parents.size) {
    const next = spans.filter((span) => span.traceId === root.traceId && parents.has(span.parentSpanId));
    found.push(...next);
    parents = new Set(next.map((span) => span.spanId));
  }
  return found;
}

describe('Traces with OpenTelemetry (API and worker as real processes, OTLP over HTTP/JSON)', () => {
  let receiver: OtlpReceiver;
  const prefixes: string[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });

  afterEach(async () => {
    await Promise.all(children.splice(0).map(stop));
  });

  afterAll(async () => {
    await receiver.close();
    for (const prefix of prefixes) await deleteQueueKeys(prefix);
  });

  it('one V2 event is one trace: the HTTP span, BullMQ add, the worker job and its statements, with request id and organization, and no secret or context value', async () => {
    const prefix = ownQueuePrefix('tracing-on');
    prefixes.push(prefix);
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const { api, worker, baseUrl } = await startStack(prefix, otel);
    const requestId = `traced-${Date.now()}`;
    const storeId = `store-${requestId}-context-value`;
    const sent = await sendOneEvent(baseUrl, requestId, storeId);

    const jobSpan = (spans: ReceivedSpan[]) => spans.find((s) => s.service === 'campaign-engine-worker' && s.name === 'process events' && s.attributes['request.id'] === requestId);
    await waitFor(
      () => {
        const spans = receiver.spans();
        const job = jobSpan(spans);
        return job !== undefined && descendants(spans, job).some((s) => s.attributes['db.query.text'] === 'COMMIT');
      },
      15_000,
      "the worker's job span and its COMMIT exported",
      100,
    );
    const spans = receiver.spans();

    // The API's HTTP span: the route, the request id and the organization.
    const http = spans.find((s) => s.service === 'campaign-engine-api' && s.kind === 2 && s.attributes['request.id'] === requestId);
    expect(http).toMatchObject({
      name: 'POST /priv/v2/apps/:api_key/events',
      attributes: expect.objectContaining({ 'http.route': '/priv/v2/apps/:api_key/events', 'organization.id': sent.organizationId, 'http.response.status_code': 200 }),
    });
    const trace = spans.filter((s) => s.traceId === http!.traceId);
    const inApi = descendants(spans, http!);
    // Express's route handler and the ioredis commands of the add are in the request's trace, below its span.
    expect(inApi.filter((s) => s.scope === '@opentelemetry/instrumentation-express').map((s) => s.name)).toContain('request handler');
    expect(inApi.some((s) => s.scope === '@opentelemetry/instrumentation-ioredis')).toBe(true);
    expect(inApi.some((s) => s.scope === PG && String(s.attributes['db.query.text']).includes('INSERT INTO events'))).toBe(true);
    // BullMQ's add, a producer span below the HTTP span; the worker's job, a consumer span below the add.
    const add = inApi.find((s) => s.scope === 'bullmq' && s.kind === 4);
    expect(add).toMatchObject({ name: 'addBulk events', service: 'campaign-engine-api' });
    const job = jobSpan(trace);
    expect(job).toMatchObject({
      kind: 5,
      parentSpanId: add!.spanId,
      attributes: expect.objectContaining({ 'request.id': requestId, 'organization.id': sent.organizationId, 'bullmq.job.name': 'evaluate' }),
    });
    // The evaluation's transaction in the worker, statement by statement, in the same trace below the job.
    const statements = descendants(spans, job!)
      .filter((s) => s.scope === PG && s.service === 'campaign-engine-worker' && typeof s.attributes['db.query.text'] === 'string')
      .map((s) => s.attributes['db.query.text'] as string);
    expect(statements.some((text) => text.startsWith('BEGIN'))).toBe(true);
    expect(statements.some((text) => text.includes('UPDATE events'))).toBe(true);
    expect(statements).toContain('COMMIT');

    // Never a secret, a header or a customer's value: not the api secret, not the Authorization header, not the event's
    // context value, on any span or resource exported in the whole run; no header attributes, no statement values.
    const secrets = [sent.apiSecret, sent.authorization, Buffer.from(`${sent.apiKey}:${sent.apiSecret}`).toString('base64'), storeId];
    const leaks = spans.flatMap((span) =>
      Object.entries({ ...span.resource, ...span.attributes })
        .filter(([, value]) => secrets.some((secret) => JSON.stringify(value).includes(secret)))
        .map(([key]) => `${span.service} ${span.name}: ${key}`),
    );
    expect(leaks).toEqual([]);
    const keys = new Set(spans.flatMap((s) => Object.keys(s.attributes)));
    expect([...keys].filter((key) => /^http\.(request|response)\.header\.|^db\.postgresql\.values$/.test(key))).toEqual([]);
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['campaign-engine-api', 'campaign-engine-worker']));

    // The SDK, the module hooks and BullMQ's telemetry are loaded: the probe sees them.
    expect(await loadedTracingPackages(api)).toEqual(expect.arrayContaining(['@opentelemetry/sdk-node', PG, 'require-in-the-middle', 'bullmq-otel']));
    expect(await loadedTracingPackages(worker)).toEqual(expect.arrayContaining(['@opentelemetry/sdk-node', PG, 'bullmq-otel']));
  }, 120_000);

  it('without tracing configured nothing of the SDK is loaded and nothing is exported, and events are processed as ever', async () => {
    const prefix = ownQueuePrefix('tracing-off');
    prefixes.push(prefix);
    const before = receiver.requests;
    // The API with no OTEL_* variable at all; the worker with an endpoint but OTEL_SDK_DISABLED=true.
    const { api, worker, baseUrl } = await startStack(prefix, {}, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SDK_DISABLED: 'true' });
    await sendOneEvent(baseUrl, `untraced-${Date.now()}`, 'store-untraced');

    expect(await loadedTracingPackages(api)).toEqual([]);
    expect(await loadedTracingPackages(worker)).toEqual([]);
    // A running SDK exports the spans it holds when its process stops (TracingShutdown): both stop as an operator
    // stops them, cleanly, and once they have exited the receiver has still heard nothing.
    await Promise.all([api, worker].map(stop));
    expect([api.process.exitCode, worker.process.exitCode]).toEqual([0, 0]);
    expect(receiver.requests).toBe(before);
  }, 120_000);
});
