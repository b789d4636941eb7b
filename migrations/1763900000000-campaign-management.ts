import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Campaign management (seed-campaign-management.md, contract §5-§6): campaigns, their single line item, creative
 * groups and creatives, behaviors (goal groups and goals inline, with ids from sequences), offers, an audit log of
 * configuration changes, and a rules version per organization that every change bumps so each process reloads.
 * Soft-deleted rows keep their data; partial unique indexes free their names.
 */
export class CampaignManagement1763900000000 implements MigrationInterface {
  name = 'CampaignManagement1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations ADD COLUMN rules_version bigint NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE campaigns (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        name text NOT NULL,
        permalink text NOT NULL,
        status text NOT NULL CHECK (status IN ('draft', 'inreview', 'live', 'paused', 'completed')),
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL,
        division_id integer NOT NULL REFERENCES divisions(id),
        opt_in_required boolean NOT NULL DEFAULT false,
        prerequisite_campaign_ids integer[] NOT NULL DEFAULT '{}',
        targeting jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        CHECK (ends_at > starts_at)
      )`);
    await q.query(`CREATE UNIQUE INDEX campaigns_name ON campaigns (organization_id, lower(name)) WHERE deleted_at IS NULL`);
    await q.query(`CREATE UNIQUE INDEX campaigns_permalink ON campaigns (organization_id, permalink) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX campaigns_live ON campaigns (organization_id) WHERE deleted_at IS NULL AND status = 'live'`);
    await q.query(`
      CREATE TABLE line_items (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        campaign_id integer NOT NULL REFERENCES campaigns(id),
        name text NOT NULL,
        display_name text,
        description text,
        status text NOT NULL CHECK (status IN ('draft', 'inreview', 'live', 'paused', 'completed')),
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX line_items_one_per_campaign ON line_items (campaign_id) WHERE deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE creative_groups (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        line_item_id integer NOT NULL REFERENCES line_items(id),
        name text NOT NULL,
        display_name text,
        status text NOT NULL CHECK (status IN ('draft', 'inreview', 'live', 'paused', 'completed')),
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL,
        targeting jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE INDEX creative_groups_line_item ON creative_groups (line_item_id)`);
    await q.query(`
      CREATE TABLE behaviors (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        campaign_id integer NOT NULL REFERENCES campaigns(id),
        name text NOT NULL,
        tags text,
        points integer NOT NULL DEFAULT 0,
        data jsonb NOT NULL DEFAULT '{}',
        goal_groups jsonb NOT NULL DEFAULT '[]',
        outcome_config jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX behaviors_name ON behaviors (organization_id, lower(name)) WHERE deleted_at IS NULL`);
    await q.query(`CREATE SEQUENCE goals_id_seq`);
    await q.query(`CREATE SEQUENCE outcomes_id_seq`);
    await q.query(`
      CREATE TABLE creatives (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        creative_group_id integer NOT NULL REFERENCES creative_groups(id),
        application_id integer NOT NULL REFERENCES applications(id),
        name text NOT NULL,
        status text NOT NULL CHECK (status IN ('draft', 'inreview', 'live', 'paused', 'completed')),
        ad_type text NOT NULL,
        creative_type text NOT NULL,
        message text,
        url text,
        payload jsonb,
        issue_audience_csv jsonb NOT NULL DEFAULT '{}',
        behavior_id integer REFERENCES behaviors(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX creatives_one_per_group ON creatives (creative_group_id) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX creatives_behavior ON creatives (behavior_id) WHERE deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE offers (
        id serial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        name text NOT NULL,
        points integer NOT NULL DEFAULT 0 CHECK (points >= 0),
        description text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX offers_name ON offers (organization_id, lower(name)) WHERE deleted_at IS NULL`);
    await q.query(`CREATE UNIQUE INDEX divisions_name ON divisions (organization_id, lower(name)) WHERE deleted_at IS NULL`);
    await q.query(`
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        api_key_id integer REFERENCES api_keys(id),
        action text NOT NULL CHECK (action IN ('create', 'update', 'delete')),
        object_type text NOT NULL,
        object_id text NOT NULL,
        before jsonb,
        after jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX audit_log_org ON audit_log (organization_id, created_at DESC, id DESC)`);
    await q.query(`ALTER TABLE customer_progress ADD CONSTRAINT customer_progress_behavior FOREIGN KEY (behavior_id) REFERENCES behaviors(id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE customer_progress DROP CONSTRAINT IF EXISTS customer_progress_behavior`);
    for (const table of ['audit_log', 'offers', 'creatives', 'behaviors', 'creative_groups', 'line_items', 'campaigns']) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
    await q.query(`DROP SEQUENCE IF EXISTS goals_id_seq`);
    await q.query(`DROP SEQUENCE IF EXISTS outcomes_id_seq`);
    await q.query(`DROP INDEX IF EXISTS divisions_name`);
    await q.query(`ALTER TABLE organizations DROP COLUMN IF EXISTS rules_version`);
  }
}
