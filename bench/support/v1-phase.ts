/**
 * The V1 benchmark's measurements (see v1.bench.ts), on a fresh database and API process of their own: V1 sync
 * events, the retrieval route, the framework floor (a Nest route that does nothing), the ceiling S (the service's own
 * statements and engine on a plain node:http server, plain-server.ts) and the raw `pg` ceiling P interleaved in
 * rounds, then V1 on a single customer. Beside V1 (not in bench:check's form): the same V1 load on a second
 * organization configured identically whose campaign runs a live experiment (issue #43, contract §20), measured right
 * after V1 in each round, and its throughput against V1's (target ≥ 90%).
 */
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { BEHAVIORS, createCampaign, createLiveCampaign } from './campaign.js';
import { cpuSnapshot } from './cpu.js';
import { CPU_COLUMNS, interleavedNamed, load, LoadResult, measured, percentile, send, summary, table } from './load.js';
import { startNode, stopChild, waitForLine } from './processes.js';
import { rawTransaction } from './raw-pg.js';
import { bootstrap, startServer } from './server.js';
import type { Figure } from './summary.js';
import { BenchFailed, checkTallies, clean, tallyLines, type Tally } from './verdict.js';

const CONCURRENCY = 10;
const CUSTOMERS = 10_000;
/** The experiment of the second organization's campaign (§20): its metric counts the event the bench sends. */
const EXPERIMENT = {
  holdout_percent: 10,
  variants: [
    { name: 'A', weight: 1 },
    { name: 'B', weight: 1 },
  ],
  metric: { event: 'visit', attribute: null },
};
const EXPERIMENT_ROW = 'V1 sync event, the campaign running an experiment (holdout 10%, A/B, metric visit)';
const EXPERIMENT_TALLY = 'V1 sync event, live experiment';

export interface V1Options {
  /** Per workload. */
  seconds: number;
  /** `v1`: V1 (with and without an experiment) and the ceilings alone; `check` (bench:check): V1, retrieval, S and P alone. */
  only?: string;
  port?: number;
}

