import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tier qualification (contract §17, decision 0019), read from what the event path writes anyway:
 * - `points_ledger.occurred_at`: a credit's event's time (the period it qualifies in); null for rows written before this
 *   migration until a backfill sets them, and for debits, expiry and reversal rows;
 * - `points_ledger.reversed_at`: set on a credit when a reversal takes its event back (it then qualifies for nothing);
 * - `customer_tier_outcomes`: each tier outcome awarded, at its event's time (it qualifies for its tier in that period).
 * No index is added to the ledger: one more index would cost every credit its upkeep on the event path.
 */
export class TierQualification1765500000000 implements MigrationInterface {
  name = 'TierQualification1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE points_ledger ADD COLUMN occurred_at timestamptz, ADD COLUMN reversed_at timestamptz`);
    await q.query(`
      CREATE TABLE customer_tier_outcomes (
        id bigserial PRIMARY KEY,
        customer_id uuid NOT NULL REFERENCES customers(id),
        tier_id integer NOT NULL,
        event_id bigint NOT NULL,
        occurred_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX customer_tier_outcomes_customer ON customer_tier_outcomes (customer_id, occurred_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS customer_tier_outcomes`);
    await q.query(`ALTER TABLE points_ledger DROP COLUMN IF EXISTS occurred_at, DROP COLUMN IF EXISTS reversed_at`);
  }
}
