import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rewards' after-commit effects (issue #29): an outbox written with the evaluation that asked for them, run by the
 * workers once committed (a job on the webhooks queue per effect, the sweeper for those whose job was lost), retried
 * with backoff, and `dead` after the last attempt. `event_id` names the event whose evaluation asked (no foreign key:
 * the event log is partitioned and its months are dropped by retention).
 */
export class RewardEffects1765400000000 implements MigrationInterface {
  name = 'RewardEffects1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE reward_effects (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES organizations(id),
        customer_id uuid NOT NULL REFERENCES customers(id),
        event_id bigint NOT NULL,
        kind text NOT NULL,
        campaign_id integer NOT NULL,
        behavior_id integer NOT NULL,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'retrying', 'done', 'dead')),
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        done_at timestamptz
      )`);
    await q.query(`CREATE INDEX reward_effects_open ON reward_effects (updated_at) WHERE status IN ('pending', 'retrying')`);
    await q.query(`CREATE INDEX reward_effects_organization ON reward_effects (organization_id, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS reward_effects`);
  }
}