/** Answers the text v1.bench.ts prints and the figures of the summary table. */
export async function runV1({ seconds, only, port = 3900 }: V1Options): Promise<{ output: string; figures: Figure[] }> {
  const server = await startServer(port);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: CONCURRENCY });
  let plain: ChildProcess | undefined;
  try {
    const tenant = await bootstrap(server.url);
    const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
    const base = `${server.url}/priv/v1/apps/${tenant.key}`;
    await createLiveCampaign(server.url, tenant);
    // The experiment's organization: the same campaign (behaviors, dates, zone), running EXPERIMENT; not in bench:check.
    const withExperiment = only !== 'check';
    const experimentTenant = withExperiment ? await bootstrap(server.url, 'Bench experiment') : undefined;
    let experimentCampaign = 0;
    if (experimentTenant) {
      const now = Date.now();
      // createCampaign sends the whole object as the campaign: the experiment is created with it.
      const campaign = { name: 'Everyday', status: 'live', starts_at: new Date(now - 86_400_000).toISOString(), ends_at: new Date(now + 365 * 86_400_000).toISOString(), experiment: EXPERIMENT };
      experimentCampaign = await createCampaign(server.url, experimentTenant, campaign, BEHAVIORS);
    }

    const customers = async (prefix: string, organizationId = tenant.organizationId): Promise<string[]> =>
      (
        await db.query(
          `INSERT INTO customers (organization_id, external_id, time_zone, division_id)
           SELECT $1, $2 || g, 'America/New_York', d.id FROM generate_series(1, $3) g, divisions d WHERE d.organization_id = $1
           RETURNING id`,
          [organizationId, prefix, CUSTOMERS],
        )
      ).rows.map((r) => r.id);
    // The raw phase writes progress the engine never wrote: its customers are its own. S's are its own too, so that
    // each customer's history (progress states, events) grows as much under S as under V1.
    const [ids, rawIds, plainIds] = [await customers('bench-'), await customers('raw-'), await customers('plain-')];
    const experimentIds = experimentTenant ? await customers('experiment-', experimentTenant.organizationId) : [];
    // Ceiling S: a process of its own (its CPU measured as the API's is), on a free port, the same database and tenant,
    // started once the campaign exists (it compiles the rules at start).
    plain = startNode('dist/bench/support/plain-server.js', { ...server.env, PORT: '0', API_KEY: tenant.key }, 'pipe');
    const plainPort = Number(/port (\d+)\n/.exec(await waitForLine(plain, 'ready\n'))?.[1]);
    const plainBase = `http://127.0.0.1:${plainPort}/priv/v1/apps/${tenant.key}`;
    const plainPid = plain.pid!;
    const database = new URL(server.databaseUrl).pathname.slice(1);
    const pick = (list: string[], i: number) => list[(i * 7919) % list.length];
    const event = (i: number) => JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } });
    const post = (id: string, i: number) => send(`${base}/users/${id}/events`, { method: 'POST', headers, body: event(i) });
    const cpu = () => server.cpu();
    const v1Load = (s: number) => measured(cpu, () => load((i) => post(pick(ids, i), i), CONCURRENCY, s));
    // V1 on the experiment's organization: the same load, its own customers, key and secret.
    const experimentHeaders = experimentTenant && { authorization: experimentTenant.auth, 'content-type': 'application/json' };
    const experimentBase = experimentTenant && `${server.url}/priv/v1/apps/${experimentTenant.key}`;
    const experimentLoad = (s: number) =>
      measured(cpu, () => load((i) => send(`${experimentBase}/users/${pick(experimentIds, i)}/events`, { method: 'POST', headers: experimentHeaders, body: event(i) }), CONCURRENCY, s));
    // No authorization header: S does no auth (the API checks the key and secret against its in-process cache).
    const plainHeaders = { 'content-type': 'application/json' };
    const plainLoad = (s: number) =>
      measured(
        () => cpuSnapshot([plainPid], database),
        () => load((i) => send(`${plainBase}/users/${pick(plainIds, i)}/events`, { method: 'POST', headers: plainHeaders, body: event(i) }), CONCURRENCY, s),
      );
    const rawLoad = (s: number) => measured(cpu, () => load((i) => rawTransaction(db, tenant.organizationId, tenant.key, pick(rawIds, i)), CONCURRENCY, s));
    const retrievalLoad = (s: number) => measured(cpu, () => load((i) => send(`${base}/users/${pick(ids, i)}/events`, { headers }), CONCURRENCY, s));
    // The framework floor: GET /health/live answers {"status":"ok"} from memory (no PostgreSQL, no Redis), through
    // the app's global middleware as every route is (request id, request log line, in-process metrics).
    const floorLoad = (s: number) => measured(cpu, () => load(() => send(`${server.url}/health/live`), CONCURRENCY, s));
    const header = ['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', ...CPU_COLUMNS];

    const sameAnswer = await compareAnswers(`${base}/users/${ids[0]}/events`, headers, `${plainBase}/users/${plainIds[0]}/events`, plainHeaders, event(0));
    // Warm-up: compiled rules, connection pools, JIT.
    await (withExperiment ? interleavedNamed({ v1: v1Load, experiment: experimentLoad, s: plainLoad, raw: rawLoad }, 3, 1) : interleavedNamed({ v1: v1Load, s: plainLoad, raw: rawLoad }, 3, 1));
    // The events each side stored during the measured rounds (its customers are its own), against its answers.
    const eventsOf = async (prefix: string, organizationId = tenant.organizationId) =>
      Number(
        (await db.query(`SELECT count(*) AS n FROM events e JOIN customers c ON c.id = e.customer_id WHERE c.organization_id = $1 AND c.external_id LIKE $2 || '%'`, [organizationId, prefix])).rows[0].n,
      );
    const counted = async () => ({
      v1: await eventsOf('bench-'),
      s: await eventsOf('plain-'),
      raw: await eventsOf('raw-'),
      experiment: experimentTenant ? await eventsOf('experiment-', experimentTenant.organizationId) : 0,
    });
    const eventsBefore = await counted();
    const ok = (r: LoadResult) => r.statuses[200] ?? 0;
    /** V1, S and P: errors and events stored (one per request answered 200); retrieval and the floor: answers 200. */
    const tallies = async (r: { v1: LoadResult; s: LoadResult; raw: LoadResult; retrieval?: LoadResult; floor?: LoadResult; experiment?: LoadResult }): Promise<Tally[]> => {
      const after = await counted();
      const list: Tally[] = [
        { name: 'V1 sync event', role: 'workload', errors: r.v1.errors, stored: after.v1 - eventsBefore.v1, expected: ok(r.v1), unit: 'events' },
        { name: 'ceiling S', role: 'ceiling', errors: r.s.errors, stored: after.s - eventsBefore.s, expected: ok(r.s), unit: 'events' },
        { name: 'raw pg transaction P', role: 'ceiling', errors: r.raw.errors, stored: after.raw - eventsBefore.raw, expected: r.raw.requests - r.raw.errors, unit: 'events' },
      ];
      if (r.retrieval) list.push({ name: 'retrieval', role: 'workload', errors: r.retrieval.errors, stored: ok(r.retrieval), expected: r.retrieval.requests, unit: 'answers 200' });
      if (r.floor) list.push({ name: 'GET /health/live (floor)', role: 'baseline', errors: r.floor.errors, stored: ok(r.floor), expected: r.floor.requests, unit: 'answers 200' });
      if (r.experiment) {
        list.push({ name: EXPERIMENT_TALLY, role: 'workload', errors: r.experiment.errors, stored: after.experiment - eventsBefore.experiment, expected: ok(r.experiment), unit: 'events' });
      }
      checkTallies(list); // a ceiling or baseline that errors or stores less than it answered: FAILED, no ratio
      return list;
    };
    /**
     * The experiment's workload against V1 (target ≥ 90%), once its campaign's assignments are read: an experiment
     * that assigned no one is not live, and its ratio would measure nothing (FAILED).
     */
    const experimentReport = async (v1: LoadResult, experiment: LoadResult, list: Tally[]) => {
      const tally = list.find((t) => t.name === EXPERIMENT_TALLY)!;
      const groups = (
        await db.query(
          `SELECT group_name, count(*)::int AS customers, coalesce(sum(metric_events), 0)::int AS events FROM experiment_assignments WHERE campaign_id = $1 GROUP BY 1 ORDER BY 1`,
          [experimentCampaign],
        )
      ).rows as Array<{ group_name: string; customers: number; events: number }>;
      const assigned = groups.reduce((n, g) => n + g.customers, 0);
      if (assigned === 0) throw new BenchFailed([`workload "${EXPERIMENT_ROW}": no experiment_assignments row for its campaign ${experimentCampaign}, the experiment is not live`]);
      // Every visit is a metric event: the assignments count each one their customers sent (warm-up included).
      const measuredEvents = groups.reduce((n, g) => n + g.events, 0);
      const visits = await eventsOf('experiment-', experimentTenant!.organizationId);
      const counted = `experiment: ${assigned.toLocaleString('en-US')} customers assigned (${groups.map((g) => `${g.group_name} ${g.customers.toLocaleString('en-US')}`).join(', ')}); metric events counted ${measuredEvents.toLocaleString('en-US')} of ${visits.toLocaleString('en-US')} visits stored (${measuredEvents === visits ? 'exact' : 'MISMATCH'})\n`;
      return { note: experimentNote(v1, experiment, clean(tally)) + counted, figure: experimentFigure(v1, experiment, clean(tally)) };
    };
    if (only === 'v1' || only === 'check') {
      const { v1, s, raw, retrieval, experiment }: { v1: LoadResult; s: LoadResult; raw: LoadResult; retrieval?: LoadResult; experiment?: LoadResult } =
        only === 'check'
          ? await interleavedNamed({ v1: v1Load, retrieval: retrievalLoad, s: plainLoad, raw: rawLoad }, seconds)
          : await interleavedNamed({ v1: v1Load, experiment: experimentLoad, s: plainLoad, raw: rawLoad }, seconds);
      const list = await tallies({ v1, s, raw, retrieval, experiment });
      const report = experiment ? await experimentReport(v1, experiment, list) : undefined;
      const rows = [
        summary('V1 sync event', v1, raw),
        ...(experiment ? [summary(EXPERIMENT_ROW, experiment, raw)] : []),
        ...(retrieval ? [summary('retrieval GET users/:id/events', retrieval, raw)] : []),
        summary(S_ROW, s, raw),
        summary('raw pg transaction P (ceiling)', raw, raw),
      ];
      return {
        output: table(header, rows) + (report?.note ?? '') + plainNote(v1, s, sameAnswer) + tallyLines(list),
        figures: [
          ...v1Figures(v1, raw, clean(list[0])),
          ...(report ? [report.figure] : []),
          ...plainFigures(v1, s, raw, clean(list[0])),
          ...(retrieval ? [retrievalFigure(retrieval, raw, clean(list[3]))] : []),
        ],
      };
    }
    // Every workload of the comparison, interleaved in rounds (one more is one more entry here, its row and its
    // figures below).
    const { v1, experiment, retrieval, floor, s, raw } = await interleavedNamed(
      { v1: v1Load, experiment: experimentLoad, retrieval: retrievalLoad, floor: floorLoad, s: plainLoad, raw: rawLoad },
      seconds,
    );
    const list = await tallies({ v1, s, raw, retrieval, floor, experiment });
    const report = await experimentReport(v1, experiment, list);
    const plainCheck = tallyLines(list);
    // A customer of its own, so the contention totals are this phase's alone.
    const one = (await db.query(`INSERT INTO customers (organization_id, external_id, time_zone, division_id) SELECT $1, 'contended', 'America/New_York', id FROM divisions WHERE organization_id = $1 RETURNING id`, [tenant.organizationId])).rows[0].id as string;
    const before = (await db.query(`SELECT count(*)::int AS n FROM events WHERE customer_id = $1`, [one])).rows[0].n as number;
    const contended = await measured(cpu, () => load((i) => post(one, i), CONCURRENCY, seconds));
    const check = (
      await db.query(
        `SELECT c.available_points, c.lifetime_points,
                (SELECT coalesce(sum(amount), 0) FROM points_ledger WHERE customer_id = c.id) AS ledger,
                (SELECT count(*) FROM events WHERE customer_id = c.id) AS events
           FROM customers c WHERE c.id = $1`,
        [one],
      )
    ).rows[0];

    const rows: string[][] = [
      summary('V1 sync event (10 behaviors, 5 listening)', v1, raw),
      summary(EXPERIMENT_ROW, experiment, raw),
      summary('retrieval GET users/:id/events', retrieval, raw),
      summary('GET /health/live, a Nest route doing nothing (floor)', floor, raw),
      summary(S_ROW, s, raw),
      summary('raw pg transaction P (ceiling)', raw, raw),
      summary('V1 sync, every request one customer', contended, raw),
    ];
    const stored = Number(check.events) - before;
    const exact =
      Number(check.ledger) === Number(check.lifetime_points) && Number(check.lifetime_points) === Number(check.available_points) && stored === contended.requests;
    const statuses = (r: LoadResult) => JSON.stringify(r.statuses);
    const output =
      table(header, rows) +
      `contention: statuses ${statuses(contended)}; events stored ${stored} of ${contended.requests} sent; ` +
      `ledger sum ${check.ledger} = lifetime ${check.lifetime_points} = available ${check.available_points}: ${exact ? 'exact' : 'MISMATCH'}\n` +
      `floor: GET /health/live answers from memory (no PostgreSQL, no Redis) through the app's global middleware; its API CPU per request is what any Nest route costs\n` +
      report.note +
      plainNote(v1, s, sameAnswer) +
      plainCheck +
      `${CUSTOMERS} customers, ${CONCURRENCY} connections, ${seconds}s per phase, node ${process.version}\n`;
    const errors5xx = Object.entries(contended.statuses).reduce((n, [status, count]) => n + (Number(status) >= 500 ? count : 0), 0);
    const figures: Figure[] = [
      ...v1Figures(v1, raw, clean(list[0])),
      report.figure,
      ...plainFigures(v1, s, raw, clean(list[0])),
      ...floorFigures(v1, floor, raw),
      retrievalFigure(retrieval, raw, clean(list[3])),
      { figure: 'V1 sync, every request one customer', value: rps(contended), unit: 'req/s', ceiling: 'raw pg transaction P', ceilingValue: rps(raw) },
      {
        figure: 'V1 one customer: 5xx, events stored, ledger = balances',
        value: exact && errors5xx === 0 ? 'exact' : `MISMATCH (${errors5xx} 5xx)`,
        unit: '',
        target: 'no 5xx, exact totals',
        met: exact && errors5xx === 0,
      },
    ];
    return { output, figures };
  } finally {
    if (plain) await stopChild(plain);
    await db.end();
    await server.stop();
  }
}

