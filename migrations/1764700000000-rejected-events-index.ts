import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Rejected events are listed per organization, newest first (GET .../events/rejected, `events:rejected`). */
export class RejectedEventsIndex1764700000000 implements MigrationInterface {
  name = 'RejectedEventsIndex1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX events_rejected ON events (organization_id, created_at DESC, id DESC) WHERE status = 'rejected'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS events_rejected`);
  }
}
