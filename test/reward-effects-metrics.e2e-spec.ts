import { jest } from '@jest/globals';
import { getQueueToken } from '@nestjs/bullmq';
import { Module, type INestApplication, type INestApplicationContext } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { Queue } from 'bullmq';
import { IsInt, Min } from 'class-validator';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { RewardKind, RewardKindHandler, type RewardContext, type RewardEffectContext } from '../src/extension-api/index.js';
import { QueueName, RewardEffectsJob } from '../src/queues/queue-names.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';

/** A bound on waiting for the worker and the counters' flush (every second), never an expectation of speed. */
const SETTLE_MS = 30_000;
jest.setTimeout(SETTLE_MS * 2 + 15_000);
const HOUR_S = 3600;

class TallyArgs {
  @ApiProperty({ example: 1, type: 'integer', minimum: 0 }) @IsInt() @Min(0) fails!: number;
}

/** A reward whose effect fails its first `fails` attempts, then is done. */
@RewardKind({ name: 'tally', description: 'A tally mark whose effect fails its first attempts', args: TallyArgs })
class Tally extends RewardKindHandler<TallyArgs> {
  apply(ctx: RewardContext, args: TallyArgs): void {
    ctx.effect({ fails: args.fails });
  }
  override afterCommit(ctx: RewardEffectContext): Promise<void> {
    if (ctx.attempt <= Number(ctx.payload.fails)) return Promise.reject(new Error(`tally jammed on attempt ${ctx.attempt}`));
    return Promise.resolve();
  }
}

@Module({ providers: [Tally] })
class TallyModule {}

/** The value of one sample of the Prometheus text with these labels among its own, or 0. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] === name && wanted.every((w) => (match[2] ?? '').split(',').includes(w))) return Number(match[3]);
  }
  return 0;
}

/**
 * Rewards' after-commit effects on /metrics (issue #46): their attempts by outcome, counted by the worker that ran them
 * and served by the API, and the effects open and dead and the oldest open one, read from PostgreSQL at the scrape.
 */
describe("reward effects' metrics", () => {
  const prefix = ownQueuePrefix('reward-effects-metrics');
  let app: INestApplication;
  let worker: INestApplicationContext | undefined;
  let db: DataSource;
  let tenant: TestTenant;

  const scrape = async () => (await request(app.getHttpServer()).get('/metrics').expect(200)).text;

  beforeAll(async () => {
    // A database of its own: the gauges count every effect of the database.
    await useOwnDatabase('reward_effects_metrics');
    app = await createTestApp({ queuePrefix: prefix }, [TallyModule]);
    db = app.get(DataSource);
    tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await api(app, tenant)
      .post(`/management/campaigns/${campaign.id}/behaviors/_batch`)
      .send({
        behaviors: ['none', 'one', 'many'].map((fails, i) => ({
          name: `Tally ${fails}`,
          points: 0,
          data: {},
          goal_groups: [{ goals: [{ achievement: { name: `tally_${fails}`, internal_event_name: `tally_${fails}`, event_count: 1 } }] }],
          outcome_config: [{ tally: { fails: [0, 1, 5][i] } }],
        })),
      })
      .expect(201);
  });

  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  it('counts attempts by outcome, and shows the effects open, dead, and how long the oldest open one has waited', async () => {
    const before = await scrape();
    expect([sample(before, 'reward_effects_backlog', { status: 'open' }), sample(before, 'reward_effects_backlog', { status: 'dead' })]).toEqual([0, 0]);
    expect(sample(before, 'reward_effects_oldest_open_seconds')).toBe(0);

    // Three effects, open until a worker takes the reward-effects queue (none runs yet): done at once, done on the
    // second attempt, and one whose job is given a single attempt so that its first failure leaves it dead.
    const customer = await createCustomer(app, tenant);
    for (const fails of ['none', 'one', 'many']) await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { [`tally_${fails}`]: 1 } }).expect(200);
    const effects: Array<{ id: string; fails: number }> = await db.query(`SELECT id::text, (payload->>'fails')::int AS fails FROM reward_effects WHERE customer_id = $1 ORDER BY id`, [customer.id]);
    expect(effects.map((e) => e.fails)).toEqual([0, 1, 5]);
    const doomed = effects[2].id;
    const queue = app.get<Queue>(getQueueToken(QueueName.RewardEffects));
    await queue.remove(`effect-${doomed}`);
    await queue.add(RewardEffectsJob.Run, { effectId: doomed }, { jobId: `effect-${doomed}`, attempts: 1, removeOnFail: true });
    // Last changed an hour ago: what the oldest-open gauge measures.
    await db.query(`UPDATE reward_effects SET updated_at = now() - interval '1 hour' WHERE id = $1`, [doomed]);

    const waiting = await scrape();
    expect(sample(waiting, 'reward_effects_backlog', { status: 'open' })).toBe(3);
    expect(sample(waiting, 'reward_effects_backlog', { status: 'dead' })).toBe(0);
    const oldest = sample(waiting, 'reward_effects_oldest_open_seconds');
    expect(oldest).toBeGreaterThan(HOUR_S - 60);
    expect(oldest).toBeLessThan(HOUR_S + 600);

    worker = await startTestWorker({ queuePrefix: prefix, workerQueues: ['reward-effects'] }, undefined, [TallyModule]);
    const change = (text: string, outcome: string) => sample(text, 'reward_effects_total', { outcome }) - sample(before, 'reward_effects_total', { outcome });
    let after = '';
    await waitFor(
      async () => {
        after = await scrape();
        return change(after, 'done') >= 2 && change(after, 'dead') >= 1 && sample(after, 'reward_effects_backlog', { status: 'open' }) === 0;
      },
      SETTLE_MS * 2,
      'the worker to run the three effects and its counters to be flushed',
      200,
    );
    expect({ done: change(after, 'done'), retrying: change(after, 'retrying'), dead: change(after, 'dead') }).toEqual({ done: 2, retrying: 1, dead: 1 });
    expect(sample(after, 'reward_effects_backlog', { status: 'dead' })).toBe(1);
    expect(sample(after, 'reward_effects_oldest_open_seconds')).toBe(0);
    expect(await db.query(`SELECT status, attempts FROM reward_effects WHERE customer_id = $1 ORDER BY id`, [customer.id])).toEqual([
      { status: 'done', attempts: 1 },
      { status: 'done', attempts: 2 },
      { status: 'dead', attempts: 1 },
    ]);
  });
});
