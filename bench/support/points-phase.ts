/**
 * Issue #16's benchmarks, on a fresh database and API process of their own (see points.bench.ts): a debit against the
 * raw `pg` ceiling of the same transaction; V1 with a budgeted campaign where 10% of events complete, against the same
 * campaign without a budget; and the expiry sweeper over 1,000,000 due credits, with V1's p99 while it runs against
 * V1's p99 without it.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { UnitOfWork } from '../../src/common/database/unit-of-work.js';
import { PointsRepository } from '../../src/modules/points/points.repository.js';
import { addCustomers } from './customers.js';
import { createLiveCampaign } from './campaign.js';
import { CPU_COLUMNS, interleavedNamed, load, measured, percentile, send, summary, table } from './load.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { startNode, stopChild } from './processes.js';
import { bootstrap, startServer } from './server.js';
import { fmt, ratio, type Figure } from './summary.js';

const CONCURRENCY = 10;
const CUSTOMERS = 10_000;
/** Customers of the budget comparison: few enough that each reaches its 10th visit many times in the run. */
const VISITORS = 200;
const DUE_CUSTOMERS = 100_000;
const CREDITS_EACH = 10;
/** V1 requests per second while the sweeper runs (and without it). */
const V1_RATE = 100;

/** Every 10th visit completes the behavior: 10% of events complete. */
const TENTH_VISIT = [{ name: 'Tenth visit', points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 10 } }] }] }];

