/**
 * The cost of traces (see tracing.bench.ts): API processes side by side on one database, started alike: one with
 * tracing off (OTEL_SDK_DISABLED=true: nothing of the SDK loaded), one with it on as shipped (every instrumentation),
 * and one with it on without pg's instrumentation (OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg, the setting that trades the
 * API's statements for cost), both sampling 10% (parentbased_traceidratio, 0.1) and exporting OTLP over HTTP/JSON to a
 * receiver of this process's own, as a collector would stand. V1 sync events against each, interleaved in rounds.
 * (The benchmark server's own API process only sets the organization up: a process that did that work measured a few
 * percent slower than a fresh one.)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { addCustomers } from './customers.js';
import { createLiveCampaign } from './campaign.js';
import { cpuSnapshot } from './cpu.js';
import { CPU_COLUMNS, interleavedNamed, load, measured, percentile, send, summary, table, type LoadResult } from './load.js';
import { startNode, stopChild } from './processes.js';
import { apiReady, bootstrap, startServer } from './server.js';
import type { Figure } from './summary.js';
import { checkTallies, clean, tallyLines, type Tally } from './verdict.js';

const CONCURRENCY = 10;
const CUSTOMERS = 10_000;
const SAMPLED = 0.1;
const TARGET = 0.85;

/** What a receiver got: export requests, bytes, and the HTTP server spans (one per sampled request). */
interface Received {
  requests: number;
  bytes: number;
  serverSpans: number;
}

