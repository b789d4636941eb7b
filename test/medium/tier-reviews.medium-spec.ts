import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tenant } from '../../src/common/http/request-context.js';
import { LOGGER, type Logger } from '../../src/common/logging/logger.js';
import { APP_CONFIG } from '../../src/config/config.module.js';
import type { AppConfig } from '../../src/config/config.js';
import { RulesCacheService } from '../../src/modules/campaigns/rules/rules-cache.service.js';
import { TierReviewSweeper } from '../../src/modules/evaluation/tier-review.sweeper.js';
import { TierFacts } from '../../src/modules/customers-state/tiers/tier-facts.repository.js';
import { TierReviewsRepository } from '../../src/modules/customers-state/tiers/tier-reviews.repository.js';
import { AfterCommit } from '../../src/modules/evaluation/after-commit.js';
import { CustomerTransactions } from '../../src/modules/evaluation/customer-transactions.js';
import { useOwnDatabase } from '../support/database.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { bumpRules, seedCustomer, seedTenant } from './support/seed.js';

const at = (iso: string) => new Date(iso).getTime();

/**
 * The tier review sweeper's writes on the real database (contract §17): due customers get the tier the policy gives,
 * their next review, one history row and one `tier.changed` delivery per subscribed webhook; a customer an evaluation
 * holds is left to the next sweep; a review written twice is written once.
 */
