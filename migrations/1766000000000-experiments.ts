import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Experiments (contract §20, docs/experiments.md):
 * - `campaigns.experiment`: the settings (holdout_percent, variants, metric) as the API takes them; `experiment_started_at`
 *   (the first assignment, written by the event path), `experiment_ended_at`, `experiment_winner` and the results
 *   frozen at the end (`experiment_results`);
 * - `behaviors.variant`: the variant whose customers alone the behavior evaluates (null: every customer);
 * - `experiment_assignments`: each customer's group, assigned once (in the evaluation's own write), with their metric
 *   value x so far; keyed by customer first, as the event path reads it;
 * - `experiment_groups`: each group's sums (customers, converted, Σx, Σx², achievements, points), folded from
 *   campaign_activity by the analytics fold: results are read from a few rows, never recomputed from the log.
 */
export class Experiments1766000000000 implements MigrationInterface {
  name = 'Experiments1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns ADD COLUMN experiment jsonb, ADD COLUMN experiment_started_at timestamptz, ADD COLUMN experiment_ended_at timestamptz,
      ADD COLUMN experiment_winner text, ADD COLUMN experiment_results jsonb`);
    await q.query(`ALTER TABLE behaviors ADD COLUMN variant text`);
    await q.query(`
      CREATE TABLE experiment_assignments (
        customer_id uuid NOT NULL,
        campaign_id integer NOT NULL,
        group_name text NOT NULL,
        assigned_at timestamptz NOT NULL,
        metric_sum numeric NOT NULL DEFAULT 0,
        metric_events integer NOT NULL DEFAULT 0,
        PRIMARY KEY (customer_id, campaign_id)
      )`);
    await q.query(`
      CREATE TABLE experiment_groups (
        campaign_id integer NOT NULL,
        group_name text NOT NULL,
        customers bigint NOT NULL DEFAULT 0,
        converted bigint NOT NULL DEFAULT 0,
        metric_sum numeric NOT NULL DEFAULT 0,
        metric_sum_squares numeric NOT NULL DEFAULT 0,
        achievements bigint NOT NULL DEFAULT 0,
        points_credited bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (campaign_id, group_name)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS experiment_groups`);
    await q.query(`DROP TABLE IF EXISTS experiment_assignments`);
    await q.query(`ALTER TABLE behaviors DROP COLUMN IF EXISTS variant`);
    await q.query(`ALTER TABLE campaigns DROP COLUMN IF EXISTS experiment, DROP COLUMN IF EXISTS experiment_started_at, DROP COLUMN IF EXISTS experiment_ended_at,
      DROP COLUMN IF EXISTS experiment_winner, DROP COLUMN IF EXISTS experiment_results`);
  }
}
