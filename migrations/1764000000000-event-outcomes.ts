import type { MigrationInterface, QueryRunner } from 'typeorm';

/** What evaluating events produces besides progress and points: notifications and issued offers. */
export class EventOutcomes1764000000000 implements MigrationInterface {
  name = 'EventOutcomes1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE notifications (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        customer_id uuid NOT NULL REFERENCES customers(id),
        event_id bigint REFERENCES events(id),
        creative_id integer NOT NULL REFERENCES creatives(id),
        campaign_id integer NOT NULL REFERENCES campaigns(id),
        behavior_id integer NOT NULL REFERENCES behaviors(id),
        type text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX notifications_customer ON notifications (customer_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE customer_offers (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        customer_id uuid NOT NULL REFERENCES customers(id),
        offer_id integer NOT NULL REFERENCES offers(id),
        campaign_id integer NOT NULL REFERENCES campaigns(id),
        behavior_id integer NOT NULL REFERENCES behaviors(id),
        event_id bigint REFERENCES events(id),
        issued_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX customer_offers_customer ON customer_offers (customer_id, issued_at DESC)`);
    await q.query(`ALTER TABLE events ADD COLUMN request_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP COLUMN IF EXISTS request_id`);
    await q.query(`DROP TABLE IF EXISTS customer_offers`);
    await q.query(`DROP TABLE IF EXISTS notifications`);
  }
}
