import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Points a program runs on (issue #16, contract §13-14):
 * - `organizations.points_expire_after_days`: credits earned from now on expire that many days after their event
 *   (null: never).
 * - `points_ledger.expires_at`, fixed when credited, and `remaining`: the part of an expiring credit not yet spent,
 *   expired or reversed (null on credits that never expire and on every other entry: nothing reads it there). Two
 *   partial indexes hold only credits with points left to expire, so they stay small whatever the ledger's size: the
 *   sweeper's (due ones, across customers) and a customer's (what a debit consumes first, what `expiring` shows).
 * - `points_ledger.api_key_id` and `transaction_id`: a debit's idempotency key, unique per api key.
 * - `event_reversals`: one row per reversed submission (a second reversal is `already_reversed`).
 * - `campaigns.budget_*`: the campaign budget and what it has used.
 * Adding nullable columns rewrites nothing, so this runs in moments on a large ledger.
 */
export class PointsLedger1765000000000 implements MigrationInterface {
  name = 'PointsLedger1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations ADD COLUMN points_expire_after_days integer CHECK (points_expire_after_days >= 1)`);
    await q.query(`
      ALTER TABLE points_ledger
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN remaining integer CHECK (remaining >= 0),
        ADD COLUMN api_key_id integer REFERENCES api_keys(id),
        ADD COLUMN transaction_id text`);
    await q.query(`CREATE INDEX points_ledger_due ON points_ledger (expires_at) WHERE remaining > 0`);
    await q.query(`CREATE INDEX points_ledger_spendable ON points_ledger (customer_id, expires_at) WHERE remaining > 0`);
    await q.query(`CREATE UNIQUE INDEX points_ledger_transaction ON points_ledger (api_key_id, transaction_id) WHERE transaction_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE event_reversals (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        api_key_id integer NOT NULL REFERENCES api_keys(id),
        transaction_id text NOT NULL,
        customer_id uuid NOT NULL REFERENCES customers(id),
        events integer NOT NULL,
        points integer NOT NULL,
        achievements integer NOT NULL,
        reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (api_key_id, transaction_id)
      )`);
    await q.query(`
      ALTER TABLE campaigns
        ADD COLUMN budget_max_completions integer CHECK (budget_max_completions >= 0),
        ADD COLUMN budget_max_points integer CHECK (budget_max_points >= 0),
        ADD COLUMN budget_completions integer NOT NULL DEFAULT 0,
        ADD COLUMN budget_points bigint NOT NULL DEFAULT 0,
        ADD COLUMN budget_exhausted_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE campaigns DROP COLUMN budget_exhausted_at, DROP COLUMN budget_points, DROP COLUMN budget_completions,
        DROP COLUMN budget_max_points, DROP COLUMN budget_max_completions`);
    await q.query(`DROP TABLE event_reversals`);
    await q.query(`DROP INDEX points_ledger_transaction`);
    await q.query(`DROP INDEX points_ledger_spendable`);
    await q.query(`DROP INDEX points_ledger_due`);
    await q.query(`ALTER TABLE points_ledger DROP COLUMN transaction_id, DROP COLUMN api_key_id, DROP COLUMN remaining, DROP COLUMN expires_at`);
    await q.query(`ALTER TABLE organizations DROP COLUMN points_expire_after_days`);
  }
}
