import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { RewardKind, RewardKindHandler, type RewardContext, type RewardEffectContext } from '../../src/extension-api/index.js';
import { EvaluationModule } from '../../src/modules/evaluation/evaluation.module.js';
import { RewardEffectsRepository } from '../../src/modules/reward-effects/reward-effects.repository.js';
import { RunRewardEffect } from '../../src/modules/reward-effects/run-reward-effect.use-case.js';
import { V1EventsUseCase } from '../../src/modules/events/v1-events.use-case.js';
import { v1Request } from './support/evaluations.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { eventsOf } from './support/read.js';
import { bumpRules, seedCampaign, seedCustomer, seedTenant } from './support/seed.js';

const STAMPS = 'medium_effect_stamps';

/** How the next attempts of the stamp effect end: thrown after writing, or not; or a statement that fails, caught. */
const failures: string[] = [];
let badStatement = false;

/** A reward whose effect writes a stamp to the team's table and submits a `stamped` event, then fails if told to. */
@RewardKind({ name: 'stamp', description: 'A stamp on a card, kept by the team' })
class Stamp extends RewardKindHandler<{ card: string }> {
  apply(ctx: RewardContext, args: { card: string }): void {
    ctx.effect({ card: args.card });
  }
  override async afterCommit(ctx: RewardEffectContext): Promise<void> {
    await ctx.query(`INSERT INTO ${STAMPS} (effect_id, customer_id, card) VALUES ($1, $2, $3)`, [ctx.effectId, ctx.customerId, ctx.payload.card]);
    await ctx.submitEvent(ctx.customerId, { name: 'stamped', attributes: { card: String(ctx.payload.card) } });
    const failure = failures.shift();
    if (failure) throw new Error(failure);
    if (badStatement) await ctx.query(`SELECT no_such_column FROM ${STAMPS}`).catch(() => undefined);
  }
}

/** The team's reward, and the runner the reward effects' worker uses (without its processor: the spec runs each attempt). */
@Module({ imports: [EvaluationModule], providers: [Stamp, RewardEffectsRepository, RunRewardEffect] })
class StampModule {}