const S_ROW = 'ceiling S: service SQL + engine on node:http, no auth';

/** V1 with the campaign running an experiment against V1 without (issue #43: ≥ 90%), and what each cost per request. */
function experimentNote(v1: LoadResult, experiment: LoadResult, experimentClean: boolean): string {
  const ratio = rps(experiment) / rps(v1);
  const cpu = (r: LoadResult, k: 'api' | 'postgres') => r.cpuPerRequest?.[k].toFixed(0) ?? '-';
  return (
    `V1 with a live experiment / V1 without: ${ratio.toFixed(3)} (${rps(experiment).toFixed(0)} against ${rps(v1).toFixed(0)} req/s; target ≥ 0.90: ` +
    `${experimentClean && ratio >= 0.9 ? 'met' : 'NOT met'}${experimentClean ? '' : `, ${experiment.errors} errors`}); p99 ${percentile(experiment.latenciesMs, 99).toFixed(1)} against ` +
    `${percentile(v1.latenciesMs, 99).toFixed(1)} ms; API CPU per request ${cpu(experiment, 'api')} against ${cpu(v1, 'api')} µs, PostgreSQL ${cpu(experiment, 'postgres')} against ${cpu(v1, 'postgres')} µs\n`
  );
}

function experimentFigure(v1: LoadResult, experiment: LoadResult, experimentClean: boolean): Figure {
  return {
    figure: `V1 sync, the campaign running an experiment${experimentClean ? '' : ` (${experiment.errors} errors)`}`,
    ...(experimentClean ? {} : { broken: `V1 with an experiment: ${experiment.errors} errors or events missing` }),
    value: rps(experiment),
    unit: 'req/s',
    ceiling: 'V1 sync event, no experiment',
    ceilingValue: rps(v1),
    target: '≥ 90% of ceiling',
    met: experimentClean && rps(experiment) >= 0.9 * rps(v1),
  };
}

