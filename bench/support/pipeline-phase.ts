/**
 * Issue #13 ("One evaluation pipeline"), on a fresh database and API process of their own:
 * - hot customer: V1 events for 10,000 customers on 10 connections, in rounds alone (the baseline) and with 50 more
 *   connections sending V1 events for one customer; the others' p99 with the hot customer against their p99 without,
 *   no 5xx anywhere, and the hot customer's totals exact;
 * - cold-cache burst: right after a behavior is created (which makes every process compile its organization's rules
 *   again), 100 V1 events at once for 100 customers; every one answered 200 and each customer credited exactly.
 * The hot customer and the burst each have an organization of their own whose only listener to `visit` is worth 1
 * point per event (plus 1 per behavior the burst adds), so the points a customer must have follow from the answers.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { BEHAVIORS, createLiveCampaign, oneListening } from './campaign.js';
import { addCustomers } from './customers.js';
import { failures5xx, interleavedNamed, load, LoadResult, percentile, send, table } from './load.js';
import { bootstrap, startServer } from './server.js';
import type { Figure } from './summary.js';
import { checkTallies, tallyLines, type Tally } from './verdict.js';

const OTHERS_CONCURRENCY = 10;
const HOT_CONCURRENCY = 50;
const CUSTOMERS = 10_000;
const BURST = 100;
const BURSTS = Number(process.env.BENCH_BURSTS ?? 4);
/** No request of this phase waits longer for its answer (the server's own pool timeout is 5 s). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface PipelineOptions {
  /** Per workload of the hot-customer comparison. */
  seconds: number;
  port?: number;
  /** `check`: bench:check's short form: the hot customer among its organization's others, and the burst of one organization. */
  only?: 'check';
}

type Tenant = Awaited<ReturnType<typeof bootstrap>>;

/** Answers the text pipeline.bench.ts prints and the figures of the summary table. */
export async function runPipeline({ seconds, port = 3920, only }: PipelineOptions): Promise<{ output: string; figures: Figure[] }> {
  const server = await startServer(port);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: 4 });
  // Sockets of their own: the hot customer's 50 connections on top of the shared agent's, and the burst's 100 at once
  // (no keep-alive: a burst starts seconds after the last, when the server may be closing idle connections).
  const hotAgent = new http.Agent({ keepAlive: true, maxSockets: HOT_CONCURRENCY });
  const burstAgent = new http.Agent({ keepAlive: false, maxSockets: BURST });
  try {
    const others = await othersOrganization(server.url, db);
    const parts = [
      ...(only ? [] : [await hotCustomer(server.url, db, seconds, hotAgent, others, 'own')]),
      await hotCustomer(server.url, db, seconds, hotAgent, others, 'same'),
      ...(only ? [] : [await coldBursts(server.url, db, burstAgent)]),
      await organizationBurst(server.url, db),
    ];
    return { output: parts.map((p) => p.output).join(''), figures: parts.flatMap((p) => p.figures) };
  } finally {
    hotAgent.destroy();
    burstAgent.destroy();
    await db.end();
    await server.stop();
  }
}

const v1Event = (name: string) => (i: number) => JSON.stringify({ events: { [name]: { store_id: `s${i % 13}` } } });
/** The hot customer's event: one behavior listens to it, 1 point each time, in whichever organization the customer is. */
const HOT_EVENT = 'hot_visit';
const HOT_BEHAVIOR = { name: 'Hot visit', points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: HOT_EVENT, event_count: 1 } }] }] };

function poster(url: string, tenant: Tenant, agent?: http.Agent, event = 'visit') {
  const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
  const body = v1Event(event);
  return (customerId: string, i: number) =>
    send(`${url}/priv/v1/apps/${tenant.key}/users/${customerId}/events`, { method: 'POST', headers, body: body(i), agent, timeoutMs: REQUEST_TIMEOUT_MS });
}

async function ids(db: pg.Pool, organizationId: number, prefix: string, count: number): Promise<string[]> {
  await addCustomers(db, organizationId, prefix, 1, count);
  const rows = (
    await db.query(`SELECT id FROM customers WHERE organization_id = $1 AND external_id LIKE $2 || '%' ORDER BY substring(external_id FROM length($2) + 1)::int`, [
      organizationId,
      prefix,
    ])
  ).rows as Array<{ id: string }>;
  return rows.map((r) => r.id);
}

