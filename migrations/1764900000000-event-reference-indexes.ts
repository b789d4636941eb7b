import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rows an event produced, found by the event (issue #15):
 * - `notifications_event`: the timeline's notifications of a page of events (before, the organization's notifications
 *   were filtered: its reads grew with the organization's history);
 * - `points_ledger_event`: an event's credits, which a reversal takes back (contract §14), without reading the
 *   customer's whole ledger.
 * Event ids grow, so new entries go to the right-most leaf: each costs an event's write little.
 * `IF NOT EXISTS`: on a large database an operator builds them first with CREATE INDEX CONCURRENTLY (docs/operations.md,
 * Upgrading), and the migration then finds them.
 * Fillfactor 85 on `customers` and `customer_progress`: every evaluation updates its customer's rows; room on the page
 * keeps those updates HOT (no new index entries) for customers whose rows were written long ago. It applies to pages
 * written from now on.
 */
export class EventReferenceIndexes1764900000000 implements MigrationInterface {
  name = 'EventReferenceIndexes1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS notifications_event ON notifications (event_id)`);
    await q.query(`CREATE INDEX IF NOT EXISTS points_ledger_event ON points_ledger (event_id)`);
    await q.query(`ALTER TABLE customers SET (fillfactor = 85)`);
    await q.query(`ALTER TABLE customer_progress SET (fillfactor = 85)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE customer_progress RESET (fillfactor)`);
    await q.query(`ALTER TABLE customers RESET (fillfactor)`);
    await q.query(`DROP INDEX IF EXISTS points_ledger_event`);
    await q.query(`DROP INDEX IF EXISTS notifications_event`);
  }
}
