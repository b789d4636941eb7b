import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two random index writes less per accepted event (docs/performance.md, History at scale):
 * - an idempotency key names its events (`event_transactions.event_ids`), so that a reversal finds a submission's
 *   events by their key, and the events' own index on (api_key_id, transaction_id), one random page per event with a
 *   key, goes;
 * - the customers' unique index on (external_id, organization_id) carries the id, so that V2 acceptance resolves a
 *   customer from the index alone instead of reading a random page of the customers' table too.
 * On a large log the backfill reads every event with a key once (docs/operations.md).
 */
export class IdempotencyKeysNameEvents1765400000000 implements MigrationInterface {
  name = 'IdempotencyKeysNameEvents1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE event_transactions ADD COLUMN event_ids bigint[] NOT NULL DEFAULT '{}'`);
    await q.query(`
      UPDATE event_transactions t SET event_ids = e.ids
        FROM (SELECT api_key_id, transaction_id, array_agg(id ORDER BY id) AS ids
                FROM events WHERE transaction_id IS NOT NULL GROUP BY api_key_id, transaction_id) e
       WHERE e.api_key_id = t.api_key_id AND e.transaction_id = t.transaction_id`);
    await q.query(`DROP INDEX IF EXISTS events_transaction`);
    await q.query(`CREATE UNIQUE INDEX customers_external_id_with_id ON customers (external_id, organization_id) INCLUDE (id)`);
    await q.query(`DROP INDEX customers_external_id`);
    await q.query(`ALTER INDEX customers_external_id_with_id RENAME TO customers_external_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNIQUE INDEX customers_external_id_without_id ON customers (external_id, organization_id)`);
    await q.query(`DROP INDEX customers_external_id`);
    await q.query(`ALTER INDEX customers_external_id_without_id RENAME TO customers_external_id`);
    await q.query(`CREATE INDEX events_transaction ON events (api_key_id, transaction_id) WHERE transaction_id IS NOT NULL`);
    await q.query(`ALTER TABLE event_transactions DROP COLUMN event_ids`);
  }
}
