import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer erasure (contract §21, decision 0024, docs/data-rights.md):
 * - `event_reversals.customer_id` may be null: an erased customer's reversal keeps its transaction id reversed;
 * - `customers.erased_at`: set by the erasure's answer, with the row's personal data cleared and `external_id` null
 *   (so the organization's unique index frees it): the row is a tombstone no lookup finds, until the erasure worker
 *   has removed everything that references it and deletes it;
 * - `erasures`: one row per erasure, the durable job: the step the worker reached, and `alias`, the one id that
 *   replaces the customer's in the analytics' per-customer rows (distinct counts stay, nothing links to anyone), and
 *   the customer's external id until the erasure is done (events rejected as unknown name the customer by it).
 *   Kept once done (`done_at`): the proof an auditor asks for names no one but an internal id that no longer exists.
 */
export class Erasures1766100000000 implements MigrationInterface {
  name = 'Erasures1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE customers ADD COLUMN erased_at timestamptz, ALTER COLUMN external_id DROP NOT NULL`);
    // A reversed transaction id stays reversed once its customer is erased, naming no one.
    await q.query(`ALTER TABLE event_reversals ALTER COLUMN customer_id DROP NOT NULL`);
    await q.query(`
      CREATE TABLE erasures (
        customer_id uuid PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        erased_at timestamptz NOT NULL,
        external_id text,
        alias uuid NOT NULL DEFAULT gen_random_uuid(),
        step text NOT NULL DEFAULT 'analytics',
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        done_at timestamptz
      )`);
    await q.query(`CREATE INDEX erasures_open ON erasures (erased_at) WHERE done_at IS NULL`);
    // What the erasure worker finds the customer's rows by: webhook deliveries by the user their payload names, and
    // rewards' effects by customer (their only other index is by organization and time).
    await q.query(`CREATE INDEX webhook_deliveries_user ON webhook_deliveries ((payload #>> '{data,user_id}'), id) WHERE payload #>> '{data,user_id}' IS NOT NULL`);
    await q.query(`CREATE INDEX reward_effects_customer ON reward_effects (customer_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX reward_effects_customer`);
    await q.query(`DROP INDEX webhook_deliveries_user`);
    await q.query(`DROP TABLE erasures`);
    // Tombstones of unfinished erasures keep no external id: they get one that names no one before it is required again.
    await q.query(`UPDATE customers SET external_id = 'erased-' || id WHERE external_id IS NULL`);
    await q.query(`DELETE FROM event_reversals WHERE customer_id IS NULL`);
    await q.query(`ALTER TABLE event_reversals ALTER COLUMN customer_id SET NOT NULL`);
    await q.query(`ALTER TABLE customers DROP COLUMN erased_at, ALTER COLUMN external_id SET NOT NULL`);
  }
}