/** What the S row is, and V1 against it (the table's "vs ceiling" column is against P). */
function plainNote(v1: LoadResult, s: LoadResult, sameAnswer: string): string {
  const cpu = (r: LoadResult, k: 'api' | 'postgres') => r.cpuPerRequest?.[k].toFixed(0) ?? '-';
  return (
    `ceiling S: a node:http server (no Nest, no Express) running the service's own compiled event path (UnitOfWork, EvaluationRepository, the engine, ` +
    `planWrite, v1Response) over raw pg in pipeline mode: BEGIN + lock_timeout + the locked customer read + the progress read in one round trip, ` +
    `the write statement + COMMIT in another; rules compiled once at start (a warm cache); no auth (the API checks the key and secret against its ` +
    `in-process cache), no request id or log line, no validation, rate limit, metrics or per-customer lanes; its "API CPU" is its own process\n` +
    `V1 sync vs S: ${ratioPct(rps(v1), rps(s))} of S's req/s (target ≥ 75%); API CPU per request ${cpu(v1, 'api')} µs against S's ${cpu(s, 'api')} µs, ` +
    `PostgreSQL ${cpu(v1, 'postgres')} µs against ${cpu(s, 'postgres')} µs\n` +
    `S's answer to a customer's first event against the API's: ${sameAnswer}\n`
  );
}