describe("rewards' after-commit effects on the real database (RunRewardEffect)", () => {
  let ctx: MediumContext;
  beforeAll(async () => {
    ctx = await createMediumContext({}, undefined, [StampModule]);
    await ctx.db.query(`CREATE TABLE IF NOT EXISTS ${STAMPS} (effect_id bigint NOT NULL, customer_id uuid NOT NULL, card text NOT NULL)`);
  });
  afterAll(async () => {
    await ctx.db.query(`DROP TABLE IF EXISTS ${STAMPS}`);
    await ctx.close();
  });

  /** A customer whose purchase completes a behavior awarding a stamp: the effect it wrote, pending. */
  async function effectOfPurchase(): Promise<{ effectId: string; customerId: string }> {
    const tenant = await seedTenant(ctx.db);
    const { behaviorIds } = await seedCampaign(ctx.db, tenant, [{ event: 'purchase', points: 5 }]);
    await ctx.db.query(`UPDATE behaviors SET outcome_config = $2 WHERE id = $1`, [behaviorIds[0], JSON.stringify([{ id: 1, stamp: { card: 'coffee' } }])]);
    await bumpRules(ctx.db, tenant.organizationId);
    const customer = await seedCustomer(ctx.db, tenant);
    await ctx.app.get(V1EventsUseCase).execute(v1Request(tenant, { userId: customer.id }, { purchase: 1 }));
    const rows: Array<{ id: string; status: string; kind: string; payload: unknown; campaign_id: number; behavior_id: number }> = await ctx.db.query(
      `SELECT id::text, status, kind, payload, campaign_id, behavior_id FROM reward_effects WHERE customer_id = $1`,
      [customer.id],
    );
    expect(rows).toEqual([expect.objectContaining({ status: 'pending', kind: 'stamp', payload: { card: 'coffee' }, behavior_id: behaviorIds[0] })]);
    return { effectId: rows[0].id, customerId: customer.id };
  }

  const effect = async (id: string) => (await ctx.db.query(`SELECT status, attempts, last_error FROM reward_effects WHERE id = $1`, [id]))[0];
  const stamps = async (customerId: string) => (await ctx.db.query(`SELECT card FROM ${STAMPS} WHERE customer_id = $1`, [customerId])).length;
  const stamped = async (customerId: string) => (await eventsOf(ctx.db, customerId)).filter((e) => e.name === 'stamped');

  it('is written with the evaluation, runs once: its writes and its submitted event commit with it, and a second run skips it', async () => {
    const { effectId, customerId } = await effectOfPurchase();
    const runner = ctx.app.get(RunRewardEffect);
    expect(await runner.execute(effectId, 1, false)).toEqual({ effectId, kind: 'stamp', outcome: 'done' });
    expect(await effect(effectId)).toEqual({ status: 'done', attempts: 1, last_error: null });
    expect(await stamps(customerId)).toBe(1);
    expect((await stamped(customerId)).map((e) => [e.status, e.transaction_id])).toEqual([['pending', null]]);
    expect(await runner.execute(effectId, 2, false)).toEqual(expect.objectContaining({ effectId, outcome: 'skipped' }));
    expect([await stamps(customerId), (await stamped(customerId)).length]).toEqual([1, 1]);
  });

  it('a failed attempt rolls its writes back and is retried; the last failed attempt leaves it dead', async () => {
    const { effectId, customerId } = await effectOfPurchase();
    const runner = ctx.app.get(RunRewardEffect);
    failures.push('the stamp printer jammed');
    expect(await runner.execute(effectId, 1, false)).toEqual({ effectId, kind: 'stamp', outcome: 'failed', error: 'reward kind "stamp" (StampModule) failed: the stamp printer jammed' });
    expect(await effect(effectId)).toEqual({ status: 'retrying', attempts: 1, last_error: 'reward kind "stamp" (StampModule) failed: the stamp printer jammed' });
    expect([await stamps(customerId), (await stamped(customerId)).length]).toEqual([0, 0]);
    expect((await runner.execute(effectId, 2, false)).outcome).toBe('done');
    expect([await stamps(customerId), (await stamped(customerId)).length]).toEqual([1, 1]);

    const other = await effectOfPurchase();
    failures.push('jammed', 'jammed again');
    expect((await runner.execute(other.effectId, 1, false)).outcome).toBe('failed');
    expect((await runner.execute(other.effectId, 2, true)).outcome).toBe('dead');
    expect(await effect(other.effectId)).toEqual({ status: 'dead', attempts: 2, last_error: 'reward kind "stamp" (StampModule) failed: jammed again' });
    expect(await runner.execute(other.effectId, 3, false)).toEqual(expect.objectContaining({ outcome: 'skipped' }));
    expect([await stamps(other.customerId), (await stamped(other.customerId)).length]).toEqual([0, 0]);

    // `npm run cli -- effects:dead` lists it; `effects:replay --dead` opens it again, and it runs once more.
    const cli = (...args: string[]) => JSON.parse(spawnSync(process.execPath, ['dist/src/cli.js', ...args], { env: process.env, encoding: 'utf8' }).stdout);
    expect(cli('effects:dead').dead).toEqual(expect.arrayContaining([expect.objectContaining({ id: other.effectId, kind: 'stamp', attempts: 2, last_error: 'reward kind "stamp" (StampModule) failed: jammed again' })]));
    expect(cli('effects:replay', '--dead').replayed).toEqual(expect.arrayContaining([{ effect_id: other.effectId }]));
    expect(await effect(other.effectId)).toEqual(expect.objectContaining({ status: 'retrying', attempts: 0 }));
    expect((await runner.execute(other.effectId, 1, false)).outcome).toBe('done');
    expect([await stamps(other.customerId), (await stamped(other.customerId)).length]).toEqual([1, 1]);
  });

  it('an effect that catches a failed statement fails its attempt with that statement\'s error', async () => {
    const { effectId, customerId } = await effectOfPurchase();
    badStatement = true;
    const attempt = await ctx.app.get(RunRewardEffect).execute(effectId, 1, false);
    badStatement = false;
    expect(attempt).toEqual(expect.objectContaining({ outcome: 'failed', error: 'reward kind "stamp" (StampModule) failed: column "no_such_column" does not exist' }));
    expect([await stamps(customerId), (await stamped(customerId)).length]).toEqual([0, 0]);
  });

  it('a worker without the effect\'s extension leaves it open, its attempts unused, for a worker that has it', async () => {
    const { effectId } = await effectOfPurchase();
    await ctx.db.query(`UPDATE reward_effects SET kind = 'gift_card' WHERE id = $1`, [effectId]);
    const attempt = await ctx.app.get(RunRewardEffect).execute(effectId, 10, true);
    expect(attempt).toEqual({ effectId, kind: 'gift_card', outcome: 'failed', error: 'no reward kind "gift_card" with an after-commit effect is loaded in this worker' });
    expect(await effect(effectId)).toEqual({ status: 'pending', attempts: 0, last_error: null });
  });

  it('the sweeper finds effects left open (their job lost)', async () => {
    const { effectId } = await effectOfPurchase();
    await ctx.db.query(`UPDATE reward_effects SET updated_at = now() - interval '10 minutes' WHERE id = $1`, [effectId]);
    expect(await ctx.app.get(RewardEffectsRepository).open(ctx.db, 60)).toContain(effectId);
  });
});