/** Points, ledger and stored events of each customer given. */
async function books(db: pg.Pool, customerIds: string[]): Promise<Map<string, { available: number; lifetime: number; ledger: number; events: number }>> {
  const rows = (
    await db.query(
      `SELECT c.id, c.available_points, c.lifetime_points,
              (SELECT coalesce(sum(amount), 0) FROM points_ledger l WHERE l.customer_id = c.id) AS ledger,
              (SELECT count(*) FROM events e WHERE e.customer_id = c.id) AS events
         FROM customers c WHERE c.id = ANY($1::uuid[])`,
      [customerIds],
    )
  ).rows as Array<{ id: string; available_points: string; lifetime_points: string; ledger: string; events: string }>;
  return new Map(
    rows.map((r) => [r.id, { available: Number(r.available_points), lifetime: Number(r.lifetime_points), ledger: Number(r.ledger), events: Number(r.events) }]),
  );
}

const statusText = (statuses: Record<string | number, number>) => JSON.stringify(statuses);

interface Others {
  tenant: Tenant;
  customers: string[];
}

/** The organization of the others: 10,000 customers, the 10-behavior campaign and the hot customer's behavior. */
async function othersOrganization(url: string, db: pg.Pool): Promise<Others> {
  const tenant = await bootstrap(url, 'Others');
  await createLiveCampaign(url, tenant, [...BEHAVIORS, HOT_BEHAVIOR]);
  return { tenant, customers: await ids(db, tenant.organizationId, 'other-', CUSTOMERS) };
}

/**
 * Others (10 connections, 10,000 customers) alone and with a hot customer (50 connections), in rounds; the hot customer
 * in an organization of its own (`own`) or one of the others' organization (`same`: the common deployment, one
 * organization).
 */
