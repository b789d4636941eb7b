import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tenant } from '../../src/common/http/request-context.js';
import { EvaluationPipeline } from '../../src/modules/evaluation/evaluation.pipeline.js';
import type { V1EventResponse } from '../../src/modules/events/dto/v1-answer.dto.js';
import { V1EventsUseCase } from '../../src/modules/events/v1-events.use-case.js';
import { engineEvaluation, v1Request } from './support/evaluations.js';
import { createMediumContext, START, type MediumContext } from './support/module.js';
import { achieved, balance, eventsOf, ledgerTotal } from './support/read.js';
import { bumpRules, seedCampaign, seedCustomer, seedCustomers, seedTenant, type SeededCustomer } from './support/seed.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A tenant with one live campaign whose behavior credits 10 points for each `purchase`. */
async function purchaseTenant(ctx: MediumContext, data: Record<string, unknown> = {}, points = 10) {
  const tenant = await seedTenant(ctx.db);
  const { behaviorIds } = await seedCampaign(ctx.db, tenant, [{ event: 'purchase', points, data }]);
  return { tenant, behaviorId: behaviorIds[0] };
}

function purchase(ctx: MediumContext, tenant: Tenant, customer: SeededCustomer, byExternalId = false): Promise<V1EventResponse> {
  const key = byExternalId ? { externalId: customer.externalId } : { userId: customer.id };
  return ctx.app.get(V1EventsUseCase).execute(v1Request(tenant, key, { purchase: 1 })) as Promise<V1EventResponse>;
}

