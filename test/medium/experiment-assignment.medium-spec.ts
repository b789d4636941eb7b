import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tenant } from '../../src/common/http/request-context.js';
import { AnalyticsModule } from '../../src/modules/analytics/analytics.module.js';
import { AnalyticsRepository } from '../../src/modules/analytics/analytics.repository.js';
import { AuditModule } from '../../src/modules/audit/audit.module.js';
import { V1EventsUseCase } from '../../src/modules/events/v1-events.use-case.js';
import { ExperimentsModule } from '../../src/modules/experiments/experiments.module.js';
import { ExperimentsUseCase } from '../../src/modules/experiments/experiments.use-case.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { v1Request } from './support/evaluations.js';
import { bumpRules, seedCampaign, seedCustomers, seedTenant } from './support/seed.js';

const NOW = Date.UTC(2026, 10, 20, 12);
const EXPERIMENT = { holdout_percent: 0, variants: [{ name: 'A', weight: 1 }], metric: { event: 'purchase', attribute: 'amount' } };

/**
 * Assignment on the real database (contract §20): a customer's concurrent first events assign them once, and their
 * metric and the group's sums count every event exactly once.
 */
describe('experiment assignment on the real database', () => {
  let ctx: MediumContext;

  beforeAll(async () => {
    ctx = await createMediumContext({ databasePoolSize: 8 }, NOW, [AuditModule, AnalyticsModule, ExperimentsModule]);
  });
  afterAll(() => ctx.close());

  async function shop() {
    const tenant: Tenant = await seedTenant(ctx.db);
    const { campaignId } = await seedCampaign(ctx.db, tenant, [{ event: 'purchase', points: 10 }]);
    await ctx.db.query(`UPDATE campaigns SET experiment = $2 WHERE id = $1`, [campaignId, JSON.stringify(EXPERIMENT)]);
    await bumpRules(ctx.db, tenant.organizationId);
    return { tenant, campaignId };
  }

  const purchase = (tenant: Tenant, customerId: string, amount: number, at: number, transactionId: string) =>
    ctx.app.get(V1EventsUseCase).execute(v1Request(tenant, { userId: customerId }, { purchase: { amount } }, { date: new Date(at).toISOString(), transaction_id: transactionId }));

  it("assigns a customer once under 12 concurrent first events, at the earliest evaluated event's time, and counts each event once", async () => {
    const { tenant, campaignId } = await shop();
    const [customer] = await seedCustomers(ctx.db, tenant, 1);
    const amounts = Array.from({ length: 12 }, (_, i) => i + 0.5);
    await Promise.all(amounts.map((amount, i) => purchase(tenant, customer.id, amount, NOW - 60_000 + i * 1000, `t-${i}`)));

    const rows = await ctx.db.query(`SELECT group_name, assigned_at, metric_sum::float8 AS x, metric_events FROM experiment_assignments WHERE customer_id = $1`, [customer.id]);
    expect(rows).toHaveLength(1);
    // The first event evaluated assigns; the ones before it in time (evaluated later) are not measured.
    const assignedAt = (rows[0].assigned_at as Date).getTime();
    const measured = amounts.filter((_, i) => NOW - 60_000 + i * 1000 >= assignedAt);
    expect(rows[0]).toMatchObject({ group_name: 'A', metric_events: measured.length, x: measured.reduce((a, b) => a + b, 0) });
    expect(measured.length).toBeGreaterThan(0);

    const results = await ctx.app.get(ExperimentsUseCase).results(tenant, campaignId);
    expect(results.started_at).toBe(new Date(assignedAt).toISOString());
    expect(results.groups).toEqual([
      expect.objectContaining({ name: 'holdout', customers: 0 }),
      expect.objectContaining({ name: 'A', customers: 1, converted: 1, metric_sum: rows[0].x, metric_mean: rows[0].x, metric_variance: null, achievements: 12, points_credited: 120 }),
    ]);
  });

  it("keeps the groups' sums equal to the customers' rows under concurrent customers and folds running beside them", async () => {
    const { tenant, campaignId } = await shop();
    const customers = await seedCustomers(ctx.db, tenant, 16);
    const fold = ctx.app.get(AnalyticsRepository);
    let folding = true;
    const folds = (async () => {
      while (folding) await fold.foldAll();
    })();
    await Promise.all(customers.map((c, k) => Promise.all([1, 2, 3].map((n) => purchase(tenant, c.id, k * n, NOW - 1000 + n, `${c.id}-${n}`)))));
    folding = false;
    await folds;

    const [stored] = await ctx.db.query(
      `SELECT count(*)::int AS customers, count(*) FILTER (WHERE metric_events > 0)::int AS converted, sum(metric_sum)::float8 AS sum, sum(metric_sum * metric_sum)::float8 AS squares
         FROM experiment_assignments WHERE campaign_id = $1`,
      [campaignId],
    );
    await fold.foldAll();
    const [sums] = await ctx.db.query(
      `SELECT customers::int, converted::int, metric_sum::float8 AS sum, metric_sum_squares::float8 AS squares FROM experiment_groups WHERE campaign_id = $1 AND group_name = 'A'`,
      [campaignId],
    );
    expect(stored.customers).toBe(16);
    expect(sums).toEqual(stored);
  });
});