export async function runPoints({ seconds, port = 3950 }: { seconds: number; port?: number }): Promise<{ output: string; figures: Figure[] }> {
  const server = await startServer(port);
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: CONCURRENCY + 2 });
  let worker: ChildProcess | undefined;
  try {
    const cpu = () => server.cpu();
    const headersOf = (t: { auth: string }) => ({ authorization: t.auth, 'content-type': 'application/json' });
    const ids = async (organizationId: number, prefix: string) =>
      (await db.query(`SELECT id FROM customers WHERE organization_id = $1 AND external_id LIKE $2 || '%' ORDER BY id`, [organizationId, prefix])).rows.map((r) => r.id as string);
    const pick = (list: string[], i: number) => list[(i * 7919) % list.length];

    // A debit, and the same transaction over raw pg: lock the customer, then PointsRepository.debit's statement.
    const spender = await bootstrap(server.url, 'Spender');
    await addCustomers(db, spender.organizationId, 'spend-', 1, 2 * CUSTOMERS);
    await db.query(
      `WITH c AS (UPDATE customers SET available_points = 1000000000 WHERE organization_id = $1 RETURNING id)
       INSERT INTO points_ledger (organization_id, customer_id, amount, reason) SELECT $1, id, 1000000000, 'behavior' FROM c`,
      [spender.organizationId],
    );
    const spendIds = await ids(spender.organizationId, 'spend-');
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
      } finally {
        client.release();
      }
    };
    await interleavedNamed({ debit: (s) => load(debit, CONCURRENCY, s), raw: (s) => load(rawDebit, CONCURRENCY, s) }, 1, 1);
    const debits = await interleavedNamed({ debit: (s) => measured(cpu, () => load(debit, CONCURRENCY, s)), raw: (s) => measured(cpu, () => load(rawDebit, CONCURRENCY, s)) }, seconds);

    // V1 on the same campaign (every 10th visit completes it) with and without a budget that never runs out.
    const budgeted = await bootstrap(server.url, 'Budgeted');
    const free = await bootstrap(server.url, 'Unbudgeted');
    const budgetedCampaign = await createLiveCampaign(server.url, budgeted, TENTH_VISIT, 'Tenth visit');
    await createLiveCampaign(server.url, free, TENTH_VISIT, 'Tenth visit');
    const put = await fetch(`${server.url}/priv/v1/apps/${budgeted.key}/management/campaigns/${budgetedCampaign}`, {
      method: 'PUT',
      headers: headersOf(budgeted),
      body: JSON.stringify({ campaign: { name: 'Tenth visit', status: 'live', starts_at: new Date(Date.now() - 86_400_000).toISOString(), ends_at: new Date(Date.now() + 365 * 86_400_000).toISOString(), budget: { max_completions: 2_000_000_000 } } }),
    });
    if (put.status !== 200) throw new Error(`budget not set: ${put.status} ${await put.text()}`);
    await addCustomers(db, budgeted.organizationId, 'b-', 1, VISITORS);
    await addCustomers(db, free.organizationId, 'f-', 1, VISITORS);
    const [budgetedIds, freeIds] = [await ids(budgeted.organizationId, 'b-'), await ids(free.organizationId, 'f-')];
    const visit = (tenant: typeof budgeted, list: string[]) => (i: number) =>
      send(`${server.url}/priv/v1/apps/${tenant.key}/users/${pick(list, i)}/events`, { method: 'POST', headers: headersOf(tenant), body: '{"events":{"visit":1}}' });
    await interleavedNamed({ b: (s) => load(visit(budgeted, budgetedIds), CONCURRENCY, s), f: (s) => load(visit(free, freeIds), CONCURRENCY, s) }, 1, 1);
    const v1 = await interleavedNamed(
      { budgeted: (s) => measured(cpu, () => load(visit(budgeted, budgetedIds), CONCURRENCY, s)), free: (s) => measured(cpu, () => load(visit(free, freeIds), CONCURRENCY, s)) },
      seconds,
    );
    const used = (await db.query(`SELECT budget_completions FROM campaigns WHERE id = $1`, [budgetedCampaign])).rows[0].budget_completions as number;
    const completed = Number((await db.query(`SELECT coalesce(sum(achieved), 0) AS n FROM customer_progress p JOIN customers c ON c.id = p.customer_id WHERE c.organization_id = $1`, [budgeted.organizationId])).rows[0].n);
    const visits = Number((await db.query(`SELECT count(*) AS n FROM events WHERE organization_id = $1`, [budgeted.organizationId])).rows[0].n);

    // The expiry sweeper over 1,000,000 due credits (100,000 customers with 10 each), V1 at a fixed rate meanwhile.
    const expiring = await bootstrap(server.url, 'Expiring');
    await addCustomers(db, expiring.organizationId, 'x-', 1, DUE_CUSTOMERS);
    const built = performance.now();
    await db.query(
      `WITH c AS (UPDATE customers SET available_points = $2 * 10, lifetime_points = $2 * 10 WHERE organization_id = $1 RETURNING id)
       INSERT INTO points_ledger (organization_id, customer_id, amount, reason, expires_at, remaining)
       SELECT $1, c.id, 10, 'behavior', now() - interval '1 hour' + k * interval '1 second', 10 FROM c, generate_series(1, $2) k`,
      [expiring.organizationId, CREDITS_EACH],
    );
    await db.query('ANALYZE points_ledger');
    await db.query('CHECKPOINT');
    const buildSeconds = (performance.now() - built) / 1000;
    const due = async () => Number((await db.query(`SELECT count(*) AS n FROM points_ledger WHERE remaining > 0 AND expires_at <= now()`)).rows[0].n);
    const dueBefore = await due();
    const v1At = (s: number) => openLoop((i) => ({ url: `${server.url}/priv/v1/apps/${free.key}/users/${pick(freeIds, i)}/events`, method: 'POST', headers: headersOf(free), body: '{"events":{"visit":1}}' }), V1_RATE, s);
    await v1At(2);
    const alone = await v1At(seconds);
    worker = startNode('dist/src/worker.js', server.env);
    const sweepStart = performance.now();
    const during: OpenLoopResult[] = [];
    while ((await due()) > 0 && performance.now() - sweepStart < 600_000) during.push(await v1At(Math.min(seconds, 5)));
    const sweepSeconds = (performance.now() - sweepStart) / 1000;
    const dueAfter = await due();
    const latencies = during.flatMap((r) => r.latenciesMs);
    const p99Alone = percentile(alone.latenciesMs, 99);
    const p99During = percentile(latencies, 99);
    const mismatched = Number(
      (
        await db.query(
          `SELECT count(*) AS n FROM customers c WHERE organization_id = $1 AND available_points <> (SELECT coalesce(sum(amount), 0) FROM points_ledger WHERE customer_id = c.id)`,
          [expiring.organizationId],
        )
      ).rows[0].n,
    );

    const rps = (r: { requests: number; seconds: number }) => r.requests / r.seconds;
    const budgetRatio = rps(v1.budgeted) / rps(v1.free);
    const rate = (dueBefore - dueAfter) / sweepSeconds;
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const output =
      table(['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', ...CPU_COLUMNS], [
        summary('debit POST users/:id/points/debits', debits.debit, debits.raw),
        summary('raw pg: lock + the same debit statement (ceiling)', debits.raw, debits.raw),
        summary('V1 visit, campaign with a budget (10% complete)', v1.budgeted, v1.free),
        summary('V1 visit, the same campaign without a budget', v1.free, v1.free),
      ]) +
      `budgeted campaign: ${fmt(completed)} completions of ${fmt(visits)} events (${ratio(completed, visits)}); budget_used.completions ${fmt(used)} (${used === completed ? 'exact' : 'MISMATCH'}); ` +
      `V1 with a budget ${ratio(rps(v1.budgeted), rps(v1.free))} of without (target ≥ 90%: ${met(budgetRatio >= 0.9)})\n\n` +
      table(['expiry sweeper', 'value', 'target', ''], [
        ['due credits expired', `${fmt(dueBefore - dueAfter)} of ${fmt(dueBefore)} in ${sweepSeconds.toFixed(1)} s (built in ${buildSeconds.toFixed(1)} s)`, 'all', met(dueAfter === 0)],
        ['credits expired per second (one worker)', fmt(rate), '', ''],
        [`V1 p99 at ${V1_RATE}/s without the sweeper`, `${p99Alone.toFixed(1)} ms (${alone.latenciesMs.length} requests)`, '', ''],
        [`V1 p99 at ${V1_RATE}/s while it sweeps`, `${p99During.toFixed(1)} ms (${latencies.length} requests)`, `≤ 1.5× (${(1.5 * p99Alone).toFixed(1)} ms)`, met(p99During <= 1.5 * p99Alone)],
        ['customers whose ledger sum differs from available_points after the sweep', String(mismatched), '0', met(mismatched === 0)],
      ]);
    return {
      output,
      figures: [
        { figure: 'debit (points spent)', value: rps(debits.debit), unit: 'req/s', ceiling: 'raw pg, the same transaction', ceilingValue: rps(debits.raw) },
        { figure: 'V1 with a budgeted campaign (10% complete)', value: rps(v1.budgeted), unit: 'req/s', ceiling: 'the same without a budget', ceilingValue: rps(v1.free), target: '≥ 90%', met: budgetRatio >= 0.9 },
        { figure: 'expiry sweeper, 1,000,000 due credits', value: rate, unit: 'credits/s', target: 'all expired', met: dueAfter === 0 },
        { figure: 'V1 p99 while the sweeper runs', value: p99During, unit: 'ms', ceiling: 'V1 p99 without it', ceilingValue: p99Alone, ratioAs: '×', target: '≤ 1.5×', met: p99During <= 1.5 * p99Alone },
      ],
    };
  } finally {
    if (worker) await stopChild(worker);
    await db.end();
    await server.stop();
  }
}
