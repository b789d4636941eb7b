import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tier qualification (contract §17, decision 0019): each customer's qualifying points per calendar month of the
 * organization's time zone (credits by their event's `occurred_at`, less what reversals took back) and the tiers its
 * tier outcomes named. Every policy's periods are sums of months, so a policy change rewrites nothing. Written with
 * each evaluation and reversal from this migration on; months before it are not backfilled here (credits before it
 * count once a backfill has run, with the policies that read them).
 */
export class TierMonths1765500000000 implements MigrationInterface {
  name = 'TierMonths1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE customer_tier_months (
        customer_id uuid NOT NULL REFERENCES customers(id),
        month date NOT NULL,
        points integer NOT NULL DEFAULT 0,
        outcome_tier_ids integer[] NOT NULL DEFAULT '{}',
        PRIMARY KEY (customer_id, month)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS customer_tier_months`);
  }
}