/**
 * The same first event to a fresh customer of the API and one of S: `identical` bodies, or the same JSON shape
 * (keys and types; values such as times may differ), or not.
 */
async function compareAnswers(apiUrl: string, apiHeaders: Record<string, string>, plainUrl: string, plainHeaders: Record<string, string>, body: string): Promise<string> {
  const post = async (url: string, headers: Record<string, string>) => {
    const res = await fetch(url, { method: 'POST', headers, body });
    return { status: res.status, text: await res.text() };
  };
  const [api, plain] = [await post(apiUrl, apiHeaders), await post(plainUrl, plainHeaders)];
  if (api.status !== 200 || plain.status !== 200) return `NOT compared (API ${api.status}, S ${plain.status})`;
  if (api.text === plain.text) return `identical (${api.text.length} bytes)`;
  const shape = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(shape) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)])) : typeof v;
  const same = JSON.stringify(shape(JSON.parse(api.text))) === JSON.stringify(shape(JSON.parse(plain.text)));
  return same ? `same shape, values differ (${api.text.length} and ${plain.text.length} bytes)` : `DIFFERENT shape (${api.text.length} and ${plain.text.length} bytes)`;
}

const ratioPct = (value: number, ceiling: number) => `${((value / ceiling) * 100).toFixed(0)}%`;

