import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Campaign analytics' read model (contract §19, docs/decisions/0022-analytics-read-model.md):
 * - `campaign_activity`: what an evaluation or a reversal did, one `json` row each (the evaluation's activity rows and
 *   goals advanced), appended by its own statement (no index, no key, nothing parsed: an insert never waits on
 *   another), folded into the tables below and deleted by the analytics fold;
 * - `campaign_daily`: counters per campaign, day of the organization's zone and behavior (0: the campaign as a whole);
 * - `campaign_participants`: per campaign, year and customer, a bitmap of the year's days with an evaluated event:
 *   distinct participants of any range are counted from it, and the fold learns from it whether an event is the
 *   customer's first of its day;
 * - `campaign_achievers`: per campaign, day, behavior and customer, the achievements net of reversals (only days
 *   with one), for the distinct customers who achieved;
 * - `campaign_goal_customers`: per goal, the customers with progress on it and whether they ever completed it (folded too).
 * - `analytics_backfill`: the cursor of the backfill of the events processed before this migration.
 * Nothing here refers to the event log, so retention (dropping months of events) leaves it as counted.
 */
export class CampaignAnalytics1765900000000 implements MigrationInterface {
  name = 'CampaignAnalytics1765900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaign_activity (
        payload json NOT NULL
      )`);
    await q.query(`
      CREATE TABLE campaign_daily (
        campaign_id integer NOT NULL,
        day date NOT NULL,
        behavior_id integer NOT NULL,
        events bigint NOT NULL DEFAULT 0,
        participants integer NOT NULL DEFAULT 0,
        achievements integer NOT NULL DEFAULT 0,
        points_credited bigint NOT NULL DEFAULT 0,
        points_reversed bigint NOT NULL DEFAULT 0,
        offers_issued integer NOT NULL DEFAULT 0,
        notifications integer NOT NULL DEFAULT 0,
        PRIMARY KEY (campaign_id, day, behavior_id)
      )`);
    await q.query(`
      CREATE TABLE campaign_participants (
        campaign_id integer NOT NULL,
        year smallint NOT NULL,
        customer_id uuid NOT NULL,
        days bit(366) NOT NULL,
        PRIMARY KEY (campaign_id, year, customer_id)
      ) WITH (fillfactor = 80)`);
    await q.query(`
      CREATE TABLE campaign_achievers (
        campaign_id integer NOT NULL,
        day date NOT NULL,
        behavior_id integer NOT NULL,
        customer_id uuid NOT NULL,
        achievements integer NOT NULL,
        PRIMARY KEY (campaign_id, day, behavior_id, customer_id)
      )`);
    await q.query(`
      CREATE TABLE campaign_goal_customers (
        goal_id integer NOT NULL,
        customer_id uuid NOT NULL,
        completed boolean NOT NULL,
        PRIMARY KEY (goal_id, customer_id)
      )`);
    // The backfill's cursor (AnalyticsBackfillRepository): events up to the last id of now, processed before now.
    await q.query(`
      CREATE TABLE analytics_backfill (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        processed_before timestamptz NOT NULL DEFAULT now(),
        until_id bigint NOT NULL,
        after_id bigint NOT NULL DEFAULT 0,
        done_at timestamptz
      )`);
    await q.query(`INSERT INTO analytics_backfill (until_id) SELECT coalesce(max(id), 0) FROM events`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['analytics_backfill', 'campaign_goal_customers', 'campaign_achievers', 'campaign_participants', 'campaign_daily', 'campaign_activity']) await q.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
