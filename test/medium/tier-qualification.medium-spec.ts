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

/** What qualifies for tiers (contract §17, decision 0019): credits by their event's time, reversed ones marked, tier outcomes. */
describe('tier qualification facts on the real database', () => {
  let ctx: MediumContext;
  let tenant: Tenant;
  let behaviorId: number;
  let gold: number;

  beforeAll(async () => {
    ctx = await createMediumContext({}, undefined, [ReversalsModule]);
    tenant = await seedTenant(ctx.db);
    ({ behaviorIds: [behaviorId] } = await seedCampaign(ctx.db, tenant, [{ event: 'purchase', points: 10 }]));
    [{ id: gold }] = await ctx.db.query(`INSERT INTO tiers (organization_id, name, min_points) VALUES ($1, 'Gold', 5000) RETURNING id`, [tenant.organizationId]);
  });
  afterAll(() => ctx?.close());

  /** The customer's credits as tiers read them: when their event happened, and whether a reversal took it back. */
  const credits = async (customerId: string) =>
    (await ctx.db.query(`SELECT amount, occurred_at, reversed_at IS NOT NULL AS reversed FROM points_ledger WHERE customer_id = $1 AND amount > 0 ORDER BY id`, [customerId])) as Array<{
      amount: number;
      occurred_at: Date;
      reversed: boolean;
    }>;
  const outcomes = async (customerId: string) =>
    (await ctx.db.query(`SELECT tier_id, occurred_at FROM customer_tier_outcomes WHERE customer_id = $1 ORDER BY id`, [customerId])) as Array<{ tier_id: number; occurred_at: Date }>;
  const purchase = (customerId: string, date: string, transactionId?: string) =>
    ctx.app.get(V1EventsUseCase).execute(v1Request(tenant, { userId: customerId }, { purchase: 1 }, { date, ...(transactionId ? { transaction_id: transactionId } : {}) }));

  it("keeps each credit's event time, back-dated events included", async () => {
    const customer = await seedCustomer(ctx.db, tenant);
    await purchase(customer.id, '2025-12-31T23:30:00Z');
    await purchase(customer.id, '2026-01-20T12:00:00Z');
    expect(await credits(customer.id)).toEqual([
      { amount: 10, occurred_at: new Date('2025-12-31T23:30:00Z'), reversed: false },
      { amount: 10, occurred_at: new Date('2026-01-20T12:00:00Z'), reversed: false },
    ]);
  });

  it('records each tier outcome awarded at its event time, whether or not it moved the tier', async () => {
    await ctx.db.query(`UPDATE behaviors SET outcome_config = $2 WHERE id = $1`, [behaviorId, JSON.stringify([{ id: 1, tier: { name: 'Gold' } }])]);
    await bumpRules(ctx.db, tenant.organizationId);
    const customer = await seedCustomer(ctx.db, tenant);
    await purchase(customer.id, '2026-03-10T12:00:00Z');
    await purchase(customer.id, '2026-03-11T12:00:00Z'); // Gold already: still a qualifying outcome
    expect(await outcomes(customer.id)).toEqual([
      { tier_id: gold, occurred_at: new Date('2026-03-10T12:00:00Z') },
      { tier_id: gold, occurred_at: new Date('2026-03-11T12:00:00Z') },
    ]);
    await ctx.db.query(`UPDATE behaviors SET outcome_config = '[]' WHERE id = $1`, [behaviorId]);
    await bumpRules(ctx.db, tenant.organizationId);
  });

  it("marks the reversed events' credits, and only those", async () => {
    const customer = await seedCustomer(ctx.db, tenant);
    await purchase(customer.id, '2026-04-02T12:00:00Z', 'order-april');
    await purchase(customer.id, '2026-05-02T12:00:00Z', 'order-may');
    await ctx.app.get(ReversalUseCase).reverse(tenant, { userId: customer.id }, { transaction_id: 'order-april' });
    expect((await credits(customer.id)).map((c) => [c.occurred_at.toISOString().slice(0, 7), c.reversed])).toEqual([
      ['2026-04', true],
      ['2026-05', false],
    ]);
  });
});
