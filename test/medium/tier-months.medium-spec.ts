import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import type { Tenant } from '../../src/common/http/request-context.js';
import { EvaluationModule } from '../../src/modules/evaluation/evaluation.module.js';
import { V1EventsUseCase } from '../../src/modules/events/v1-events.use-case.js';
import { ReversalRepository } from '../../src/modules/points/reversal.repository.js';
import { ReversalUseCase } from '../../src/modules/points/reversal.use-case.js';
import { v1Request } from './support/evaluations.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { bumpRules, seedCampaign, seedCustomer, seedTenant } from './support/seed.js';

@Module({ imports: [EvaluationModule], providers: [ReversalRepository, ReversalUseCase] })
class ReversalsModule {}

/** What qualifies for tiers, by month of the organization's time zone (contract §17, decision 0019). */
describe('customer_tier_months on the real database', () => {
  let ctx: MediumContext;
  let tenant: Tenant;
  let behaviorId: number;
  let gold: number;

  beforeAll(async () => {
    ctx = await createMediumContext({}, undefined, [ReversalsModule]);
    tenant = await seedTenant(ctx.db);
    await ctx.db.query(`UPDATE organizations SET time_zone = 'America/New_York' WHERE id = $1`, [tenant.organizationId]);
    ({ behaviorIds: [behaviorId] } = await seedCampaign(ctx.db, tenant, [{ event: 'purchase', points: 10 }]));
    [{ id: gold }] = await ctx.db.query(`INSERT INTO tiers (organization_id, name, min_points) VALUES ($1, 'Gold', 5000) RETURNING id`, [tenant.organizationId]);
  });
  afterAll(() => ctx?.close());

  const months = async (customerId: string) =>
    (await ctx.db.query(`SELECT to_char(month, 'YYYY-MM') AS month, points, outcome_tier_ids FROM customer_tier_months WHERE customer_id = $1 ORDER BY month`, [customerId])) as Array<{
      month: string;
      points: number;
      outcome_tier_ids: number[];
    }>;
  const purchase = (customerId: string, date: string, transactionId?: string) =>
    ctx.app.get(V1EventsUseCase).execute(v1Request(tenant, { userId: customerId }, { purchase: 1 }, { date, ...(transactionId ? { transaction_id: transactionId } : {}) }));

  it("adds each credit to the month of its event's time in the organization's zone, back-dated events included", async () => {
    const customer = await seedCustomer(ctx.db, tenant);
    await purchase(customer.id, '2026-01-01T04:30:00Z'); // 31 December 23:30 in New York
    await purchase(customer.id, '2026-01-01T05:30:00Z');
    await purchase(customer.id, '2026-01-20T12:00:00Z');
    expect(await months(customer.id)).toEqual([
      { month: '2025-12', points: 10, outcome_tier_ids: [] },
      { month: '2026-01', points: 20, outcome_tier_ids: [] },
    ]);
  });

  it('records the tiers tier outcomes named, whether or not they moved the tier', async () => {
    await ctx.db.query(`UPDATE behaviors SET outcome_config = $2 WHERE id = $1`, [behaviorId, JSON.stringify([{ id: 1, tier: { name: 'Gold' } }])]);
    await bumpRules(ctx.db, tenant.organizationId);
    const customer = await seedCustomer(ctx.db, tenant);
    await purchase(customer.id, '2026-03-10T12:00:00Z');
    await purchase(customer.id, '2026-03-11T12:00:00Z'); // Gold already: still a qualifying outcome
    expect(await months(customer.id)).toEqual([{ month: '2026-03', points: 20, outcome_tier_ids: [gold] }]);
    await ctx.db.query(`UPDATE behaviors SET outcome_config = '[]' WHERE id = $1`, [behaviorId]);
    await bumpRules(ctx.db, tenant.organizationId);
  });

  it("a reversal takes its events' credits off their months", async () => {
    const customer = await seedCustomer(ctx.db, tenant);
    await purchase(customer.id, '2026-04-02T12:00:00Z', 'order-april');
    await purchase(customer.id, '2026-05-02T12:00:00Z', 'order-may');
    await ctx.app.get(ReversalUseCase).reverse(tenant, { userId: customer.id }, { transaction_id: 'order-april' });
    expect(await months(customer.id)).toEqual([
      { month: '2026-04', points: 0, outcome_tier_ids: [] },
      { month: '2026-05', points: 10, outcome_tier_ids: [] },
    ]);
  });
});