/**
 * V1 against the ceiling S (the same statements and engine without the framework): throughput (target ≥ 75%), p99,
 * and the CPU per request on each side; S against P.
 */
function plainFigures(v1: LoadResult, s: LoadResult, raw: LoadResult, v1Clean: boolean): Figure[] {
  const CEILING = 'ceiling S (service SQL, node:http)';
  const figures: Figure[] = [
    {
      figure: `V1 sync vs S${v1Clean ? '' : ` (${v1.errors} errors)`}`,
      key: 'v1.vsS',
      ...(v1Clean ? {} : { broken: `V1: ${v1.errors} errors or events missing` }),
      value: rps(v1),
      unit: 'req/s',
      ceiling: CEILING,
      ceilingValue: rps(s),
      target: '≥ 75% of ceiling',
      met: v1Clean && rps(v1) >= 0.75 * rps(s),
    },
    { figure: 'V1 sync p99 vs S', value: percentile(v1.latenciesMs, 99), unit: 'ms', ceiling: `${CEILING} p99`, ceilingValue: percentile(s.latenciesMs, 99), ratioAs: '×' },
    { figure: 'ceiling S vs P', value: rps(s), unit: 'req/s', ceiling: 'raw pg transaction P', ceilingValue: rps(raw) },
  ];
  if (v1.cpuPerRequest && s.cpuPerRequest) {
    figures.push(
      { figure: 'API CPU per V1 request vs S', value: v1.cpuPerRequest.api, unit: 'µs', ceiling: `${CEILING}, its process`, ceilingValue: s.cpuPerRequest.api, ratioAs: '×' },
      { figure: 'PostgreSQL CPU per V1 request vs S', value: v1.cpuPerRequest.postgres, unit: 'µs', ceiling: CEILING, ceilingValue: s.cpuPerRequest.postgres, ratioAs: '×' },
    );
  }
  return figures;
}

