import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { Tenant } from '../../src/common/http/request-context.js';
import { AnalyticsModule } from '../../src/modules/analytics/analytics.module.js';
import { AuditModule } from '../../src/modules/audit/audit.module.js';
import { AnalyticsBackfill } from '../../src/modules/analytics/analytics-backfill.js';
import { AnalyticsBackfillRepository } from '../../src/modules/analytics/analytics-backfill.repository.js';
import { AnalyticsRepository } from '../../src/modules/analytics/analytics.repository.js';
import { AnalyticsSweeper } from '../../src/modules/analytics/analytics.sweeper.js';
import { AnalyticsWorkerModule } from '../../src/modules/analytics/analytics-worker.module.js';
import { AnalyticsUseCase } from '../../src/modules/analytics/analytics.use-case.js';
import { V1EventsUseCase } from '../../src/modules/events/v1-events.use-case.js';
import { PointsModule } from '../../src/modules/points/points.module.js';
import { ReversalUseCase } from '../../src/modules/points/reversal.use-case.js';
import { useOwnDatabase } from '../support/database.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { v1Request } from './support/evaluations.js';
import { seedCampaign, seedCustomers, seedTenant, type SeededCustomer } from './support/seed.js';

const DAY = 86_400_000;
/** 2026-03-02, the first day of the histories. */
const FIRST = Date.UTC(2026, 2, 2);

interface Counts {
  events: number;
  participants: number;
  achievements: number;
  points_credited: number;
  points_reversed: number;
}

/**
 * The read model the event path keeps (decision 0022) against the events themselves: under concurrent evaluations of
 * one campaign, and for random histories with reversals, the analytics equal a count over the stored events.
 */
