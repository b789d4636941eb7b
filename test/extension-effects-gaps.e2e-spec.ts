import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { Module, type INestApplication, type INestApplicationContext } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, Min } from 'class-validator';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { runMigrations } from '../src/database/preflight.js';
import { loadConfig } from '../src/config/config.js';
import {
  DomainAction,
  DomainActionHandler,
  EventEnricher,
  EventEnricherHandler,
  RewardKind,
  RewardKindHandler,
  type DomainActionContext,
  type DomainActionDecision,
  type EnrichableEvent,
  type EnrichContext,
  type RewardContext,
  type RewardEffectContext,
} from '../src/extension-api/index.js';
import { RunRewardEffect } from '../src/modules/reward-effects/run-reward-effect.use-case.js';
import { CouponPoolModule, migrations as couponMigrations } from '../examples/coupon-pool/coupon-pool.module.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { expectError, expectErrorAmongOthers } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createTriggeredCreative } from './factories/creative.factory.js';

/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 30_000;
jest.setTimeout(SETTLE_MS + 30_000);

/** LIMIT_COMPLETION_POINTS in this file's processes. */
const COMPLETION_POINTS = 100;
/** EXTENSION_TIMEOUT_MS (enrichers, domain actions) and an effect attempt's deadline in this file's processes. */
const EXTENSION_TIMEOUT_MS = 300;
const EFFECT_TIMEOUT_MS = 500;

class BonusArgs {
  @ApiProperty({ example: 10, type: 'integer', minimum: 1 }) @IsInt() @Min(1) points!: number;
}

/** An extension reward declaring its points: what LIMIT_COMPLETION_POINTS counts when a behavior is written. */
@RewardKind({ name: 'bonus_points', description: 'Points given as a bonus', args: BonusArgs })
class BonusPoints extends RewardKindHandler<BonusArgs> {
  apply(ctx: RewardContext, args: BonusArgs): void {
    ctx.credit(args.points);
  }
  override points(args: BonusArgs): number {
    return args.points;
  }
}

/** What the extensions below saw of their deadline's signal. */
const seen: Array<{ who: string; aborted: boolean; reason?: string; late?: string }> = [];

/** An enricher that, for an event asking it to, waits for its deadline's signal; quick otherwise (keeping its signal). */
let quickSignal: AbortSignal | undefined;
@EventEnricher({ name: 'deadline_probe', description: 'Waits for its deadline when asked to' })
class DeadlineProbe extends EventEnricherHandler {
  async enrich(events: EnrichableEvent[], context: EnrichContext): Promise<void> {
    if (!events.some((e) => e.attributes.wait_for_deadline === true || e.context.wait_for_deadline === true)) {
      quickSignal = context.signal;
      return;
    }
    await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
    seen.push({ who: 'enricher', aborted: context.signal.aborted, reason: (context.signal.reason as DOMException).name });
    // Too late: the request has been answered, and nothing of it is stored.
    for (const event of events) event.context = { ...event.context, late: true };
  }
}

/** A domain action that waits for its deadline's signal, then tries a statement on the perform's transaction. */
@DomainAction({ name: 'wait_for_deadline', description: 'Waits for its deadline' })
class WaitForDeadline extends DomainActionHandler {
  async decide(ctx: DomainActionContext): Promise<DomainActionDecision> {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    const late = await ctx.query('SELECT 1').then(
      () => 'ran',
      (error: Error) => error.message,
    );
    seen.push({ who: 'domain action', aborted: ctx.signal.aborted, reason: (ctx.signal.reason as DOMException).name, late });
    return { failure: 'too late' };
  }
}

const MARKS = 'ext_effects_marks';

class SlowStampArgs {
  @ApiProperty({ example: 40, type: 'integer', minimum: 1 }) @IsInt() @Min(1) creative_id!: number;
  @ApiProperty({ enum: ['wait', 'sleep'] }) @IsIn(['wait', 'sleep']) mode!: 'wait' | 'sleep';
}