const rps = (r: LoadResult) => r.requests / r.seconds;

/** Retrieval against P (no target; bench:check keeps a floor). */
function retrievalFigure(retrieval: LoadResult, raw: LoadResult, retrievalClean: boolean): Figure {
  return {
    figure: `retrieval GET users/:id/events${retrievalClean ? '' : ` (${retrieval.errors} errors)`}`,
    key: 'retrieval.vsP',
    ...(retrievalClean ? {} : { broken: `retrieval: ${retrieval.errors} errors` }),
    value: rps(retrieval),
    unit: 'req/s',
    ceiling: 'raw pg transaction P',
    ceilingValue: rps(raw),
  };
}

/**
 * Issue #13's costs: the API's CPU per V1 request against a Nest route that does nothing (≤ 2×), and PostgreSQL's
 * CPU per V1 request against the raw transaction P (≤ 1.4×); all measured in the same rounds by the same generator.
 */
function floorFigures(v1: LoadResult, floor: LoadResult, raw: LoadResult): Figure[] {
  if (!v1.cpuPerRequest || !floor.cpuPerRequest || !raw.cpuPerRequest) return [];
  return [
    {
      figure: 'API CPU per V1 request',
      value: v1.cpuPerRequest.api,
      unit: 'µs',
      ceiling: 'GET /health/live (does nothing)',
      ceilingValue: floor.cpuPerRequest.api,
      ratioAs: '×',
      target: '≤ 2× ceiling',
      met: v1.cpuPerRequest.api <= 2 * floor.cpuPerRequest.api,
    },
    {
      figure: 'PostgreSQL CPU per V1 request',
      value: v1.cpuPerRequest.postgres,
      unit: 'µs',
      ceiling: 'raw pg transaction P',
      ceilingValue: raw.cpuPerRequest.postgres,
      ratioAs: '×',
      target: '≤ 1.4× ceiling',
      met: v1.cpuPerRequest.postgres <= 1.4 * raw.cpuPerRequest.postgres,
    },
  ];
}

/** V1 throughput (target 50% of the raw transaction), p99 (target ≤ 3× its p99), and CPU per request. */
function v1Figures(v1: LoadResult, raw: LoadResult, v1Clean: boolean): Figure[] {
  const p99 = percentile(v1.latenciesMs, 99);
  const rawP99 = percentile(raw.latenciesMs, 99);
  const figures: Figure[] = [
    {
      figure: `V1 sync event (10 behaviors, 5 listening)${v1Clean ? '' : ` (${v1.errors} errors)`}`,
      key: 'v1.vsP',
      ...(v1Clean ? {} : { broken: `V1: ${v1.errors} errors or events missing` }),
      value: rps(v1),
      unit: 'req/s',
      ceiling: 'raw pg transaction P',
      ceilingValue: rps(raw),
      target: '≥ 50% of ceiling',
      met: v1Clean && rps(v1) >= 0.5 * rps(raw),
    },
    { figure: 'V1 sync event p99', value: p99, unit: 'ms', ceiling: 'raw pg transaction P p99', ceilingValue: rawP99, ratioAs: '×', target: '≤ 3× ceiling', met: p99 <= 3 * rawP99 },
  ];
  if (v1.cpuPerRequest && raw.cpuPerRequest) {
    const cost = (c: NonNullable<LoadResult['cpuPerRequest']>) => c.api + c.postgres + c.bench;
    figures.push({
      figure: 'V1 CPU per request (API + PG + load generator)',
      value: cost(v1.cpuPerRequest),
      unit: 'µs',
      ceiling: 'raw pg transaction P (PG + script)',
      ceilingValue: cost(raw.cpuPerRequest),
      ratioAs: '×',
    });
  }
  return figures;
}
