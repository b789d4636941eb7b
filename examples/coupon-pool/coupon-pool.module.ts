/**
 * An example extension a team can copy: a reward kind whose after-commit effect takes a coupon code from a pool kept in
 * the team's own table and sends it to the customer in a notification. Load it with
 * `EXTENSIONS=dist/examples/coupon-pool/coupon-pool.module.js#CouponPoolModule` (docs/extending.md).
 */
import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Matches, Min } from 'class-validator';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RewardKind, RewardKindHandler, type RewardContext, type RewardEffectContext } from '../../src/extension-api/index.js';

export class CouponArgs {
  @ApiProperty({ example: 'SUMMER', description: 'The pool the code is taken from' })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be 1 to 64 letters, digits, _ or -' })
  pool!: string;

  @ApiProperty({ example: 40, type: 'integer', minimum: 1, description: 'The creative of the organization the code is sent in (its payload gains coupon_code)' })
  @IsInt()
  @Min(1)
  creative_id!: number;
}

/** Thrown when a pool has no code left: the effect is retried (a refill lets it through), then dead. */
export class PoolEmpty extends Error {}

/**
 * `{ "coupon": { "pool": "SUMMER", "creative_id": 40 } }` in a behavior's outcome_config. The pure part only asks for
 * the effect (so live, simulation and explanation agree); the effect takes the oldest free code of the pool, locked so
 * that two workers never take the same one, marks it the customer's, and sends it, in the effect's transaction: a
 * retried effect never takes a second code.
 */
@RewardKind({ name: 'coupon', description: 'A coupon code from a pool, sent in a notification', args: CouponArgs })
export class CouponReward extends RewardKindHandler<CouponArgs> {
  apply(ctx: RewardContext, args: CouponArgs): void {
    ctx.effect({ pool: args.pool, creative_id: args.creative_id });
  }

  override async afterCommit(ctx: RewardEffectContext): Promise<void> {
    const { pool, creative_id } = ctx.payload as { pool: string; creative_id: number };
    const [code] = await ctx.query<{ id: string; code: string }>(
      `SELECT id, code FROM coupon_codes WHERE organization_id = $1 AND pool = $2 AND customer_id IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [ctx.organizationId, pool],
    );
    if (!code) throw new PoolEmpty(`coupon pool "${pool}" has no code left`);
    await ctx.query(`UPDATE coupon_codes SET customer_id = $2, effect_id = $3, assigned_at = now() WHERE id = $1`, [code.id, ctx.customerId, ctx.effectId]);
    await ctx.notify(creative_id, { coupon_code: code.code });
  }
}

/** The pool's table: codes loaded by the team (INSERT INTO coupon_codes (organization_id, pool, code) ...). */
export class CouponCodes1790000000000 implements MigrationInterface {
  name = 'CouponCodes1790000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE coupon_codes (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL,
        pool text NOT NULL,
        code text NOT NULL,
        customer_id uuid,
        effect_id bigint UNIQUE,
        assigned_at timestamptz,
        UNIQUE (organization_id, pool, code)
      )`);
    await q.query(`CREATE INDEX coupon_codes_free ON coupon_codes (organization_id, pool, id) WHERE customer_id IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS coupon_codes`);
  }
}

/** What `npm run cli -- migrate` runs for this extension when EXTENSIONS names this file. */
export const migrations = [CouponCodes1790000000000];

@Module({ providers: [CouponReward] })
export class CouponPoolModule {}
