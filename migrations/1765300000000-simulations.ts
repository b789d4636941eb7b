import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Simulations (contract §15): a campaign replayed against stored events by a worker. The row is the truth: a job only
 * wakes a worker, the claim (`attempt` + 1, a lease renewed by `heartbeat_at`) decides who runs it, and `attempt`
 * fences every later write, so a worker that lost its lease writes nothing.
 */
export class Simulations1765300000000 implements MigrationInterface {
  name = 'Simulations1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE simulations (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        campaign_id integer NOT NULL REFERENCES campaigns(id),
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
        range_from timestamptz NOT NULL,
        range_to timestamptz NOT NULL CHECK (range_to > range_from),
        customer_ids uuid[],
        explain boolean NOT NULL DEFAULT false,
        customers integer NOT NULL DEFAULT 0,
        events_replayed bigint NOT NULL DEFAULT 0,
        results jsonb,
        explanations jsonb,
        error text,
        attempt integer NOT NULL DEFAULT 0,
        started_at timestamptz,
        heartbeat_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX simulations_campaign ON simulations (campaign_id, id DESC)`);
    await q.query(`CREATE INDEX simulations_unfinished ON simulations (organization_id) WHERE status IN ('queued', 'running')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE simulations`);
  }
}