async function hotCustomer(
  url: string,
  db: pg.Pool,
  seconds: number,
  hotAgent: http.Agent,
  { tenant, customers: others }: Others,
  where: 'own' | 'same',
): Promise<{ output: string; figures: Figure[] }> {
  const hotTenant = where === 'same' ? tenant : await bootstrap(url, 'Hot');
  if (where === 'own') await createLiveCampaign(url, hotTenant, [HOT_BEHAVIOR, ...oneListening(10).slice(1)]);
  const [hotId] = await ids(db, hotTenant.organizationId, `hot-${where}-`, 1);

  const postOther = poster(url, tenant);
  const postHot = poster(url, hotTenant, hotAgent, HOT_EVENT);
  const othersLoad = (s: number) => load((i) => postOther(others[(i * 7919) % others.length], i), OTHERS_CONCURRENCY, s);
  const hotSlices: LoadResult[] = [];
  const withHot = async (s: number) => {
    const [o, h] = await Promise.all([othersLoad(s), load((i) => postHot(hotId, i), HOT_CONCURRENCY, s)]);
    hotSlices.push(h);
    return o;
  };

  // Warm-up, not counted: both organizations' rules compiled, pools and sockets open.
  await Promise.all([othersLoad(1), load((i) => postHot(hotId, i), HOT_CONCURRENCY, 0.5)]);
  const warm = await books(db, [hotId]);
  const before = warm.get(hotId)!;
  const othersEvents = () =>
    db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND customer_id <> $2`, [tenant.organizationId, hotId]).then((r) => r.rows[0].n as number);
  const othersFrom = await othersEvents();
  const { baseline, contended } = await interleavedNamed({ baseline: othersLoad, contended: withHot }, seconds);
  // The baseline (others alone) must not error, and the others' events must all be stored: one per answer 200 of the
  // baseline and of the others beside the hot customer (the same customers).
  const othersStored = (await othersEvents()) - othersFrom;
  const ok = (r: LoadResult) => r.statuses[200] ?? 0;
  const tallies: Tally[] = [
    { name: `others alone and beside the hot customer (${statusText(baseline.statuses)}, ${statusText(contended.statuses)})`, role: 'baseline', errors: baseline.errors, stored: othersStored, expected: ok(baseline) + ok(contended), unit: 'events' },
    { name: 'others beside the hot customer', role: 'workload', errors: contended.errors, stored: ok(contended), expected: contended.requests, unit: 'answers 200' },
  ];
  checkTallies(tallies);
  const hotResult: LoadResult = {
    requests: hotSlices.reduce((n, r) => n + r.requests, 0),
    errors: hotSlices.reduce((n, r) => n + r.errors, 0),
    statuses: hotSlices.reduce<Record<number, number>>((all, r) => {
      for (const [status, n] of Object.entries(r.statuses)) all[Number(status)] = (all[Number(status)] ?? 0) + n;
      return all;
    }, {}),
    seconds: hotSlices.reduce((n, r) => n + r.seconds, 0),
    latenciesMs: hotSlices.flatMap((r) => r.latenciesMs),
  };
  const after = (await books(db, [hotId])).get(hotId)!;
  const answered200 = hotResult.statuses[200] ?? 0;
  const stored = after.events - before.events;
  // The hot organization's one listener gives 1 point per event, every event.
  const expected = before.available + answered200;
  const exact = stored === answered200 && after.ledger === after.available && after.available === expected && after.lifetime === after.available;
  const fivexx = failures5xx(baseline) + failures5xx(contended) + failures5xx(hotResult);
  const p99 = (r: LoadResult) => percentile(r.latenciesMs, 99);
  // The figure compares the median of the rounds' p99s: this machine stalls for a second at times, and one stall in
  // one round of one workload decides the p99 of everything that workload sent.
  const roundsP99 = (r: LoadResult) => percentile((r.rounds ?? [r]).map(p99), 50);
  // The others' organization's answers 200 a second: before the hot customer, and beside it (its own count too when it is one of them).
  const rate = (r: LoadResult) => ok(r) / r.seconds;
  const throughputBefore = rate(baseline);
  const throughputDuring = rate(contended) + (where === 'same' ? rate(hotResult) : 0);
  const broken = fivexx > 0 || !exact ? `${fivexx} 5xx, hot customer's totals ${exact ? 'exact' : 'MISMATCH'}` : undefined;
  const whereText = where === 'same' ? 'one of the others’ organization' : 'in an organization of its own';
  const row = (name: string, r: LoadResult) => [
    name,
    (r.requests / r.seconds).toFixed(0),
    percentile(r.latenciesMs, 50).toFixed(1),
    p99(r).toFixed(1),
    percentile(r.latenciesMs, 100).toFixed(0),
    statusText(r.statuses) + (r.requests > Object.values(r.statuses).reduce((n, c) => n + c, 0) ? ` + ${r.errors} no answer` : ''),
  ];
  const output =
    `### Hot customer, ${whereText}\n\n` +
    table(
      ['workload', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'statuses'],
      [
        row(`others alone (baseline): ${OTHERS_CONCURRENCY} connections, ${CUSTOMERS} customers`, baseline),
        row(`others with the hot customer`, contended),
        row(`hot customer: ${HOT_CONCURRENCY} connections, one customer`, hotResult),
      ],
    ) +
    `hot customer: ${answered200} answered 200, ${stored} events stored; ledger sum ${after.ledger}, available ${after.available}, lifetime ${after.lifetime}, ` +
    `expected ${expected} (1 point per event): ${exact ? 'exact' : 'MISMATCH'}\n` +
    `others' p99 per round: alone ${(baseline.rounds ?? []).map((r) => p99(r).toFixed(0)).join(', ')} ms; with the hot customer ${(contended.rounds ?? []).map((r) => p99(r).toFixed(0)).join(', ')} ms\n` +
    `the others' organization answered ${throughputBefore.toFixed(0)} req/s alone and ${throughputDuring.toFixed(0)} beside the hot customer` +
    `${where === 'same' ? ' (its own answers included)' : ''}\n` +
    `in rounds (baseline, then others + hot), ${seconds}s each in all; others on the 10-behavior campaign, the hot customer ${whereText}\n` +
    tallyLines(tallies) +
    '\n';
  const figures: Figure[] = [
    {
      figure: `others' V1 p99 with a hot customer (${HOT_CONCURRENCY} connections) ${whereText}, median of rounds`,
      key: where === 'same' ? 'pipeline.hotSameOrganizationP99' : undefined,
      broken,
      value: roundsP99(contended),
      unit: 'ms',
      ceiling: 'others alone (baseline), same',
      ceilingValue: roundsP99(baseline),
      ratioAs: '×',
      target: '≤ 3× ceiling',
      met: roundsP99(contended) <= 3 * roundsP99(baseline),
    },
    {
      figure: `the others' organization's throughput during the hot customer's burst (${whereText})`,
      key: where === 'same' ? 'pipeline.hotSameOrganizationThroughput' : undefined,
      broken,
      value: throughputDuring,
      unit: 'req/s',
      ceiling: 'the same organization before it (baseline), same',
      ceilingValue: throughputBefore,
      target: '≥ 70% of ceiling',
      met: throughputDuring >= 0.7 * throughputBefore,
    },
    {
      figure: `hot customer ${whereText}: 5xx anywhere, totals exact`,
      value: `${fivexx} 5xx, ${exact ? 'exact' : 'MISMATCH'}`,
      unit: '',
      target: 'no 5xx, exact totals',
      met: fivexx === 0 && exact,
    },
  ];
  return { output, figures };
}

