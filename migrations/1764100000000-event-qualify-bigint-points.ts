import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Stored (async) events keep the body's `qualify`; an event's points total may exceed 2^31 - 1. */
export class EventQualifyBigintPoints1764100000000 implements MigrationInterface {
  name = 'EventQualifyBigintPoints1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ADD COLUMN qualify boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE events ALTER COLUMN points_earned TYPE bigint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ALTER COLUMN points_earned TYPE integer`);
    await q.query(`ALTER TABLE events DROP COLUMN qualify`);
  }
}
