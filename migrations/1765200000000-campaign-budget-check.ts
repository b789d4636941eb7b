import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `campaign_budget_exceeded()`: raises SQLSTATE BE001. An evaluation's write statement spends campaign budgets with a
 * conditional UPDATE and calls it when a budget did not have the room (docs/decisions/0012): the whole statement
 * fails, its pipelined COMMIT ends the transaction as a rollback, and the service evaluates again with the budgets
 * locked. So a budget's row is held only for the statement that spends it and its COMMIT.
 */
export class CampaignBudgetCheck1765200000000 implements MigrationInterface {
  name = 'CampaignBudgetCheck1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION campaign_budget_exceeded() RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a campaign budget has no room for this evaluation''s completions' USING ERRCODE = 'BE001';
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION campaign_budget_exceeded()`);
  }
}