/** BURSTS times: a behavior created, then 100 V1 events at once for 100 customers never sent an event before. */
async function coldBursts(url: string, db: pg.Pool, agent: http.Agent): Promise<{ output: string; figures: Figure[] }> {
  const tenant = await bootstrap(url, 'Burst');
  const campaignId = await createLiveCampaign(url, tenant, [BEHAVIORS[0]]);
  const customers = await ids(db, tenant.organizationId, 'burst-', BURSTS * BURST + OTHERS_CONCURRENCY);
  const post = poster(url, tenant, agent);
  const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
  // Warm-up on customers of its own: the rules compiled once and the pool's connections open, so what a burst meets
  // is the recompile alone.
  const warmIds = customers.slice(BURSTS * BURST);
  await load((i) => post(warmIds[i % warmIds.length], i), OTHERS_CONCURRENCY, 1);

  const rows: string[][] = [];
  const statuses: Record<string, number> = {};
  let exactCustomers = 0;
  let partial = 0;
  for (let k = 1; k <= BURSTS; k += 1) {
    const created = await fetch(`${url}/priv/v1/apps/${tenant.key}/management/campaigns/${campaignId}/behaviors/_batch`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ behaviors: [{ name: `Burst ${k}`, points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 1 } }] }] }] }),
    });
    if (created.status !== 201) throw new Error(`behavior not created: ${created.status} ${await created.text()}`);
    const group = customers.slice((k - 1) * BURST, k * BURST);
    const start = performance.now();
    const answers = await Promise.all(
      group.map(async (id, i) => {
        const t = performance.now();
        const status = await post(id, i).then(String, (error: Error) => (error.message === 'timeout' ? 'timeout' : 'error'));
        return { id, status, ms: performance.now() - t };
      }),
    );
    const took = performance.now() - start;
    const byStatus: Record<string, number> = {};
    for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
    for (const [status, n] of Object.entries(byStatus)) statuses[status] = (statuses[status] ?? 0) + n;
    // Visit (1 point) and the k behaviors added so far (1 point each) all listen to `visit`: 1 + k points for one event
    // answered 200; nothing at all for one that was not (its transaction rolled back).
    const expected = 1 + k;
    const found = await books(db, group);
    const credited = answers.filter((a) => {
      const b = found.get(a.id);
      return a.status === '200' && b !== undefined && b.events === 1 && b.available === expected && b.ledger === expected && b.lifetime === expected;
    }).length;
    // A request not answered 200 must have written nothing (its transaction rolled back).
    const halfWritten = answers.filter((a) => {
      const b = found.get(a.id);
      return a.status !== '200' && (b === undefined || b.events !== 0 || b.available !== 0 || b.ledger !== 0);
    }).length;
    exactCustomers += credited;
    partial += halfWritten;
    const latencies = answers.map((a) => a.ms);
    rows.push([
      String(k),
      statusText(byStatus),
      `${credited} (${expected} points each)`,
      String(halfWritten),
      percentile(latencies, 50).toFixed(0),
      percentile(latencies, 100).toFixed(0),
      took.toFixed(0),
    ]);
  }
  const total = BURSTS * BURST;
  const ok = statuses['200'] ?? 0;
  const output =
    '### Cold-cache burst\n\n' +
    table(['burst', 'statuses', 'customers credited exactly', 'not 200 yet written', 'p50 ms', 'max ms', 'burst ms'], rows) +
    `each burst: a behavior created (POST .../behaviors/_batch, 201), then ${BURST} V1 events at once, one each for ${BURST} customers never sent an event; ` +
    `credited exactly = answered 200, its one event stored, ledger sum = available = lifetime = 1 + the behaviors added so far\n\n`;
  const figures: Figure[] = [
    {
      figure: `cold-cache burst: ${BURSTS} × ${BURST} V1 events right after a behavior is created`,
      value: `${ok}/${total} 200 ${statusText(statuses)}, ${exactCustomers}/${total} credited exactly`,
      unit: '',
      target: 'all 200, each credited exactly',
      met: ok === total && exactCustomers === total && partial === 0,
    },
  ];
  return { output, figures };
}

