/**
 * Issue #16's benchmarks, on a fresh database and API process of their own (see points.bench.ts): a debit against the
 * raw `pg` ceiling of the same transaction; V1 with a budgeted campaign where 10% of events complete, against the same
 * campaign without a budget; and the expiry sweeper over 1,000,000 due credits, with V1's p99 while it runs against
 * V1's p99 without it.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { UnitOfWork } from '../../src/common/database/unit-of-work.js';
import { PointsRepository } from '../../src/modules/points/points.repository.js';
import { addCustomers } from './customers.js';
import { createLiveCampaign } from './campaign.js';
import { CPU_COLUMNS, interleavedNamed, load, measured, percentile, send, summary, table } from './load.js';
import { answeredIn, latenciesIn, openLoopWindows, p99OfEach, sentIn } from './open-loop.js';
import { startNode, stopChild } from './processes.js';
import { bootstrap, startServer } from './server.js';
import { sweepRate } from './sweep-rate.js';
import { fmt, ratio, type Figure } from './summary.js';
import { checkTallies, clean, tallyLines, type Tally } from './verdict.js';

const CONCURRENCY = 10;
const CUSTOMERS = 10_000;
/** Customers of the budget comparison: few enough that each reaches its 10th visit many times in the run. */
const VISITORS = 200;
const DUE_CUSTOMERS = 100_000;
const CREDITS_EACH = 10;
/** V1 requests per second while the sweeper runs (and without it), in windows of WINDOW seconds. */
const V1_RATE = 100;
const WINDOW = 5;
const SWEEP_SECONDS = 150;

/** Every 10th visit completes the behavior: 10% of events complete. */
const TENTH_VISIT = [{ name: 'Tenth visit', points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 10 } }] }] }];

type Server = Awaited<ReturnType<typeof startServer>>;
type Part = { output: string; figures: Figure[] };
export type PointsPart = 'debit' | 'budget' | 'expiry';

const headersOf = (t: { auth: string }) => ({ authorization: t.auth, 'content-type': 'application/json' });
const pick = (list: string[], i: number) => list[(i * 7919) % list.length];
const rps = (r: { requests: number; seconds: number }) => r.requests / r.seconds;
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
const ids = async (db: pg.Pool, organizationId: number, prefix: string) =>
  (await db.query(`SELECT id FROM customers WHERE organization_id = $1 AND external_id LIKE $2 || '%' ORDER BY id`, [organizationId, prefix])).rows.map((r) => r.id as string);

/** The parts named in `only` (all by default), each on the same fresh database and API process. */
export async function runPoints({ seconds, port = 3950, only = ['debit', 'budget', 'expiry'] }: { seconds: number; port?: number; only?: PointsPart[] }): Promise<Part> {
  const server = await startServer(port);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: CONCURRENCY + 2 });
  try {
    const parts = { debit: debitPart, budget: budgetPart, expiry: expiryPart };
    const done: Part[] = [];
    for (const name of only) done.push(await parts[name](server, db, seconds));
    return { output: done.map((p) => p.output).join('\n'), figures: done.flatMap((p) => p.figures) };
  } finally {
    await db.end();
    await server.stop();
  }
}

