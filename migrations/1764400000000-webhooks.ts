import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (contract §11): an organization's subscriptions, the outbox of deliveries (written by the same statement as
 * the evaluation that caused them, so a committed evaluation always has its deliveries and a rolled back one none),
 * and every HTTP attempt of a delivery. The signing secret is stored as is: the worker needs it to sign.
 */
export class Webhooks1764400000000 implements MigrationInterface {
  name = 'Webhooks1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        url text NOT NULL,
        event_types text[] NOT NULL,
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE INDEX webhooks_organization ON webhooks (organization_id) WHERE deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL,
        webhook_id integer NOT NULL, -- no foreign key: every delivery would lock its webhook row (see decision 0007); webhooks are only soft-deleted
        event_id bigint,
        type text NOT NULL,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'retrying', 'delivered', 'failed', 'cancelled')),
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id DESC)`);
    await q.query(`CREATE INDEX webhook_deliveries_open ON webhook_deliveries (updated_at) WHERE status IN ('pending', 'retrying')`);
    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id),
        attempt integer NOT NULL,
        status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
        response_code integer,
        error text,
        duration_ms integer NOT NULL,
        started_at timestamptz NOT NULL,
        finished_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, attempt)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_delivery_attempts`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
  }
}