describe('campaign analytics on the real database', () => {
  let ctx: MediumContext;

  beforeAll(async () => {
    // A database of its own: the backfill walks a range of every organization's events, which another file's events
    // written meanwhile would fall into (the experiments' medium spec's did, once).
    await useOwnDatabase('campaign_analytics');
    ctx = await createMediumContext({ databasePoolSize: 8 }, FIRST + 30 * DAY, [AuditModule, AnalyticsModule, AnalyticsWorkerModule, PointsModule]);
  });
  afterAll(() => ctx.close());

  /** A tenant in `timeZone` with one campaign: "purchase" completes every 2nd time (10 points), "review" every time (3). */
  async function shop(timeZone: string) {
    const tenant: Tenant = { ...(await seedTenant(ctx.db)), timeZone };
    await ctx.db.query(`UPDATE organizations SET time_zone = $2 WHERE id = $1`, [tenant.organizationId, timeZone]);
    const { campaignId } = await seedCampaign(ctx.db, tenant, [
      { event: 'purchase', points: 10, eventCount: 2 },
      { event: 'review', points: 3 },
    ]);
    return { tenant, campaignId };
  }

  const send = (tenant: Tenant, customer: SeededCustomer, name: string, at: number, transactionId: string) =>
    ctx.app.get(V1EventsUseCase).execute(v1Request(tenant, { userId: customer.id }, { [name]: 1 }, { date: new Date(at).toISOString(), transaction_id: transactionId }));

  const analytics = (tenant: Tenant, campaignId: number, from: string, to: string) => ctx.app.get(AnalyticsUseCase).analytics(tenant, campaignId, { from, to });

  /** What the stored events say, by day of the organization's zone (and the range's distinct participants and achievers). */
  async function counted(tenant: Tenant, from: string, to: string) {
    const rows = (await ctx.db.query(
      `WITH e AS (
         SELECT e.id, e.customer_id, (e.occurred_at AT TIME ZONE $2)::date AS day,
                EXISTS (SELECT 1 FROM event_reversals r WHERE r.api_key_id = e.api_key_id AND r.transaction_id = e.transaction_id) AS reversed
           FROM events e WHERE e.organization_id = $1 AND e.name IN ('purchase', 'review') AND e.status = 'processed'
       ), c AS (SELECT e.day, e.customer_id, e.reversed, l.amount, l.reason FROM e JOIN points_ledger l ON l.event_id = e.id AND l.amount > 0)
       SELECT d.day::date::text AS day,
              (SELECT count(*) FROM e WHERE e.day = d.day::date)::int AS events,
              (SELECT count(DISTINCT customer_id) FROM e WHERE e.day = d.day::date)::int AS participants,
              (SELECT count(*) FROM c WHERE c.day = d.day::date AND c.reason = 'behavior' AND NOT c.reversed)::int AS achievements,
              (SELECT coalesce(sum(amount), 0) FROM c WHERE c.day = d.day::date)::int AS points_credited,
              (SELECT coalesce(sum(amount), 0) FROM c WHERE c.day = d.day::date AND c.reversed)::int AS points_reversed
         FROM generate_series($3::date, $4::date, interval '1 day') AS d(day) ORDER BY d.day`,
      [tenant.organizationId, tenant.timeZone, from, to],
    )) as Array<Counts & { day: string }>;
    const [range] = (await ctx.db.query(
      `SELECT count(DISTINCT e.customer_id)::int AS participants,
              count(DISTINCT e.customer_id) FILTER (WHERE l.reason = 'behavior' AND NOT EXISTS (
                SELECT 1 FROM event_reversals r WHERE r.api_key_id = e.api_key_id AND r.transaction_id = e.transaction_id))::int AS customers_achieved
         FROM events e LEFT JOIN points_ledger l ON l.event_id = e.id AND l.amount > 0
        WHERE e.organization_id = $1 AND e.name IN ('purchase', 'review') AND e.status = 'processed' AND (e.occurred_at AT TIME ZONE $2)::date BETWEEN $3::date AND $4::date`,
      [tenant.organizationId, tenant.timeZone, from, to],
    )) as Array<{ participants: number; customers_achieved: number }>;
    return { days: rows, range };
  }

  const series = (a: Awaited<ReturnType<typeof analytics>>) =>
    a.series.map((s) => ({ day: s.period, events: s.events, participants: s.participants, achievements: s.achievements, points_credited: s.points_credited, points_reversed: s.points_reversed }));

  it('counts exactly under concurrent evaluations of one campaign by many customers, folded while they run', async () => {
    const { tenant, campaignId } = await shop('UTC');
    const customers = await seedCustomers(ctx.db, tenant, 24);
    const repository = ctx.app.get(AnalyticsRepository);
    // 24 customers × 8 events over 4 days, all at once on a pool of 8 connections, with folds running beside them.
    let sending = true;
    const folding = (async () => {
      let folds = 0;
      while (sending) folds += (await repository.foldAll()) > 0 ? 1 : 0;
      return folds;
    })();
    await Promise.all(
      customers.flatMap((customer, c) =>
        Array.from({ length: 8 }, (_, i) => send(tenant, customer, i % 3 === 0 ? 'review' : 'purchase', FIRST + (i % 4) * DAY + c * 60_000, `c${c}-${i}`)),
      ),
    );
    sending = false;
    expect(await folding).toBeGreaterThan(0);
    const a = await analytics(tenant, campaignId, '2026-03-02', '2026-03-05');
    const expected = await counted(tenant, '2026-03-02', '2026-03-05');
    expect(series(a)).toEqual(expected.days);
    expect(a.totals.events).toBe(24 * 8);
    expect(a.totals.participants).toBe(24);
    expect(expected.days.map((d) => d.participants)).toEqual([24, 24, 24, 24]);
    // The read folded what was left: nothing waits in the activity table.
    expect(await ctx.db.query(`SELECT count(*)::int AS n FROM campaign_activity`)).toEqual([{ n: 0 }]);
  });

  it("the workers' sweep folds what evaluations appended, without a read", async () => {
    const { tenant, campaignId } = await shop('UTC');
    const [customer] = await seedCustomers(ctx.db, tenant, 1);
    await send(tenant, customer, 'review', FIRST, 'swept-1');
    await send(tenant, customer, 'review', FIRST + DAY, 'swept-2');
    await ctx.app.get(AnalyticsSweeper).sweep();
    expect(await ctx.db.query(`SELECT count(*)::int AS n FROM campaign_activity`)).toEqual([{ n: 0 }]);
    expect(
      await ctx.db.query(`SELECT day::text, events::int, participants, achievements, points_credited::int FROM campaign_daily WHERE campaign_id = $1 AND behavior_id = 0 ORDER BY day`, [campaignId]),
    ).toEqual([
      { day: '2026-03-02', events: 1, participants: 1, achievements: 1, points_credited: 3 },
      { day: '2026-03-03', events: 1, participants: 1, achievements: 1, points_credited: 3 },
    ]);
  });

  it('equals a count over the stored events for random histories, reversals included (property)', async () => {
    const history = fc.record({
      timeZone: fc.constantFrom('UTC', 'Australia/Lord_Howe', 'America/New_York', 'Pacific/Kiritimati'),
      events: fc.array(fc.record({ customer: fc.nat(3), name: fc.constantFrom('purchase', 'review', 'wave'), minute: fc.nat(6 * 24 * 60 - 1), reversed: fc.boolean() }), {
        minLength: 1,
        maxLength: 25,
      }),
      from: fc.nat(5),
      length: fc.integer({ min: 1, max: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(history, async (h) => {
        const { tenant, campaignId } = await shop(h.timeZone);
        const customers = await seedCustomers(ctx.db, tenant, 4);
        const sent: Array<{ customer: SeededCustomer; transactionId: string; reversed: boolean }> = [];
        for (const [i, e] of h.events.entries()) {
          const transactionId = `t-${i}`;
          await send(tenant, customers[e.customer], e.name, FIRST + e.minute * 60_000, transactionId);
          sent.push({ customer: customers[e.customer], transactionId, reversed: e.reversed });
        }
        for (const s of sent.filter((x) => x.reversed)) await ctx.app.get(ReversalUseCase).reverse(tenant, { userId: s.customer.id }, { transaction_id: s.transactionId });
        const from = new Date(FIRST + (h.from - 1) * DAY).toISOString().slice(0, 10);
        const to = new Date(FIRST + (h.from - 1 + h.length) * DAY).toISOString().slice(0, 10);
        const [a, expected] = await Promise.all([analytics(tenant, campaignId, from, to), counted(tenant, from, to)]);
        expect(series(a)).toEqual(expected.days);
        expect({ participants: a.totals.participants, customers_achieved: a.totals.customers_achieved }).toEqual(expected.range);
      }),
      { numRuns: 12 },
    );
  });

  it('backfills the events processed before the read model existed, each once, resumably, and leaves later ones to the event path', async () => {
    const { tenant, campaignId } = await shop('America/New_York');
    const customers = await seedCustomers(ctx.db, tenant, 3);
    const [{ last }] = (await ctx.db.query(`SELECT coalesce(max(id), 0)::text AS last FROM events`)) as Array<{ last: string }>;
    for (const [i, name] of ['purchase', 'purchase', 'review', 'purchase', 'review', 'wave', 'purchase'].entries()) {
      await send(tenant, customers[i % 3], name, FIRST + i * 7 * 3_600_000, `old-${i}`);
    }
    await ctx.app.get(ReversalUseCase).reverse(tenant, { userId: customers[2].id }, { transaction_id: 'old-2' });
    // As if these had been processed before the migration: the read model knows nothing of them.
    await ctx.app.get(AnalyticsRepository).foldAll();
    for (const table of ['campaign_daily', 'campaign_participants', 'campaign_achievers']) await ctx.db.query(`DELETE FROM ${table} WHERE campaign_id = $1`, [campaignId]);
    await ctx.db.query(`UPDATE analytics_backfill SET processed_before = clock_timestamp(), until_id = (SELECT max(id) FROM events), after_id = $1, done_at = NULL`, [last]);
    // Processed after the migration: the event path counts it, the backfill leaves it.
    await send(tenant, customers[0], 'review', FIRST + 3 * DAY, 'new-1');

    // Batches of 2, then a run to the end: the cursor carries the walk on.
    const steps = ctx.app.get(AnalyticsBackfillRepository);
    expect(await steps.step(ctx.db, 2)).toEqual({ read: 2, counted: 2, done: false });
    expect(await steps.step(ctx.db, 2)).toEqual({ read: 2, counted: 2, done: false });
    const report = await ctx.app.get(AnalyticsBackfill).run({ paced: false, wait: true });
    expect(report).toMatchObject({ events: 3, counted: 3, complete: true });
    expect(await ctx.app.get(AnalyticsBackfill).run({ paced: false, wait: true })).toMatchObject({ events: 0, complete: true });

    const a = await analytics(tenant, campaignId, '2026-03-01', '2026-03-06');
    const expected = await counted(tenant, '2026-03-01', '2026-03-06');
    expect(series(a)).toEqual(expected.days);
    expect({ participants: a.totals.participants, customers_achieved: a.totals.customers_achieved }).toEqual(expected.range);
    expect(a.totals.events).toBe(7);
  });
});