describe('tier reviews on the real database', () => {
  let ctx: MediumContext;
  let tenant: Tenant;
  let sweeper: TierReviewSweeper;
  const tiers: Record<string, number> = {};

  beforeAll(async () => {
    // A database of its own: sweeps on this clock would review other files' customers, and the workers of the e2e
    // specs sweep the shared database with the real clock, holding the review sweep's lock.
    await useOwnDatabase('tier_reviews');
    ctx = await createMediumContext({}, at('2027-01-05T00:00:00Z'));
    const get = <T>(token: unknown) => ctx.app.get<T>(token as never);
    sweeper = new TierReviewSweeper(ctx.db, get(CustomerTransactions), get(RulesCacheService), get(AfterCommit), new TierReviewsRepository(new TierFacts()), get<Logger>(LOGGER), ctx.clock, get<AppConfig>(APP_CONFIG));
    tenant = await seedTenant(ctx.db);
    await ctx.db.query(`UPDATE organizations SET tier_policy = $2 WHERE id = $1`, [
      tenant.organizationId,
      JSON.stringify({ basis: 'period', period_months: 12, downgrade: 'one_level', grace_days: 0 }),
    ]);
    for (const [name, min, retain] of [['Silver', 100, 50], ['Gold', 500, 300]] as const) {
      [{ id: tiers[name] }] = await ctx.db.query(`INSERT INTO tiers (organization_id, name, min_points, retain_points) VALUES ($1, $2, $3, $4) RETURNING id`, [tenant.organizationId, name, min, retain]);
    }
    await ctx.db.query(`INSERT INTO webhooks (organization_id, url, event_types, secret) VALUES ($1, 'https://hooks.example.com/a', '{tier.changed}', 's'), ($1, 'https://hooks.example.com/b', '{tier.changed}', 's')`, [
      tenant.organizationId,
    ]);
    await bumpRules(ctx.db, tenant.organizationId);
  });
  afterAll(() => ctx?.close());

  /** A customer Gold since 2025 (600 points that year, kept at its review), whose 2026 earned `points`, with the review of 2026 due. */
  async function goldCustomer(points: number): Promise<string> {
    const { id } = await seedCustomer(ctx.db, tenant, 600 + points);
    await ctx.db.query(`UPDATE customers SET tier_id = $2, tier_review_at = '2027-01-01T00:00:00Z' WHERE id = $1`, [id, tiers.Gold]);
    await ctx.db.query(
      `INSERT INTO points_ledger (organization_id, customer_id, amount, reason, source, occurred_at)
       VALUES ($1, $2, 600, 'behavior', '{}', '2025-06-15T10:00:00Z'), ($1, $2, $3, 'behavior', '{}', '2026-03-15T10:00:00Z')`,
      [tenant.organizationId, id, points],
    );
    return id;
  }
  const row = async (id: string) =>
    (await ctx.db.query(`SELECT tier_id, tier_review_at FROM customers WHERE id = $1`, [id]))[0] as { tier_id: number | null; tier_review_at: Date | null };
  const history = (id: string) => ctx.db.query(`SELECT from_tier_id, to_tier_id, reason, at FROM tier_history WHERE customer_id = $1 ORDER BY id`, [id]);
  const deliveries = (id: string) =>
    ctx.db.query(`SELECT webhook_id, payload FROM webhook_deliveries WHERE type = 'tier.changed' AND payload->'data'->>'user_id' = $1 ORDER BY webhook_id`, [id]);

  it('writes what the review gives: the tier, the next review, one history row and a delivery per subscribed webhook', async () => {
    const dropped = await goldCustomer(200); // under Gold's 300 retain points: one level down
    const kept = await goldCustomer(400); // over them: Gold kept, nothing written but the next review
    await sweeper.sweep();

    expect(await row(dropped)).toEqual({ tier_id: tiers.Silver, tier_review_at: new Date('2028-01-01T00:00:00Z') });
    expect(await history(dropped)).toEqual([{ from_tier_id: tiers.Gold, to_tier_id: tiers.Silver, reason: 'review', at: new Date('2027-01-01T00:00:00Z') }]);
    const sent = await deliveries(dropped);
    expect(sent).toHaveLength(2);
    expect(sent[0].payload).toEqual({
      id: expect.any(String),
      type: 'tier.changed',
      created_at: '2027-01-05T00:00:00.000Z',
      data: { user_id: dropped, external_id: expect.any(String), from_tier: { id: tiers.Gold, name: 'Gold' }, to_tier: { id: tiers.Silver, name: 'Silver' }, direction: 'down', reason: 'review', lifetime_points: 800 },
    });

    expect(await row(kept)).toEqual({ tier_id: tiers.Gold, tier_review_at: new Date('2028-01-01T00:00:00Z') });
    expect(await history(kept)).toEqual([]);
    expect(await deliveries(kept)).toEqual([]);
  });

  it('leaves a customer an evaluation holds to the next sweep, then reviews it', async () => {
    const held = await goldCustomer(0);
    const runner = ctx.db.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(`SELECT id FROM customers WHERE id = $1 FOR NO KEY UPDATE`, [held]);
      await sweeper.sweep();
      expect((await row(held)).tier_id).toBe(tiers.Gold);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    await sweeper.sweep();
    expect((await row(held)).tier_id).toBe(tiers.Silver);
  });

  it('writes a review once, however many times it is written', async () => {
    const id = await goldCustomer(0);
    const reviews = new TierReviewsRepository(new TierFacts());
    const review = {
      id,
      tier_id: tiers.Silver,
      tier_review_at: '2028-01-01T00:00:00.000Z',
      move: { from_tier_id: tiers.Gold, from_name: 'Gold', to_tier_id: tiers.Silver, to_name: 'Silver', direction: 'down' as const, reason: 'review', at: '2027-01-01T00:00:00.000Z' },
    };
    const transactions = ctx.app.get(CustomerTransactions);
    const first = await transactions.run(null, (tx) => tx.commitWith(reviews.write(tx.uow, [review], '2027-01-05T00:00:00.000Z')));
    const again = await transactions.run(null, (tx) => tx.commitWith(reviews.write(tx.uow, [review], '2027-01-05T00:00:10.000Z')));
    expect([first.moved, first.deliveryIds.length, again.moved, again.deliveryIds.length]).toEqual([1, 2, 0, 0]);
    expect(await history(id)).toHaveLength(1);
    expect(await deliveries(id)).toHaveLength(2);
  });

  it('clears the review of a customer whose organization went back to lifetime, keeping the tier', async () => {
    const other = await seedTenant(ctx.db);
    const { id } = await seedCustomer(ctx.db, other, 0);
    await ctx.db.query(`UPDATE customers SET tier_id = $2, tier_review_at = '2027-01-01T00:00:00Z' WHERE id = $1`, [id, tiers.Gold]);
    await sweeper.sweep();
    expect(await row(id)).toEqual({ tier_id: tiers.Gold, tier_review_at: null });
    expect(await history(id)).toEqual([]);
  });
});
