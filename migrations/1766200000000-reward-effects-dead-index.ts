import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dead reward effects (every attempt failed), indexed by id: /metrics counts them at each scrape
 * (`reward_effects_backlog{status="dead"}`), and `effects:dead` and `effects:replay --dead` list them, from this small
 * index instead of reading every effect kept for the retention. Open effects have theirs (`reward_effects_open`).
 * On a large table, build it `CONCURRENTLY` before upgrading (docs/operations.md, Upgrading): this one then does nothing.
 */
export class RewardEffectsDeadIndex1766200000000 implements MigrationInterface {
  name = 'RewardEffectsDeadIndex1766200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS reward_effects_dead ON reward_effects (id) WHERE status = 'dead'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS reward_effects_dead`);
  }
}