/** An OTLP/HTTP receiver answering 200 to every export, counting what it gets (JSON bodies are read for server spans). */
async function startReceiver(): Promise<{ endpoint: string; received: Received; close: () => Promise<void> }> {
  const received: Received = { requests: 0, bytes: 0, serverSpans: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.requests += 1;
      received.bytes += Buffer.byteLength(body);
      // OTLP JSON: a server span is "kind":2.
      received.serverSpans += body.match(/"kind":2\b/g)?.length ?? 0;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const rps = (r: LoadResult) => r.requests / r.seconds;
type Side = 'off' | 'on' | 'nopg';
const SIDES: Side[] = ['off', 'on', 'nopg'];
const NAMES: Record<Side, string> = {
  off: 'V1 sync, tracing off',
  on: `V1 sync, tracing on (${SAMPLED * 100}% sampled)`,
  nopg: `V1 sync, tracing on (${SAMPLED * 100}%), OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg`,
};

export async function runTracing({ seconds, port = 3970 }: { seconds: number; port?: number }): Promise<{ output: string; figures: Figure[] }> {
  const receivers = { on: await startReceiver(), nopg: await startReceiver() };
  const server = await startServer(port, { OTEL_SDK_DISABLED: 'true' });
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  const database = new URL(server.databaseUrl).pathname.slice(1);
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(server.env).filter(([name]) => !name.startsWith('OTEL_')));
  // The traced APIs: the same environment with the standard variables of a deployment that samples 10% of its traces.
  const traced = (endpoint: string): NodeJS.ProcessEnv => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(SAMPLED),
    // Other variables for the traced APIs, to try a setting (a JSON object: {"OTEL_TRACES_SAMPLER":"always_off"}).
    ...(JSON.parse(process.env.BENCH_TRACING_ENV ?? '{}') as Record<string, string>),
  });
  const extra: Record<Side, NodeJS.ProcessEnv> = {
    off: { OTEL_SDK_DISABLED: 'true' },
    on: traced(receivers.on.endpoint),
    nopg: { ...traced(receivers.nopg.endpoint), OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' },
  };
  const urls = Object.fromEntries(SIDES.map((side, i) => [side, `http://127.0.0.1:${port + 1 + i}`])) as Record<Side, string>;
  const apis = Object.fromEntries(SIDES.map((side, i) => [side, startNode('dist/src/main.js', { ...env, PORT: String(port + 1 + i), ...extra[side] })])) as Record<
    Side,
    ReturnType<typeof startNode>
  >;
  try {
    for (const url of Object.values(urls)) if (!(await apiReady(url))) throw new Error(`the API at ${url} was not ready after 30 s`);
    const tenant = await bootstrap(server.url, 'Traces');
    await createLiveCampaign(server.url, tenant);
    // Each side its own customers, so that each customer's history grows as much under one as under another.
    const ids = {} as Record<Side, string[]>;
    for (const side of SIDES) {
      await addCustomers(db, tenant.organizationId, `${side}-`, 1, CUSTOMERS);
      ids[side] = (await db.query(`SELECT id FROM customers WHERE organization_id = $1 AND external_id LIKE $2 || '%' ORDER BY external_id`, [tenant.organizationId, `${side}-`])).rows.map(
        (r) => r.id as string,
      );
    }
    const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
    const loads = Object.fromEntries(
      SIDES.map((side) => [
        side,
        (s: number) =>
          measured(
            () => cpuSnapshot([apis[side].pid!], database),
            () =>
              load(
                (i) =>
                  send(`${urls[side]}/priv/v1/apps/${tenant.key}/users/${ids[side][(i * 7919) % ids[side].length]}/events`, {
                    method: 'POST',
                    headers,
                    body: JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } }),
                  }),
                CONCURRENCY,
                s,
              ),
          ),
      ]),
    ) as Record<Side, (s: number) => Promise<LoadResult>>;
    const stored = async (side: Side) =>
      Number(
        (await db.query(`SELECT count(*) AS n FROM events e JOIN customers c ON c.id = e.customer_id WHERE c.organization_id = $1 AND c.external_id LIKE $2 || '%'`, [tenant.organizationId, `${side}-`]))
          .rows[0].n,
      );

    await interleavedNamed(loads, 3, 1); // warm-up: compiled rules, connection pools, JIT
    const before = { off: await stored('off'), on: await stored('on'), nopg: await stored('nopg') };
    const exportedBefore = { on: { ...receivers.on.received }, nopg: { ...receivers.nopg.received } };
    const r = await interleavedNamed(loads, seconds);
    // Past the batch processor's delay (5 s), what the measured rounds sampled has been exported.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const exported = (side: 'on' | 'nopg') => ({
      requests: receivers[side].received.requests - exportedBefore[side].requests,
      bytes: receivers[side].received.bytes - exportedBefore[side].bytes,
      spans: receivers[side].received.serverSpans - exportedBefore[side].serverSpans,
    });
    const sideTally = async (side: Side, role: Tally['role']): Promise<Tally> => ({
      name: NAMES[side],
      role,
      errors: r[side].errors,
      stored: (await stored(side)) - before[side],
      expected: r[side].statuses[200] ?? 0,
      unit: 'events',
    });
    // A traced side that exports nothing measures nothing: its sampled requests' server spans must reach its receiver.
    // (With BENCH_TRACING_ENV the setting tried may trace nothing: reported, not checked.)
    const tracedTally = (side: 'on' | 'nopg'): Tally => ({
      name: `requests traced by "${NAMES[side]}" (HTTP server spans exported)`,
      role: process.env.BENCH_TRACING_ENV ? 'workload' : 'baseline',
      errors: 0,
      stored: exported(side).spans,
      expected: 1,
      unit: 'spans',
    });
    const tallies: Tally[] = [await sideTally('off', 'ceiling'), await sideTally('on', 'workload'), await sideTally('nopg', 'workload'), tracedTally('on'), tracedTally('nopg')];
    checkTallies(tallies);
    const verdict = (side: 'on' | 'nopg', tally: Tally) => {
      const value = rps(r[side]) / rps(r.off);
      const ok = clean(tally) && value >= TARGET;
      return { value, ok, line: `${NAMES[side]}: ${(value * 100).toFixed(1)}% of V1 with tracing off: ${ok ? 'met' : 'NOT met'} (target ≥ ${TARGET * 100}%)\n` };
    };
    const on = verdict('on', tallies[1]);
    const nopg = verdict('nopg', tallies[2]);
    const exportLine = (side: 'on' | 'nopg') => {
      const e = exported(side);
      return `exported by "${NAMES[side]}" during the measured rounds: ${e.requests} OTLP requests, ${(e.bytes / 1e6).toFixed(1)} MB, ${e.spans} requests traced of ${r[side].requests} sent (${((e.spans / Math.max(1, r[side].requests)) * 100).toFixed(1)}%)\n`;
    };
    const header = ['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs off', ...CPU_COLUMNS];
    const output =
      table(
        header,
        SIDES.map((side) => summary(NAMES[side], r[side], r.off)),
      ) +
      exportLine('on') +
      exportLine('nopg') +
      tallyLines(tallies) +
      `V1 p99: ${percentile(r.on.latenciesMs, 99).toFixed(1)} ms traced, ${percentile(r.nopg.latenciesMs, 99).toFixed(1)} ms traced without pg's instrumentation, ${percentile(r.off.latenciesMs, 99).toFixed(1)} ms off\n` +
      on.line +
      nopg.line +
      `${CUSTOMERS} customers a side, ${CONCURRENCY} connections, ${seconds} s a side in 5 interleaved rounds, node ${process.version}\n`;
    const figure = (side: 'on' | 'nopg', v: { ok: boolean }, tally: Tally, key: string): Figure => ({
      figure: NAMES[side],
      key,
      broken: clean(tally) ? undefined : 'errors, or fewer events stored than answered',
      value: rps(r[side]),
      unit: 'req/s',
      ceiling: NAMES.off,
      ceilingValue: rps(r.off),
      target: `≥ ${TARGET * 100}%`,
      met: v.ok,
    });
    return { output, figures: [figure('on', on, tallies[1], 'tracing.v1_on'), figure('nopg', nopg, tallies[2], 'tracing.v1_on_without_pg')] };
  } finally {
    await Promise.all(Object.values(apis).map((api) => stopChild(api)));
    await db.end();
    await server.stop();
    await Promise.all(Object.values(receivers).map((receiver) => receiver.close()));
  }
}
