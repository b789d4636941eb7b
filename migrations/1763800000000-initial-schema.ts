import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenancy, customers, and the tables the event pipeline writes: per-customer behavior progress, the event log
 * (idempotent per api key and transaction id) and the points ledger.
 */
export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id serial PRIMARY KEY,
        name text NOT NULL,
        multi_org_enabled boolean NOT NULL DEFAULT false,
        time_zone text NOT NULL DEFAULT 'UTC',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE divisions (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        parent_id integer REFERENCES divisions(id),
        name text NOT NULL,
        ancestor_ids integer[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX divisions_one_root ON divisions (organization_id) WHERE parent_id IS NULL`);
    await q.query(`CREATE INDEX divisions_org ON divisions (organization_id)`);
    await q.query(`
      CREATE TABLE applications (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        application_id integer NOT NULL REFERENCES applications(id),
        key text NOT NULL UNIQUE,
        secret_hash text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        deactivated_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE tiers (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        name text NOT NULL,
        min_points integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX tiers_name ON tiers (organization_id, lower(name)) WHERE deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE customers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id integer NOT NULL REFERENCES organizations(id),
        external_id text NOT NULL,
        time_zone text NOT NULL,
        division_id integer NOT NULL REFERENCES divisions(id),
        tags text[] NOT NULL DEFAULT '{}',
        attributes jsonb NOT NULL DEFAULT '{}',
        available_points bigint NOT NULL DEFAULT 0 CHECK (available_points >= 0),
        lifetime_points bigint NOT NULL DEFAULT 0 CHECK (lifetime_points >= 0),
        tier_id integer REFERENCES tiers(id),
        qualified_campaign_ids integer[] NOT NULL DEFAULT '{}',
        completed_campaign_ids integer[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX customers_external_id ON customers (organization_id, external_id)`);
    await q.query(`CREATE INDEX customers_division ON customers (organization_id, division_id)`);
    await q.query(`
      CREATE TABLE customer_progress (
        customer_id uuid NOT NULL REFERENCES customers(id),
        behavior_id integer NOT NULL,
        state jsonb NOT NULL DEFAULT '{}',
        achieved integer NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (customer_id, behavior_id)
      )`);
    await q.query(`CREATE INDEX customer_progress_behavior ON customer_progress (behavior_id)`);
    await q.query(`
      CREATE TABLE events (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        api_key_id integer NOT NULL REFERENCES api_keys(id),
        customer_id uuid REFERENCES customers(id),
        user_ref text,
        source text NOT NULL CHECK (source IN ('v1', 'v1_async', 'v2')),
        transaction_id text,
        name text NOT NULL,
        count numeric NOT NULL DEFAULT 1,
        attributes jsonb NOT NULL DEFAULT '{}',
        context jsonb NOT NULL DEFAULT '{}',
        division_id integer,
        campaign_id integer,
        occurred_at timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processed', 'rejected', 'failed', 'stored')),
        reason text,
        result jsonb,
        points_earned integer NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX events_transaction ON events (api_key_id, transaction_id) WHERE transaction_id IS NOT NULL`);
    await q.query(`CREATE INDEX events_customer_timeline ON events (customer_id, occurred_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_pending ON events (created_at) WHERE status = 'pending'`);
    await q.query(`
      CREATE TABLE points_ledger (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        customer_id uuid NOT NULL REFERENCES customers(id),
        event_id bigint REFERENCES events(id),
        amount integer NOT NULL,
        reason text NOT NULL,
        source jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX points_ledger_customer ON points_ledger (customer_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['points_ledger', 'events', 'customer_progress', 'customers', 'tiers', 'api_keys', 'applications', 'divisions', 'organizations']) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