/**
 * A reward whose effect's first attempt overruns its deadline after writing (a mark in the team's table, and a
 * notification with its webhook): `wait` waits for the signal and then tries another statement, `sleep` runs a statement
 * that would take 20 s. The second attempt writes the same, quickly, and reads how the first one was recorded.
 */
@RewardKind({ name: 'slow_stamp', description: 'A stamp whose first attempt is too slow', args: SlowStampArgs })
class SlowStamp extends RewardKindHandler<SlowStampArgs> {
  apply(ctx: RewardContext, args: SlowStampArgs): void {
    ctx.effect({ creative_id: args.creative_id, mode: args.mode });
  }
  override async afterCommit(ctx: RewardEffectContext): Promise<void> {
    const { creative_id, mode } = ctx.payload as { creative_id: number; mode: 'wait' | 'sleep' };
    await ctx.query(`INSERT INTO ${MARKS} (effect_id, attempt) VALUES ($1, $2)`, [ctx.effectId, ctx.attempt]);
    await ctx.notify(creative_id, { stamp: `attempt ${ctx.attempt}` });
    if (ctx.attempt > 1) {
      const [before] = await ctx.query<{ status: string; attempts: number; last_error: string }>(`SELECT status, attempts, last_error FROM reward_effects WHERE id = $1`, [ctx.effectId]);
      seen.push({ who: `effect ${mode} retried`, aborted: ctx.signal.aborted, late: `${before.status} ${before.attempts}: ${before.last_error}` });
      return;
    }
    if (mode === 'sleep') {
      const failure = await ctx.query('SELECT pg_sleep(20)').then(
        () => 'slept',
        (error: Error) => error.message,
      );
      seen.push({ who: 'effect sleep', aborted: ctx.signal.aborted, reason: (ctx.signal.reason as DOMException | undefined)?.name, late: failure });
      return;
    }
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    const late = await ctx.query(`INSERT INTO ${MARKS} (effect_id, attempt) VALUES ($1, 99)`, [ctx.effectId]).then(
      () => 'ran',
      (error: Error) => error.message,
    );
    seen.push({ who: 'effect wait', aborted: ctx.signal.aborted, reason: (ctx.signal.reason as DOMException).name, late });
  }
}

@Module({ providers: [BonusPoints, DeadlineProbe, WaitForDeadline, SlowStamp] })
class SpecExtensionsModule {}

type Json = Record<string, unknown>;
const behavior = (name: string, event: string, outcomes: Json[], points = 0) => ({
  name,
  points,
  data: {},
  goal_groups: [{ goals: [{ achievement: { name: event, internal_event_name: event, event_count: 1 } }] }],
  outcome_config: outcomes,
});

interface Payload {
  id: string;
  type: string;
  created_at: string;
  data: Json;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and records every body, by path. */
async function startReceiver(): Promise<{ server: Server; url: string; received: Array<{ path: string; body: Payload }> }> {
  const received: Array<{ path: string; body: Payload }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(body) as Payload });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** Issue #45: extension rewards' points under LIMIT_COMPLETION_POINTS, deadlines that abort, effects' notifications' webhooks. */
