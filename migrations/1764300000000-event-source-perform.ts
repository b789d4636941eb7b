import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Perform (contract §12) writes one processed event row per request, source 'perform', so that its points ledger
 * rows, issued offers and notifications hang on an event like every other outcome, and the customer's timeline shows
 * it. `down` turns those rows' source back into 'v2' (perform's API version) before restoring the old check.
 */
export class EventSourcePerform1764300000000 implements MigrationInterface {
  name = 'EventSourcePerform1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP CONSTRAINT IF EXISTS events_source_check`);
    await q.query(`ALTER TABLE events ADD CONSTRAINT events_source_check CHECK (source IN ('v1', 'v1_async', 'v2', 'perform'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE events SET source = 'v2' WHERE source = 'perform'`);
    await q.query(`ALTER TABLE events DROP CONSTRAINT IF EXISTS events_source_check`);
    await q.query(`ALTER TABLE events ADD CONSTRAINT events_source_check CHECK (source IN ('v1', 'v1_async', 'v2'))`);
  }
}
