/**
 * An example extension a team can copy: a referral program. The domain action `refer` links the customer (the referee)
 * to the customer who referred them; the reward kind `referral_bonus`, awarded when the referee completes a behavior,
 * submits a `referral_bonus` event for the referrer, at most `cap` times per referrer, and the program's behaviors
 * listening to that event credit the referrer (points, tiers, budgets and webhooks as for any event). Load it with
 * `EXTENSIONS=dist/examples/referral/referral.module.js#ReferralModule` (docs/extending.md).
 */
import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsUUID, Max, Min } from 'class-validator';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  behaviorsInvolved,
  DomainAction,
  DomainActionHandler,
  performBehaviorsInvolved,
  RewardKind,
  RewardKindHandler,
  type DomainActionContext,
  type DomainActionDecision,
  type RewardContext,
  type RewardEffectContext,
  type RulesView,
} from '../../src/extension-api/index.js';

/** The event `refer` evaluates for the referee (a welcome bonus, say), and the one the referrer gets per bonus. */
export const REFERRED = 'referred';
export const REFERRAL_BONUS = 'referral_bonus';

export class ReferArgs {
  @ApiProperty({ example: '5b1f5c1e-8e55-4a57-a2a5-5d1f0a9c1e77', format: 'uuid', description: 'The user_id of the customer who referred this one' })
  @IsUUID()
  referrer_id!: string;
}

/**
 * perform `{ "domain": "refer", "args": { "referrer_id": "..." } }`: links the customer to the referrer, once, in
 * perform's transaction, and evaluates a `referred` event for the customer. Refused (422) for a referrer that is not a
 * customer of the organization, for the customer itself, and for a customer already referred.
 */
@DomainAction({ name: 'refer', description: 'Links the customer to the customer who referred them', args: ReferArgs, tables: ['referral_links'] })
export class Refer extends DomainActionHandler<ReferArgs> {
  async decide(ctx: DomainActionContext<ReferArgs>): Promise<DomainActionDecision> {
    const referrer = ctx.args.referrer_id;
    if (referrer === ctx.customer.id) return { failure: 'a customer cannot refer themselves' };
    const [known] = await ctx.query(`SELECT 1 FROM customers WHERE id = $1 AND organization_id = $2`, [referrer, ctx.organizationId]);
    if (!known) return { failure: `referrer ${referrer} is not a customer of the organization` };
    const [linked] = await ctx.query(`SELECT 1 FROM referral_links WHERE referee_id = $1`, [ctx.customer.id]);
    if (linked) return { failure: 'the customer was already referred' };
    return {
      result: ctx.evaluate([{ name: REFERRED }]),
      attributes: { referrer_id: referrer },
      rows: [{ table: 'referral_links', rows: [{ organization_id: ctx.organizationId, referee_id: ctx.customer.id, referrer_id: referrer }] }],
    };
  }

  override involved(rules: RulesView, campaignId: number): number[] {
    return [...new Set([...performBehaviorsInvolved(rules, campaignId), ...behaviorsInvolved(rules, [REFERRED])])];
  }
}

export class ReferralBonusArgs {
  @ApiProperty({ example: 5, type: 'integer', minimum: 1, maximum: 1000, description: 'Bonuses a referrer gets at most from this behavior, over all their referees' })
  @IsInt()
  @Min(1)
  @Max(1000)
  cap!: number;
}

/**
 * `{ "referral_bonus": { "cap": 5 } }` in a behavior's outcome_config: when a referred customer completes the behavior,
 * the referrer gets a `referral_bonus` event (attributes: referee_id, behavior_id), unless they already had `cap` of
 * them from this behavior. The count is kept in the extension's table, under a lock per referrer, in the effect's
 * transaction: a retried effect neither counts nor submits twice.
 */
@RewardKind({ name: 'referral_bonus', description: "A bonus event for the customer's referrer, capped per referrer", args: ReferralBonusArgs })
export class ReferralBonus extends RewardKindHandler<ReferralBonusArgs> {
  apply(ctx: RewardContext, args: ReferralBonusArgs): void {
    ctx.effect({ cap: args.cap });
  }

  override async afterCommit(ctx: RewardEffectContext): Promise<void> {
    const [link] = await ctx.query<{ referrer_id: string }>(`SELECT referrer_id FROM referral_links WHERE referee_id = $1`, [ctx.customerId]);
    if (!link) return;
    // The two-key form: a key space of its own, apart from the service's one-key locks.
    await ctx.query(`SELECT pg_advisory_xact_lock(hashtext('referral_bonus'), hashtext($1))`, [link.referrer_id]);
    const [{ n }] = await ctx.query<{ n: number }>(`SELECT count(*)::int AS n FROM referral_bonuses WHERE referrer_id = $1 AND behavior_id = $2`, [link.referrer_id, ctx.behaviorId]);
    if (n >= Number(ctx.payload.cap)) return;
    await ctx.query(`INSERT INTO referral_bonuses (effect_id, referrer_id, referee_id, behavior_id) VALUES ($1, $2, $3, $4)`, [ctx.effectId, link.referrer_id, ctx.customerId, ctx.behaviorId]);
    await ctx.submitEvent(link.referrer_id, { name: REFERRAL_BONUS, attributes: { referee_id: ctx.customerId, behavior_id: ctx.behaviorId } });
  }
}

/** Who referred whom, and the bonuses each referrer got. */
export class ReferralTables1790000000001 implements MigrationInterface {
  name = 'ReferralTables1790000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE referral_links (
        referee_id uuid PRIMARY KEY,
        organization_id integer NOT NULL,
        referrer_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE referral_bonuses (
        effect_id bigint PRIMARY KEY,
        referrer_id uuid NOT NULL,
        referee_id uuid NOT NULL,
        behavior_id integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX referral_bonuses_referrer ON referral_bonuses (referrer_id, behavior_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS referral_bonuses`);
    await q.query(`DROP TABLE IF EXISTS referral_links`);
  }
}

/** What `npm run cli -- migrate` runs for this extension when EXTENSIONS names this file. */
export const migrations = [ReferralTables1790000000001];

@Module({ providers: [Refer, ReferralBonus] })
export class ReferralModule {}