describe('extensions: points limit, deadlines and effects (issue #45)', () => {
  const prefix = ownQueuePrefix('extension-effects');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let db: DataSource;
  let tenant: TestTenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let hookPath: string;
  let creativeId: number;

  beforeAll(async () => {
    // The coupon pool's table, by its own migration, on a database of this file's own.
    const url = await useOwnDatabase('extension_effects');
    await runMigrations(url, couponMigrations);
    const limits = { ...loadConfig(process.env).limits, completionPoints: COMPLETION_POINTS };
    const config = { queuePrefix: prefix, databaseUrl: url, webhookAllowPrivateNetworks: true, extensionTimeoutMs: EXTENSION_TIMEOUT_MS, limits };
    const modules = [CouponPoolModule, SpecExtensionsModule];
    app = await createTestApp(config, modules);
    worker = await startTestWorker({ ...config, workerQueues: ['events', 'webhooks'] }, undefined, modules);
    worker.get(RunRewardEffect, { strict: false }).timeoutMs = EFFECT_TIMEOUT_MS;
    db = app.get(DataSource);
    await db.query(`CREATE TABLE ${MARKS} (effect_id bigint NOT NULL, attempt integer NOT NULL)`);
    receiver = await startReceiver();
    tenant = await createTenant(app);
    hookPath = `/notifications-${tenant.organizationId}`;
    await api(app, tenant)
      .post('/management/webhooks')
      .send({ webhook: { url: `${receiver.url}${hookPath}`, event_types: ['notification.created'] } })
      .expect(201);
    // The creative effects send their notifications in (triggered by another campaign's behavior, never completed here).
    const other = await createCampaign(app, tenant);
    const unused = await api(app, tenant).post(`/management/campaigns/${other.id}/behaviors/_batch`).send({ behaviors: [behavior('Unused', 'never', [{ points: 1 }])] }).expect(201);
    creativeId = await createTriggeredCreative(app, tenant, other.id, unused.body.behaviors[0].id, { message: 'Your coupon', payload: { screen: 'coupons' } });
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await deleteQueueKeys(prefix);
  });

  const batch = (campaignId: number, behaviors: unknown[]) => api(app, tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors });
  const send = (customerId: string, events: Json) => api(app, tenant).post(`/users/${customerId}/events`).send({ events });
  const points = async (customerId: string) => (await api(app, tenant).get(`/users/${customerId}`).expect(200)).body.user.available_points as number;
  const effectsOf = (customerId: string): Promise<Array<{ id: string; kind: string; status: string; attempts: number; last_error: string | null }>> =>
    db.query(`SELECT id::text, kind, status, attempts, last_error FROM reward_effects WHERE customer_id = $1 ORDER BY id`, [customerId]);
  const notificationsOf = async (customerId: string) => (await api(app, tenant).get(`/users/${customerId}/notifications`).expect(200)).body.notifications as Json[];
  const hooksFor = (customerId: string) => receiver.received.filter((r) => r.path === hookPath && r.body.data.user_id === customerId).map((r) => r.body);

  describe("LIMIT_COMPLETION_POINTS counts an extension reward's declared points", () => {
    it('refuses a batch and an update past the limit with them, naming the limit; a completion within it credits them', async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      const over = await batch(campaign, [behavior('Bonus visit', 'bonus_visit', [{ points: 10 }, { bonus_points: { points: 51 } }], 40)]);
      expect(expectErrorAmongOthers(over, 400, 'validation')).toEqual(['behaviors.0.points']);
      expect(over.body.errors.message).toContain(
        `with its goals' points and its points outcomes make 101 points for one completion: a completion may award at most ${COMPLETION_POINTS} points (LIMIT_COMPLETION_POINTS)`,
      );
      const within = await batch(campaign, [behavior('Bonus visit', 'bonus_visit', [{ points: 10 }, { bonus_points: { points: 50 } }], 40)]).expect(201);
      const id = within.body.behaviors[0].id as number;
      const update = await api(app, tenant)
        .put(`/management/behaviors/${id}`)
        .send({ behavior: { outcome_config: [{ bonus_points: { points: 61 } }] } });
      expect(expectErrorAmongOthers(update, 400, 'validation')).toEqual(['behavior.points']);
      expect(update.body.errors.message).toContain('make 101 points for one completion');

      const customer = await createCustomer(app, tenant);
      await send(customer.id, { bonus_visit: 1 }).expect(200);
      expect(await points(customer.id)).toBe(100);
    });
  });

  describe("a deadline aborts the extension's signal", () => {
    it('an enricher waiting on its signal sees it aborted at EXTENSION_TIMEOUT_MS; the request is 503 and stores nothing', async () => {
      const customer = await createCustomer(app, tenant);
      const res = await send(customer.id, { visit: { wait_for_deadline: true } });
      expectError(res, 503, 'service_unavailable');
      expect(res.body.errors.message).toBe(`event enricher "deadline_probe" (SpecExtensionsModule) did not answer within ${EXTENSION_TIMEOUT_MS} ms`);
      await waitFor(() => seen.some((s) => s.who === 'enricher'), SETTLE_MS, 'the enricher to see its signal');
      expect(seen.find((s) => s.who === 'enricher')).toEqual({ who: 'enricher', aborted: true, reason: 'TimeoutError' });
      expect(await db.query(`SELECT 1 FROM events WHERE customer_id = $1`, [customer.id])).toEqual([]);

      // An enricher that answered in time: its signal is never aborted, its deadline passed or not.
      await send(customer.id, { visit: 1 }).expect(200);
      const quick = quickSignal!;
      await new Promise((resolve) => setTimeout(resolve, EXTENSION_TIMEOUT_MS + 100));
      expect(quick.aborted).toBe(false);
    });

    it("a domain action waiting on its signal sees it aborted; perform is 503 and its statements are refused from then on", async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      const customer = await createCustomer(app, tenant);
      const res = await request(app.getHttpServer())
        .post(`/priv/v2/apps/${tenant.apiKey}/users/${customer.id}/campaigns/${campaign}/perform`)
        .auth(tenant.apiKey, tenant.apiSecret)
        .send({ domain: 'wait_for_deadline' });
      expectError(res, 503, 'service_unavailable');
      expect(res.body.errors.message).toBe(`domain action "wait_for_deadline" (SpecExtensionsModule) did not answer within ${EXTENSION_TIMEOUT_MS} ms`);
      await waitFor(() => seen.some((s) => s.who === 'domain action'), SETTLE_MS, 'the domain action to see its signal');
      expect(seen.find((s) => s.who === 'domain action')).toEqual({
        who: 'domain action',
        aborted: true,
        reason: 'TimeoutError',
        late: `no statement can be sent after the deadline: domain action "wait_for_deadline" (SpecExtensionsModule) did not answer within ${EXTENSION_TIMEOUT_MS} ms`,
      });
    });

    it('an effect past its deadline is rolled back (its writes, its notification and webhook), refuses statements after, and is retried', async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      await batch(campaign, [behavior('Slow stamp', 'slow_stamp', [{ slow_stamp: { creative_id: creativeId, mode: 'wait' } }])]).expect(201);
      const customer = await createCustomer(app, tenant);
      await send(customer.id, { slow_stamp: 1 }).expect(200);
      await waitFor(async () => (await effectsOf(customer.id))[0]?.status === 'done', SETTLE_MS, 'the slow effect to be done');
      const [effect] = await effectsOf(customer.id);
      expect(effect).toMatchObject({ kind: 'slow_stamp', status: 'done', attempts: 2, last_error: null });
      expect(seen.find((s) => s.who === 'effect wait')).toEqual({
        who: 'effect wait',
        aborted: true,
        reason: 'TimeoutError',
        late: `no statement can be sent after the deadline: reward kind "slow_stamp" (SpecExtensionsModule) did not answer within ${EFFECT_TIMEOUT_MS} ms`,
      });
      // How the first attempt was recorded, as the second read it: retrying, for its deadline.
      expect(seen.find((s) => s.who === 'effect wait retried')).toEqual({
        who: 'effect wait retried',
        aborted: false,
        late: `retrying 1: reward kind "slow_stamp" (SpecExtensionsModule) did not answer within ${EFFECT_TIMEOUT_MS} ms`,
      });
      // The first attempt's mark, notification and webhook were rolled back: only the second's are there.
      expect(await db.query(`SELECT attempt FROM ${MARKS} WHERE effect_id = $1`, [effect.id])).toEqual([{ attempt: 2 }]);
      expect((await notificationsOf(customer.id)).map((n) => (n.data as { payload: Json }).payload.stamp)).toEqual(['attempt 2']);
      await waitFor(() => hooksFor(customer.id).length > 0, SETTLE_MS, "the second attempt's notification webhook");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(hooksFor(customer.id).map((h) => (h.data.data as { payload: Json }).payload.stamp)).toEqual(['attempt 2']);
    });

    it('a statement of an effect still running at the deadline is cancelled, and the effect retried', async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      await batch(campaign, [behavior('Sleepy stamp', 'sleepy_stamp', [{ slow_stamp: { creative_id: creativeId, mode: 'sleep' } }])]).expect(201);
      const customer = await createCustomer(app, tenant);
      await send(customer.id, { sleepy_stamp: 1 }).expect(200);
      // Within 20 s bounds only the wait: what shows the cancel is the statement's own error.
      await waitFor(async () => (await effectsOf(customer.id))[0]?.status === 'done', SETTLE_MS, 'the sleepy effect to be done');
      const [effect] = await effectsOf(customer.id);
      expect(effect).toMatchObject({ status: 'done', attempts: 2 });
      expect(seen.find((s) => s.who === 'effect sleep')).toEqual({ who: 'effect sleep', aborted: true, reason: 'TimeoutError', late: 'canceling statement due to user request' });
      expect(await db.query(`SELECT attempt FROM ${MARKS} WHERE effect_id = $1`, [effect.id])).toEqual([{ attempt: 2 }]);
    });
  });

  describe("an effect's notification sends notification.created", () => {
    it("the coupon's notification is delivered to a subscribed webhook, in the payload the evaluation's have", async () => {
      const shop = (await createCampaign(app, tenant)).id;
      await batch(shop, [behavior('First purchase', 'purchase', [{ points: 10 }, { coupon: { pool: 'SUMMER', creative_id: creativeId } }])]).expect(201);
      await db.query(`INSERT INTO coupon_codes (organization_id, pool, code) VALUES ($1, 'SUMMER', 'SUMMER-1')`, [tenant.organizationId]);
      const customer = await createCustomer(app, tenant);
      const answer = await send(customer.id, { purchase: 1 }).expect(200);
      // The completion itself drafts no notification: the coupon's is the effect's.
      expect(answer.body.notifications).toEqual([]);
      await waitFor(() => hooksFor(customer.id).length > 0, SETTLE_MS, "the coupon notification's webhook");
      const [notification] = await notificationsOf(customer.id);
      expect((notification.data as { payload: Json }).payload).toEqual({ screen: 'coupons', coupon_code: 'SUMMER-1' });
      const [hook] = hooksFor(customer.id);
      expect(hook).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), type: 'notification.created', created_at: expect.stringMatching(/Z$/), data: expect.any(Object) });
      expect(hook.data).toEqual({
        id: Number(notification.id),
        type: 'push_message',
        campaign_id: shop,
        behavior_name: 'First purchase',
        data: notification.data,
        user_id: customer.id,
        external_id: customer.external_id,
      });
      // Listed with the webhook's deliveries, delivered, as the evaluation's are.
      const [webhook] = (await api(app, tenant).get('/management/webhooks').expect(200)).body.webhooks as Array<{ id: number }>;
      const delivered = async () =>
        ((await api(app, tenant).get(`/management/webhooks/${webhook.id}/deliveries?limit=100`).expect(200)).body.deliveries as Json[]).filter(
          (d) => d.type === 'notification.created' && d.status === 'delivered',
        );
      await waitFor(async () => (await delivered()).length > 0, SETTLE_MS, 'the delivery recorded as delivered');
      expect(await effectsOf(customer.id)).toEqual([expect.objectContaining({ kind: 'coupon', status: 'done', attempts: 1 })]);
    });
  });
});