describe('EvaluationPipeline on the real database', () => {
  describe('through V1EventsUseCase', () => {
    let ctx: MediumContext;
    beforeAll(async () => {
      ctx = await createMediumContext({ databasePoolSize: 4 });
    });
    afterAll(() => ctx.close());

    it('credits the points exactly: answer, balance, ledger, events and progress', async () => {
      const { tenant, behaviorId } = await purchaseTenant(ctx);
      const customer = await seedCustomer(ctx.db, tenant);
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await purchase(ctx, tenant, customer));
      expect(answers.map((a) => [a.available_points, a.user?.available_points, a.qualified])).toEqual([
        [10, 10, true],
        [20, 20, true],
        [30, 30, true],
      ]);
      expect(await balance(ctx.db, customer.id)).toEqual({ available: 30, lifetime: 30 });
      expect(await ledgerTotal(ctx.db, customer.id)).toEqual({ rows: 3, total: 30 });
      expect((await eventsOf(ctx.db, customer.id)).map((e) => [e.name, e.status, Number(e.points_earned)])).toEqual([
        ['purchase', 'processed', 10],
        ['purchase', 'processed', 10],
        ['purchase', 'processed', 10],
      ]);
      expect(await achieved(ctx.db, customer.id, behaviorId)).toBe(3);
    });

    it('writes the time of the injected clock, and a period cap counts again once the clock has moved a period on', async () => {
      const { tenant } = await purchaseTenant(ctx, { period: 86_400, max_times_achievable_per_period: 1 }, 5);
      const customer = await seedCustomer(ctx.db, tenant);
      ctx.clock.set(START + 10 * HOUR);
      const first = await purchase(ctx, tenant, customer);
      ctx.clock.advance(HOUR);
      const capped = await purchase(ctx, tenant, customer);
      ctx.clock.advance(DAY);
      const nextDay = await purchase(ctx, tenant, customer);

      expect([first.available_points, capped.available_points, nextDay.available_points]).toEqual([5, 5, 10]);
      expect(capped.state).toBe('reached_frequency_period_cap');
      expect(await balance(ctx.db, customer.id)).toEqual({ available: 10, lifetime: 10 });
      const rows = (await ctx.db.query(`SELECT occurred_at, points_earned FROM events WHERE customer_id = $1 ORDER BY id`, [customer.id])) as Array<{ occurred_at: Date; points_earned: string }>;
      expect(rows.map((r) => [r.occurred_at.toISOString(), Number(r.points_earned)])).toEqual([
        ['2026-03-02T10:00:00.000Z', 5],
        ['2026-03-02T11:00:00.000Z', 0],
        ['2026-03-03T11:00:00.000Z', 5],
      ]);
    });
  });

  describe('with a cold rules cache and a pool of 2', () => {
    let ctx: MediumContext;
    beforeAll(async () => {
      ctx = await createMediumContext({ databasePoolSize: 2 });
    });
    afterAll(() => ctx.close());

    async function twentyAtOnce(tenant: Tenant, customers: SeededCustomer[]) {
      const answers = await Promise.all(customers.map((c) => purchase(ctx, tenant, c)));
      expect(answers.map((a) => a.available_points)).toEqual(customers.map(() => 10));
      for (const c of customers) expect(await balance(ctx.db, c.id)).toEqual({ available: 10, lifetime: 10 });
    }

    it('evaluates 20 customers at once for an organization never compiled: every evaluation succeeds', async () => {
      const { tenant } = await purchaseTenant(ctx);
      await twentyAtOnce(tenant, await seedCustomers(ctx.db, tenant, 20));
    });

    it('evaluates 20 customers at once right after the rules version was bumped: every evaluation succeeds', async () => {
      const { tenant } = await purchaseTenant(ctx);
      await purchase(ctx, tenant, await seedCustomer(ctx.db, tenant));
      await bumpRules(ctx.db, tenant.organizationId);
      await twentyAtOnce(tenant, await seedCustomers(ctx.db, tenant, 20));
    });
  });

  describe('one customer evaluated many times at once', () => {
    let ctx: MediumContext;
    let other: MediumContext;
    beforeAll(async () => {
      ctx = await createMediumContext({ databasePoolSize: 4 });
      other = await createMediumContext({ databasePoolSize: 4 });
    });
    afterAll(async () => {
      await other.close();
      await ctx.close();
    });

    it('20 evaluations at once, by id and by external id, lose no update', async () => {
      const { tenant, behaviorId } = await purchaseTenant(ctx);
      const customer = await seedCustomer(ctx.db, tenant);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => purchase(ctx, tenant, customer, i % 2 === 1)));
      expect(answers.map((a) => a.available_points ?? 0).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => 10 * (i + 1)));
      expect(await balance(ctx.db, customer.id)).toEqual({ available: 200, lifetime: 200 });
      expect(await ledgerTotal(ctx.db, customer.id)).toEqual({ rows: 20, total: 200 });
      expect(await eventsOf(ctx.db, customer.id)).toHaveLength(20);
      expect(await achieved(ctx.db, customer.id, behaviorId)).toBe(20);
    });

    it('two processes (two contexts, two pools) evaluating one customer at once lose no update', async () => {
      const { tenant, behaviorId } = await purchaseTenant(ctx);
      const customer = await seedCustomer(ctx.db, tenant);
      await Promise.all(Array.from({ length: 20 }, (_, i) => purchase(i % 2 === 0 ? ctx : other, tenant, customer)));
      expect(await balance(ctx.db, customer.id)).toEqual({ available: 200, lifetime: 200 });
      expect(await ledgerTotal(ctx.db, customer.id)).toEqual({ rows: 20, total: 200 });
      expect(await achieved(ctx.db, customer.id, behaviorId)).toBe(20);
    });
  });

  describe('a failure rolls the whole evaluation back (pool of 1: the connection must come back)', () => {
    let ctx: MediumContext;
    let pipeline: EvaluationPipeline;
    let tenant: Tenant;
    beforeAll(async () => {
      ctx = await createMediumContext({ databasePoolSize: 1 });
      pipeline = ctx.app.get(EvaluationPipeline);
      ({ tenant } = await purchaseTenant(ctx));
    });
    afterAll(() => ctx.close());

    async function stored(customer: SeededCustomer) {
      return { balance: await balance(ctx.db, customer.id), ledger: await ledgerTotal(ctx.db, customer.id), events: (await eventsOf(ctx.db, customer.id)).length };
    }

    it('stores nothing when the write fails after inserting the events, and the next evaluation of the customer works', async () => {
      const customer = await seedCustomer(ctx.db, tenant);
      await pipeline.forCustomer(engineEvaluation(tenant, { userId: customer.id }, 'purchase'));
      const before = await stored(customer);
      // The events are inserted first; the progress row then names a customer that does not exist (foreign key).
      const failing = engineEvaluation(tenant, { userId: customer.id }, 'purchase', (plan) => {
        plan.progress.push({ ...plan.progress[0], customer_id: '00000000-0000-4000-8000-000000000000' });
      });
      await expect(pipeline.forCustomer(failing)).rejects.toMatchObject({ code: '23503' });
      expect(await stored(customer)).toEqual(before);
      expect(before).toEqual({ balance: { available: 10, lifetime: 10 }, ledger: { rows: 1, total: 10 }, events: 1 });

      const next = await pipeline.forCustomer(engineEvaluation(tenant, { userId: customer.id }, 'purchase'));
      expect(next.points).toBe(10);
      expect(await stored(customer)).toEqual({ balance: { available: 20, lifetime: 20 }, ledger: { rows: 2, total: 20 }, events: 2 });
    });

    it('rolls back what a decide() that throws had written on the transaction, and the next evaluation works', async () => {
      const customer = await seedCustomer(ctx.db, tenant);
      const throwing = engineEvaluation(tenant, { externalId: customer.externalId }, 'purchase', async (_plan, loaded) => {
        await loaded.uow.run({ text: `UPDATE customers SET available_points = 999 WHERE id = $1`, values: [customer.id] });
        throw new Error('decide failed');
      });
      await expect(pipeline.forCustomer(throwing)).rejects.toThrow('decide failed');
      expect(await stored(customer)).toEqual({ balance: { available: 0, lifetime: 0 }, ledger: { rows: 0, total: 0 }, events: 0 });

      await pipeline.forCustomer(engineEvaluation(tenant, { externalId: customer.externalId }, 'purchase'));
      expect(await stored(customer)).toEqual({ balance: { available: 10, lifetime: 10 }, ledger: { rows: 1, total: 10 }, events: 1 });
    });

    it('answers not_found for an unknown customer, and the connection is free for the next evaluation', async () => {
      await expect(pipeline.forCustomer(engineEvaluation(tenant, { externalId: 'nobody' }, 'purchase'))).rejects.toMatchObject({ code: 'not_found' });
      const customer = await seedCustomer(ctx.db, tenant);
      expect((await pipeline.forCustomer(engineEvaluation(tenant, { userId: customer.id }, 'purchase'))).points).toBe(10);
    });
  });

  describe('a hot customer with a pool of 3', () => {
    let ctx: MediumContext;
    beforeAll(async () => {
      ctx = await createMediumContext({ databasePoolSize: 3 });
    });
    afterAll(() => ctx.close());

    it('30 evaluations of one customer at once and evaluations of 5 other customers all succeed, exactly', async () => {
      const { tenant } = await purchaseTenant(ctx);
      const hot = await seedCustomer(ctx.db, tenant);
      const others = await seedCustomers(ctx.db, tenant, 5);
      const work = [...Array.from({ length: 30 }, () => hot), ...others, ...others];
      const answers = await Promise.all(work.map((c) => purchase(ctx, tenant, c)));
      expect(answers.every((a) => a.status === 'ok')).toBe(true);
      expect(await balance(ctx.db, hot.id)).toEqual({ available: 300, lifetime: 300 });
      expect(await ledgerTotal(ctx.db, hot.id)).toEqual({ rows: 30, total: 300 });
      for (const c of others) expect(await balance(ctx.db, c.id)).toEqual({ available: 20, lifetime: 20 });
    });
  });
});