/** A debit, and the same transaction over raw pg: lock the customer, then PointsRepository.debit's statement. */
async function debitPart(server: Server, db: pg.Pool, seconds: number): Promise<Part> {
    const cpu = () => server.cpu();
    // A debit, and the same transaction over raw pg: lock the customer, then PointsRepository.debit's statement.
    const spender = await bootstrap(server.url, 'Spender');
    await addCustomers(db, spender.organizationId, 'spend-', 1, 2 * CUSTOMERS);
    await db.query(
      `WITH c AS (UPDATE customers SET available_points = 1000000000 WHERE organization_id = $1 RETURNING id)
       INSERT INTO points_ledger (organization_id, customer_id, amount, reason, occurred_at) SELECT $1, id, 1000000000, 'behavior', now() FROM c`,
      [spender.organizationId],
    );
    const spendIds = await ids(db, spender.organizationId, 'spend-');
    const [apiIds, rawIds] = [spendIds.slice(0, CUSTOMERS), spendIds.slice(CUSTOMERS)];
    const apiKeyId = Number((await db.query(`SELECT id FROM api_keys WHERE key = $1`, [spender.key])).rows[0].id);
    const repository = new PointsRepository();
    const debitBase = `${server.url}/priv/v1/apps/${spender.key}`;
    const debit = (i: number) => send(`${debitBase}/users/${pick(apiIds, i)}/points/debits`, { method: 'POST', headers: headersOf(spender), body: '{"debit":{"points":1}}' });
    const rawDebit = async (i: number) => {
      const client = await db.connect();
      try {
        const id = pick(rawIds, i);
        await client.query('BEGIN');
        const [customer] = (await client.query(`SELECT external_id, available_points FROM customers WHERE organization_id = $1 AND id = $2 FOR NO KEY UPDATE`, [spender.organizationId, id])).rows;
        await repository.debit(new UnitOfWork(client), {
          organizationId: spender.organizationId,
          customerId: id,
          externalId: customer.external_id,
          points: 1,
          description: null,
          apiKeyId,
          transactionId: null,
          webhookId: randomUUID(),
          now: new Date().toISOString(),
        });
        await client.query('COMMIT');
        return 201;
      } catch (error) {
        // Counted as an error by the load; the connection goes back to the pool out of its transaction.
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    };
    const debits = (list: string[]) =>
      db.query(`SELECT count(*)::int AS n FROM points_ledger WHERE customer_id = ANY($1::uuid[]) AND reason = 'debit'`, [list]).then((r) => r.rows[0].n as number);
  await interleavedNamed({ debit: (s) => load(debit, CONCURRENCY, s), raw: (s) => load(rawDebit, CONCURRENCY, s) }, 1, 1);
  const before = { api: await debits(apiIds), raw: await debits(rawIds) };
  const measuredDebits = await interleavedNamed({ debit: (s) => measured(cpu, () => load(debit, CONCURRENCY, s)), raw: (s) => measured(cpu, () => load(rawDebit, CONCURRENCY, s)) }, seconds);
  // One ledger debit per debit answered 201, on each side.
  const tallies: Tally[] = [
    { name: 'debit', role: 'workload', errors: measuredDebits.debit.errors, stored: (await debits(apiIds)) - before.api, expected: measuredDebits.debit.statuses[201] ?? 0, unit: 'ledger debits' },
    { name: 'raw pg debit', role: 'ceiling', errors: measuredDebits.raw.errors, stored: (await debits(rawIds)) - before.raw, expected: measuredDebits.raw.requests - measuredDebits.raw.errors, unit: 'ledger debits' },
  ];
  checkTallies(tallies);
  const debitClean = clean(tallies[0]);
  return {
    output:
      table(['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', ...CPU_COLUMNS], [
        summary('debit POST users/:id/points/debits', measuredDebits.debit, measuredDebits.raw),
        summary('raw pg: lock + the same debit statement (ceiling)', measuredDebits.raw, measuredDebits.raw),
      ]) + tallyLines(tallies),
    figures: [
      {
        figure: `debit (points spent)${debitClean ? '' : ` (${measuredDebits.debit.errors} errors)`}`,
        key: 'points.debit',
        value: rps(measuredDebits.debit),
        unit: 'req/s',
        ceiling: 'raw pg, the same transaction',
        ceilingValue: rps(measuredDebits.raw),
        ...(debitClean ? {} : { broken: `debit: ${measuredDebits.debit.errors} errors or ledger debits missing` }),
      },
    ],
  };
}

/** A tenant whose live campaign completes on every 10th visit, with `visitors` customers; answers it, its campaign and a visit. */
async function visitTenant(server: Server, db: pg.Pool, name: string, visitors: number) {
  const tenant = await bootstrap(server.url, name);
  const campaign = await createLiveCampaign(server.url, tenant, TENTH_VISIT, 'Tenth visit');
  await addCustomers(db, tenant.organizationId, 'v-', 1, visitors);
  const customers = await ids(db, tenant.organizationId, 'v-');
  const url = (i: number) => `${server.url}/priv/v1/apps/${tenant.key}/users/${pick(customers, i)}/events`;
  const request = (i: number) => ({ url: url(i), method: 'POST', headers: headersOf(tenant), body: '{"events":{"visit":1}}' });
  return { tenant, campaign, request, visit: (i: number) => send(url(i), request(i)) };
}

/** V1 on the same campaign (every 10th visit completes it) with and without a budget that never runs out. */
async function budgetPart(server: Server, db: pg.Pool, seconds: number): Promise<Part> {
  const cpu = () => server.cpu();
  const budgeted = await visitTenant(server, db, 'Budgeted', VISITORS);
  const free = await visitTenant(server, db, 'Unbudgeted', VISITORS);
  const put = await fetch(`${server.url}/priv/v1/apps/${budgeted.tenant.key}/management/campaigns/${budgeted.campaign}`, {
    method: 'PUT',
    headers: headersOf(budgeted.tenant),
    body: JSON.stringify({ campaign: { name: 'Tenth visit', status: 'live', starts_at: new Date(Date.now() - 86_400_000).toISOString(), ends_at: new Date(Date.now() + 365 * 86_400_000).toISOString(), budget: { max_completions: 2_000_000_000 } } }),
  });
  if (put.status !== 200) throw new Error(`budget not set: ${put.status} ${await put.text()}`);
  await interleavedNamed({ b: (s) => load(budgeted.visit, CONCURRENCY, s), f: (s) => load(free.visit, CONCURRENCY, s) }, 1, 1);
  const eventsOf = (organizationId: number) => db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1`, [organizationId]).then((r) => r.rows[0].n as number);
  const before = { budgeted: await eventsOf(budgeted.tenant.organizationId), free: await eventsOf(free.tenant.organizationId) };
  const v1 = await interleavedNamed(
    { budgeted: (s) => measured(cpu, () => load(budgeted.visit, CONCURRENCY, s)), free: (s) => measured(cpu, () => load(free.visit, CONCURRENCY, s)) },
    seconds,
  );
  const organization = budgeted.tenant.organizationId;
  const used = (await db.query(`SELECT budget_completions FROM campaigns WHERE id = $1`, [budgeted.campaign])).rows[0].budget_completions as number;
  const completed = Number((await db.query(`SELECT coalesce(sum(achieved), 0) AS n FROM customer_progress p JOIN customers c ON c.id = p.customer_id WHERE c.organization_id = $1`, [organization])).rows[0].n);
  const visits = Number((await db.query(`SELECT count(*) AS n FROM events WHERE organization_id = $1`, [organization])).rows[0].n);
  // One event stored per visit answered 200, on each side; the unbudgeted campaign is the baseline.
  const tallies: Tally[] = [
    { name: 'V1 visit, budgeted', role: 'workload', errors: v1.budgeted.errors, stored: (await eventsOf(organization)) - before.budgeted, expected: v1.budgeted.statuses[200] ?? 0, unit: 'events' },
    { name: 'V1 visit, no budget', role: 'baseline', errors: v1.free.errors, stored: (await eventsOf(free.tenant.organizationId)) - before.free, expected: v1.free.statuses[200] ?? 0, unit: 'events' },
  ];
  checkTallies(tallies);
  const budgetRatio = clean(tallies[0]) ? rps(v1.budgeted) / rps(v1.free) : 0;
  return {
    output:
      table(['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', ...CPU_COLUMNS], [
        summary('V1 visit, campaign with a budget (10% complete)', v1.budgeted, v1.free),
        summary('V1 visit, the same campaign without a budget', v1.free, v1.free),
      ]) +
      `budgeted campaign: ${fmt(completed)} completions of ${fmt(visits)} events (${ratio(completed, visits)}); budget_used.completions ${fmt(used)} (${used === completed ? 'exact' : 'MISMATCH'}); ` +
      `V1 with a budget ${ratio(rps(v1.budgeted), rps(v1.free))} of without (target ≥ 90%: ${met(budgetRatio >= 0.9)})\n` +
      tallyLines(tallies),
    figures: [
      { figure: 'V1 with a budgeted campaign (10% complete)', value: rps(v1.budgeted), unit: 'req/s', ceiling: 'the same without a budget', ceilingValue: rps(v1.free), target: '≥ 90%', met: budgetRatio >= 0.9 },
    ],
  };
}

/**
 * The expiry sweeper over 1,000,000 due credits (100,000 customers with 10 each). V1 at a fixed rate with a worker
 * running and nothing due; then, the credits built (and their writes flushed), while one worker sweeps at the default
 * POINTS_EXPIRY_RATE (from its first credit expired on: the start of a Node process is not the sweep), as long; then a
 * worker without a rate limit drains the rest, and every customer's ledger is checked.
 */
async function expiryPart(server: Server, db: pg.Pool): Promise<Part> {
  const visitors = await visitTenant(server, db, 'Visitors', VISITORS);
  const windows = (total: number) => openLoopWindows(visitors.request, V1_RATE, WINDOW, total);
  // Without the sweep: a worker running with nothing due, as long as the sweep is measured.
  const visits = () => db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1`, [visitors.tenant.organizationId]).then((r) => r.rows[0].n as number);
  const idle = startNode('dist/src/worker.js', server.env);
  await windows(WINDOW); // warm-up
  const aloneFrom = await visits();
  const alone = await windows(SWEEP_SECONDS);
  await stopChild(idle);
  // The baseline (V1 without the sweep): no error, one event stored per answer 2xx.
  const baseline: Tally = { name: 'V1 at a fixed rate, nothing due', role: 'baseline', errors: sentIn(alone) - answeredIn(alone), stored: (await visits()) - aloneFrom, expected: answeredIn(alone), unit: 'events' };
  checkTallies([baseline]);
  const expiring = await bootstrap(server.url, 'Expiring');
  await addCustomers(db, expiring.organizationId, 'x-', 1, DUE_CUSTOMERS);
  const built = performance.now();
  await db.query(
    `WITH c AS (UPDATE customers SET available_points = $2 * 10, lifetime_points = $2 * 10 WHERE organization_id = $1 RETURNING id)
     INSERT INTO points_ledger (organization_id, customer_id, amount, reason, expires_at, remaining, occurred_at)
     SELECT $1, c.id, 10, 'behavior', now() - interval '1 hour' + k * interval '1 second', 10, now() - interval '400 days' FROM c, generate_series(1, $2) k`,
    [expiring.organizationId, CREDITS_EACH],
  );
  await db.query('ANALYZE points_ledger');
  await db.query('CHECKPOINT');
  execFileSync('sync'); // the kernel writes the build's pages now, not during the windows measured
  const buildSeconds = (performance.now() - built) / 1000;
  const due = async () => Number((await db.query(`SELECT count(*) AS n FROM points_ledger WHERE remaining > 0 AND expires_at <= now()`)).rows[0].n);
  const dueBefore = await due();
  const sweeping = <T>(env: Record<string, string>, work: () => Promise<T>) => sweepRate({ ...server.env, ...env }, due, work);
  const paced = await sweeping({}, () => windows(SWEEP_SECONDS));
  const drained = await sweeping({ POINTS_EXPIRY_RATE: '1000000' }, async () => {
    while ((await due()) > 0) await sleep(1000);
  });
  const mismatched = Number(
    (
      await db.query(
        `SELECT count(*) AS n FROM customers c WHERE organization_id = $1 AND available_points <> (SELECT coalesce(sum(amount), 0) FROM points_ledger WHERE customer_id = c.id)`,
        [expiring.organizationId],
      )
    ).rows[0].n,
  );
  const [p99Alone, p99During] = [percentile(latenciesIn(alone), 99), percentile(latenciesIn(paced.result), 99)];
  const metRatio = p99During <= 1.5 * p99Alone;
  return {
    output:
      table(['expiry sweeper', 'value', 'target', ''], [
        ['due credits expired', `${fmt(dueBefore - drained.left)} of ${fmt(dueBefore)} (built in ${buildSeconds.toFixed(1)} s)`, 'all', met(drained.left === 0)],
        ['credits expired per second, POINTS_EXPIRY_RATE default (2,000)', fmt(paced.rate), '', ''],
        ['credits expired per second, no rate limit (the rest)', fmt(drained.rate), '', ''],
        [`V1 p99 at ${V1_RATE}/s, a worker with nothing due (${SWEEP_SECONDS} s)`, `${p99Alone.toFixed(1)} ms (${latenciesIn(alone).length} requests)`, '', ''],
        [`V1 p99 at ${V1_RATE}/s while it sweeps at the default rate (${SWEEP_SECONDS} s)`, `${p99During.toFixed(1)} ms (${latenciesIn(paced.result).length} requests)`, `≤ 1.5× (${(1.5 * p99Alone).toFixed(1)} ms)`, met(metRatio)],
        ['customers whose ledger sum differs from available_points after the sweep', String(mismatched), '0', met(mismatched === 0)],
      ]) +
      `V1 p99 of each ${WINDOW} s window (ms), nothing due: ${p99OfEach(alone)}; sweeping: ${p99OfEach(paced.result)}\n` +
      tallyLines([baseline, { name: 'V1 at a fixed rate while it sweeps', role: 'workload', errors: sentIn(paced.result) - answeredIn(paced.result), stored: answeredIn(paced.result), expected: sentIn(paced.result), unit: 'answers 2xx' }]),
    figures: [
      { figure: 'expiry sweeper, default rate', value: paced.rate, unit: 'credits/s' },
      { figure: 'expiry sweeper, no rate limit', value: drained.rate, unit: 'credits/s', target: 'all expired', met: drained.left === 0 },
      { figure: 'V1 p99 while the sweeper runs', value: p99During, unit: 'ms', ceiling: 'V1 p99 without it', ceilingValue: p99Alone, ratioAs: '×', target: '≤ 1.5×', met: metRatio },
    ],
  };
}
