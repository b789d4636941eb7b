import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { RewardEffectsRepository } from '../../src/modules/reward-effects/reward-effects.repository.js';
import {
  DEAD_EFFECTS_KEPT_TIMES,
  RETENTION_EVERY_MS,
  RETENTION_PAGE,
  REWARD_EFFECTS_SWEEP_LOCK,
  RewardEffectsSweeper,
} from '../../src/modules/reward-effects/reward-effects.sweeper.js';
import { useOwnDatabase } from '../support/database.js';
import { deleteQueueKeys, ownQueuePrefix } from '../support/worker.js';
import { createMediumContext, START, type MediumContext } from './support/module.js';
import { seedCustomer, seedTenant } from './support/seed.js';

const DAY = 86_400_000;
const RETENTION_DAYS = 10;

/**
 * The reward effects' sweeper alone (no processor), without its 5-second timer: the spec runs each sweep itself, by the clock
 * it moves (a sweep of the timer's in between would move the retention's own interval).
 */
class SpecSweeper extends RewardEffectsSweeper {
  override onApplicationBootstrap(): void {}
}
@Module({ providers: [{ provide: RewardEffectsSweeper, useClass: SpecSweeper }, RewardEffectsRepository] })
class SweeperModule {}

type Status = 'pending' | 'retrying' | 'done' | 'dead';

describe("the reward effects' retention (the reward effects' sweeper, REWARD_EFFECTS_RETENTION_DAYS)", () => {
  const prefix = ownQueuePrefix('effects-retention');
  let ctx: MediumContext;
  let sweeper: RewardEffectsSweeper;
  let organizationId: number;
  let customerId: string;

  beforeAll(async () => {
    // A database of its own: the retention reads the whole table, and the workers of the e2e specs sweep the shared one
    // with the real clock.
    await useOwnDatabase('reward_effects_retention');
    ctx = await createMediumContext({ queuePrefix: prefix, rewardEffectsRetentionDays: RETENTION_DAYS }, START, [SweeperModule]);
    sweeper = ctx.app.get(RewardEffectsSweeper);
    const tenant = await seedTenant(ctx.db);
    organizationId = tenant.organizationId;
    customerId = (await seedCustomer(ctx.db, tenant)).id;
  });
  afterAll(async () => {
    await ctx?.close();
    await deleteQueueKeys(prefix);
  });

  /**
   * Effects of one status, created at `createdAt` (ms), done (done) or last attempted (dead, open) at `changedAt`: the
   * rows an evaluation and the runner leave. Answers their ids.
   */
  async function effects(count: number, status: Status, createdAt: number, changedAt = createdAt): Promise<string[]> {
    const rows: Array<{ id: string }> = await ctx.db.query(
      `INSERT INTO reward_effects (organization_id, customer_id, event_id, kind, campaign_id, behavior_id, payload, status, attempts, created_at, updated_at, done_at)
       SELECT $1, $2, 1, 'stamp', 1, 1, '{}', $4::text, 1, $5, $6, CASE WHEN $4::text = 'done' THEN $6::timestamptz END FROM generate_series(1, $3)
       RETURNING id::text`,
      [organizationId, customerId, count, status, new Date(createdAt).toISOString(), new Date(changedAt).toISOString()],
    );
    return rows.map((r) => r.id);
  }
  const kept = async (ids: string[]): Promise<number> => (await ctx.db.query(`SELECT count(*)::int AS n FROM reward_effects WHERE id = ANY($1::bigint[])`, [ids]))[0].n;
  const total = async (): Promise<number> => (await ctx.db.query(`SELECT count(*)::int AS n FROM reward_effects`))[0].n;
  /** A sweep at the clock's time, once the retention's interval has passed since the last. */
  const sweepAt = async (at: number) => {
    ctx.clock.set(at);
    await sweeper.sweep();
  };

  let now = START;

  it('deletes effects done longer ago than the retention and dead ones past three times it; open ones and the rest stay', async () => {
    const retention = RETENTION_DAYS * DAY;
    const deadKept = DEAD_EFFECTS_KEPT_TIMES * retention;
    // Oldest first, as ids follow creation.
    const openOld = await effects(2, 'retrying', now - 400 * DAY);
    const deadOld = await effects(3, 'dead', now - deadKept - 5 * DAY, now - deadKept - DAY);
    const deadRecent = await effects(3, 'dead', now - deadKept - 5 * DAY, now - deadKept + DAY);
    const pendingOld = await effects(1, 'pending', now - deadKept);
    // A backlog of several pages: deleted in one sweep, page after page.
    const doneOld = await effects(2 * RETENTION_PAGE + 17, 'done', now - retention - 3 * DAY, now - retention - 2 * DAY);
    // Created before the retention's horizon, done after it: kept until it is past.
    const doneLate = await effects(4, 'done', now - retention - DAY, now - retention + DAY);
    const doneRecent = await effects(5, 'done', now - DAY, now - DAY + 60_000);
    const before = await total();

    await sweepAt(now);
    expect(await kept(doneOld)).toBe(0);
    expect(await kept(deadOld)).toBe(0);
    expect([await kept(openOld), await kept(pendingOld), await kept(deadRecent), await kept(doneLate), await kept(doneRecent)]).toEqual([2, 1, 3, 4, 5]);
    expect(await total()).toBe(before - doneOld.length - deadOld.length);

    // Two days on: the late ones and the recent dead ones are past it; the recent done ones are not yet.
    now += 2 * DAY;
    await sweepAt(now);
    expect([await kept(doneLate), await kept(deadRecent), await kept(doneRecent), await kept(openOld), await kept(pendingOld)]).toEqual([0, 0, 5, 2, 1]);
  });

  it('runs at most every RETENTION_EVERY_MS by the clock, whatever the sweeps in between', async () => {
    now += RETENTION_EVERY_MS;
    await sweepAt(now);
    const due = await effects(3, 'done', now - RETENTION_DAYS * DAY - 2 * DAY, now - RETENTION_DAYS * DAY - DAY);
    await sweepAt(now + RETENTION_EVERY_MS - 1);
    expect(await kept(due)).toBe(3);
    await sweepAt(now + RETENTION_EVERY_MS);
    expect(await kept(due)).toBe(0);
    now += RETENTION_EVERY_MS;
  });

  it('is one process at a time: while another holds the sweep\'s advisory lock, a sweep deletes nothing', async () => {
    now += RETENTION_EVERY_MS;
    const due = await effects(2, 'done', now - RETENTION_DAYS * DAY - 2 * DAY, now - RETENTION_DAYS * DAY - DAY);
    const runner = ctx.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      expect((await runner.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [REWARD_EFFECTS_SWEEP_LOCK]))[0].locked).toBe(true);
      await sweepAt(now);
      expect(await kept(due)).toBe(2);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    await sweepAt(now);
    expect(await kept(due)).toBe(0);
  });

  it('leaves a dead effect replayed (open again) alone, whatever its age', async () => {
    now += RETENTION_EVERY_MS;
    const dead = await effects(2, 'dead', now - 100 * RETENTION_DAYS * DAY, now - 100 * RETENTION_DAYS * DAY);
    // `effects:replay --dead` opens them again (attempts from 0): they are no longer dead, whatever their age.
    await ctx.app.get(RewardEffectsRepository).revive(ctx.db);
    await sweepAt(now);
    expect(await kept(dead)).toBe(2);
  });
});
