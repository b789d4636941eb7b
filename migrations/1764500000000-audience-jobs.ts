import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Audience jobs (contract §11, scheduled delivery): one row per scheduled run of a creative. The row is the truth; the
 * delayed BullMQ job only wakes a worker, which claims the row with a conditional UPDATE. `attempt` fences a run: a
 * run whose lease (heartbeat_at) expired and was taken over cannot complete the row any more.
 */
export class AudienceJobs1764500000000 implements MigrationInterface {
  name = 'AudienceJobs1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audience_jobs (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        creative_id integer NOT NULL REFERENCES creatives(id),
        status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'running', 'completed', 'failed', 'cancelled')),
        scheduled_at timestamptz NOT NULL,
        customer_count integer,
        file_path text,
        error text,
        attempt integer NOT NULL DEFAULT 0,
        started_at timestamptz,
        heartbeat_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX audience_jobs_creative ON audience_jobs (creative_id, id DESC)`);
    await q.query(`CREATE UNIQUE INDEX audience_jobs_one_scheduled ON audience_jobs (creative_id) WHERE status = 'scheduled'`);
    await q.query(`CREATE INDEX audience_jobs_due ON audience_jobs (scheduled_at) WHERE status IN ('scheduled', 'running')`);
    await q.query(`CREATE INDEX audience_jobs_organization_open ON audience_jobs (organization_id) WHERE status = 'scheduled'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audience_jobs`);
  }
}