/**
 * A burst of one organization: ORGANIZATION_BURST V1 events at once over as many connections, for BURST_CUSTOMERS
 * customers (several events each, so their lanes are busy too), on the service's default turns. Every one must be
 * answered 200 and every customer credited exactly (1 point per event).
 */
const ORGANIZATION_BURST = 1000;
const BURST_CUSTOMERS = 250;

async function organizationBurst(url: string, db: pg.Pool): Promise<{ output: string; figures: Figure[] }> {
  const tenant = await bootstrap(url, 'One organization');
  await createLiveCampaign(url, tenant, [BEHAVIORS[0]]);
  const customers = await ids(db, tenant.organizationId, 'one-', BURST_CUSTOMERS);
  const agent = new http.Agent({ keepAlive: false, maxSockets: ORGANIZATION_BURST });
  try {
    const post = poster(url, tenant, agent);
    await load((i) => post(customers[i % customers.length], i), OTHERS_CONCURRENCY, 0.5); // the rules compiled
    const before = await books(db, customers);
    const start = performance.now();
    const answers = await Promise.all(
      Array.from({ length: ORGANIZATION_BURST }, async (_, i) => {
        const t = performance.now();
        const status = await post(customers[i % customers.length], i).then(String, (error: Error) => (error.message === 'timeout' ? 'timeout' : 'error'));
        return { customer: customers[i % customers.length], status, ms: performance.now() - t };
      }),
    );
    const took = performance.now() - start;
    const after = await books(db, customers);
    const byStatus: Record<string, number> = {};
    const answered = new Map<string, number>();
    for (const a of answers) {
      byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
      if (a.status === '200') answered.set(a.customer, (answered.get(a.customer) ?? 0) + 1);
    }
    // 1 point per event answered 200 (the one behavior listening to `visit`), nothing for any other answer.
    const exact = new Set(
      customers.filter((id) => {
        const [b, a, n] = [before.get(id)!, after.get(id)!, answered.get(id) ?? 0];
        return a.events - b.events === n && a.available - b.available === n && a.ledger === a.available && a.lifetime === a.available;
      }),
    );
    const exactCustomers = exact.size;
    const ok = byStatus['200'] ?? 0;
    const latencies = answers.map((a) => a.ms);
    const exactAnswers = answers.filter((a) => a.status === '200' && exact.has(a.customer)).length;
    const output =
      '### A burst of one organization\n\n' +
      table(
        ['requests at once', 'statuses', 'customers credited exactly', 'p50 ms', 'max ms', 'burst ms', 'answers 200/s'],
        [[String(ORGANIZATION_BURST), statusText(byStatus), `${exactCustomers}/${customers.length}`, percentile(latencies, 50).toFixed(0), percentile(latencies, 100).toFixed(0), took.toFixed(0), ((ok * 1000) / took).toFixed(0)]],
      ) +
      `${ORGANIZATION_BURST} V1 events at once over as many connections, ${ORGANIZATION_BURST / BURST_CUSTOMERS} each for ${BURST_CUSTOMERS} customers of one organization, ` +
      `on the service's default turns (API_REQUESTS_AT_ONCE, ORGANIZATION_BYTES_WAITING); credited exactly = events stored and points equal to its answers 200\n\n`;
    const figures: Figure[] = [
      {
        figure: `a burst of ${ORGANIZATION_BURST} V1 events of one organization at once: answered 200 with every customer exact`,
        key: 'pipeline.organizationBurst',
        value: exactAnswers,
        unit: 'answers',
        ceiling: 'the requests sent',
        ceilingValue: ORGANIZATION_BURST,
        target: 'all 200, each customer exact',
        met: exactAnswers === ORGANIZATION_BURST,
      },
    ];
    return { output, figures };
  } finally {
    agent.destroy();
  }
}
