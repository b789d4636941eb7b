import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tier policies (contract §17, decision 0019):
 * - `organizations.tier_policy` (`{"basis":"lifetime"}` or `{"basis":"period",...}`, as the API takes it) and
 *   `tier_policy_changed_at` (when it last changed: the customers keep their tier at least until the first review after);
 * - `customers.tier_floor_id`: the tier the customer had at the last policy change;
 * - `customers.tier_review_at`: when the customer's next review takes effect (the review sweeper's queue; null: none due);
 * - `tier_history`: every move of a customer's tier, and why. A review's row is unique per customer and time, so a
 *   review applied twice writes one row.
 */
export class TierPolicy1765700000000 implements MigrationInterface {
  name = 'TierPolicy1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations ADD COLUMN tier_policy jsonb NOT NULL DEFAULT '{"basis":"lifetime"}', ADD COLUMN tier_policy_changed_at timestamptz`);
    await q.query(`ALTER TABLE customers ADD COLUMN tier_floor_id integer, ADD COLUMN tier_review_at timestamptz`);
    await q.query(`CREATE INDEX customers_tier_review ON customers (tier_review_at) WHERE tier_review_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE tier_history (
        id bigserial PRIMARY KEY,
        customer_id uuid NOT NULL REFERENCES customers(id),
        from_tier_id integer,
        to_tier_id integer,
        reason text NOT NULL,
        at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX tier_history_customer ON tier_history (customer_id, at DESC, id DESC)`);
    await q.query(`CREATE UNIQUE INDEX tier_history_review ON tier_history (customer_id, at) WHERE reason = 'review'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS tier_history`);
    await q.query(`DROP INDEX IF EXISTS customers_tier_review`);
    await q.query(`ALTER TABLE customers DROP COLUMN IF EXISTS tier_floor_id, DROP COLUMN IF EXISTS tier_review_at`);
    await q.query(`ALTER TABLE organizations DROP COLUMN IF EXISTS tier_policy, DROP COLUMN IF EXISTS tier_policy_changed_at`);
  }
}
