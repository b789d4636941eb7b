import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tiers' `retain_points` (contract §17): the qualifying points in a period that keep a customer on the tier at its
 * review. NULL means the tier's `min_points` (the default the API answers).
 */
export class TierRetainPoints1765600000000 implements MigrationInterface {
  name = 'TierRetainPoints1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tiers ADD COLUMN retain_points integer CHECK (retain_points >= 0 AND retain_points <= min_points)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tiers DROP COLUMN IF EXISTS retain_points`);
  }
}
