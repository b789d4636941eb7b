import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tenant } from '../../src/common/http/request-context.js';
import { CustomerTransactions } from '../../src/modules/evaluation/customer-transactions.js';
import type { EventKey } from '../../src/modules/evaluation/event-keys.js';
import { EvaluationRepository } from '../../src/modules/evaluation/evaluation.repository.js';
import { StoredEventsEvaluation } from '../../src/modules/evaluation/stored-events.evaluation.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { eventRow } from './support/plans.js';
import { achieved, balance, ledgerTotal } from './support/read.js';
import { seedCampaign, seedCustomer, seedTenant, type SeededCustomer } from './support/seed.js';
import { waitFor } from '../support/worker.js';

describe('StoredEventsEvaluation on the real database', () => {
  let ctx: MediumContext;
  let stored: StoredEventsEvaluation;
  let tenant: Tenant;
  let behaviorId: number;

  beforeAll(async () => {
    ctx = await createMediumContext({ databasePoolSize: 4 });
    stored = ctx.app.get(StoredEventsEvaluation);
    tenant = await seedTenant(ctx.db);
    ({ behaviorIds: [behaviorId] } = await seedCampaign(ctx.db, tenant, [{ event: 'purchase', points: 10 }]));
  });

  afterAll(() => ctx.close());

  /** Stores `count` pending purchases of the customer (as V1 async=true does), an hour apart; answers their keys. */
  function storePending(customer: SeededCustomer, count: number): Promise<EventKey[]> {
    const rows = Array.from({ length: count }, (_, i) =>
      eventRow(tenant, customer.id, { status: 'pending', source: 'v1_async', occurred_at: new Date(ctx.clock.now() + i * 3_600_000).toISOString() }),
    );
    return ctx.app.get(CustomerTransactions).run(null, ({ uow }) => ctx.app.get(EvaluationRepository).storePending(uow, rows));
  }

  /** A pending V2 event stored as the API stores it (customer_id NULL: its customer does not exist); answers its key. */
  async function storeV2(customerId: string | null, occurredAt = 'now()'): Promise<EventKey> {
    const [key] = await ctx.app.get(EvaluationRepository).keysOf(
      ctx.db,
      (
        (await ctx.db.query(
          `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, occurred_at) VALUES ($1, $2, $3, 'someone', 'v2', 'purchase', ${occurredAt}) RETURNING id`,
          [tenant.organizationId, tenant.apiKeyId, customerId],
        )) as Array<{ id: string }>
      ).map((r) => String(r.id)),
    );
    return key;
  }
  const storeWithoutCustomer = () => storeV2(null);

  async function statuses(keys: EventKey[]): Promise<Array<[string, string | null, number, number, boolean]>> {
    const ids = keys.map((k) => k.id);
    const rows = (await ctx.db.query(`SELECT status, reason, points_earned, attempts, processed_at FROM events WHERE id = ANY($1) ORDER BY id`, [ids])) as Array<{
      status: string;
      reason: string | null;
      points_earned: string;
      attempts: number;
      processed_at: Date | null;
    }>;
    return rows.map((r) => [r.status, r.reason, Number(r.points_earned), r.attempts, r.processed_at !== null]);
  }

  it('evaluates the pending events of several customers, writes their results, and rejects events without a customer', async () => {
    const [a, b] = [await seedCustomer(ctx.db, tenant), await seedCustomer(ctx.db, tenant)];
    const ids = [...(await storePending(a, 3)), ...(await storePending(b, 2))];
    const orphan = await storeWithoutCustomer();

    const summary = await stored.execute([...ids, orphan]);
    expect(summary).toMatchObject({ processed: 5, rejected: 1, skipped: 0, deliveries: 0 });
    expect(summary.lagSeconds).toHaveLength(5);
    expect(await statuses(ids)).toEqual(ids.map(() => ['processed', null, 10, 1, true]));
    expect(await statuses([orphan])).toEqual([['rejected', 'customer_not_found', 0, 1, true]]);
    expect(await balance(ctx.db, a.id)).toEqual({ available: 30, lifetime: 30 });
    expect(await balance(ctx.db, b.id)).toEqual({ available: 20, lifetime: 20 });
    expect(await ledgerTotal(ctx.db, a.id)).toEqual({ rows: 3, total: 30 });
    expect(await achieved(ctx.db, b.id, behaviorId)).toBe(2);
  });

  it('is idempotent: run again on the same events, it skips them all and changes nothing', async () => {
    const customer = await seedCustomer(ctx.db, tenant);
    const ids = await storePending(customer, 2);
    const orphan = await storeWithoutCustomer();
    await stored.execute([...ids, orphan]);

    const again = await stored.execute([...ids, orphan]);
    expect(again).toMatchObject({ processed: 0, rejected: 0, skipped: 3, deliveries: 0, lagSeconds: [] });
    expect(await statuses(ids)).toEqual(ids.map(() => ['processed', null, 10, 1, true]));
    expect(await balance(ctx.db, customer.id)).toEqual({ available: 20, lifetime: 20 });
    expect(await ledgerTotal(ctx.db, customer.id)).toEqual({ rows: 2, total: 20 });
  });

  it('evaluates each event once when two jobs run on the same events at once', async () => {
    const [a, b] = [await seedCustomer(ctx.db, tenant), await seedCustomer(ctx.db, tenant)];
    const ids = [...(await storePending(a, 4)), ...(await storePending(b, 4))];
    const [first, second] = await Promise.all([stored.execute(ids), stored.execute(ids)]);
    expect(first.processed + second.processed).toBe(8);
    expect(first.skipped + second.skipped).toBe(8);
    expect(await balance(ctx.db, a.id)).toEqual({ available: 40, lifetime: 40 });
    expect(await balance(ctx.db, b.id)).toEqual({ available: 40, lifetime: 40 });
    expect(await statuses(ids)).toEqual(ids.map(() => ['processed', null, 10, 1, true]));
  });

  it('evaluates the customers no other transaction holds first, then waits for the others', async () => {
    const [a, b] = [await seedCustomer(ctx.db, tenant), await seedCustomer(ctx.db, tenant)];
    const [ofA, ofB] = [await storePending(a, 2), await storePending(b, 2)];
    // Another transaction (a V1 request, another job) holds customer a.
    const holder = ctx.db.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query(`SELECT id FROM customers WHERE id = $1 FOR NO KEY UPDATE`, [a.id]);
    const job = stored.execute([...ofA, ...ofB]);
    try {
      // b's events are committed while a is still held: the job did not keep b locked while waiting for a.
      await waitFor(async () => (await statuses(ofB)).every(([status]) => status === 'processed'), 10_000, "b's events processed while a is held");
      expect((await statuses(ofB)).map(([status]) => status)).toEqual(['processed', 'processed']);
      expect((await statuses(ofA)).map(([status]) => status)).toEqual(['pending', 'pending']);
    } finally {
      await holder.commitTransaction();
      await holder.release();
    }
    expect(await job).toMatchObject({ processed: 4, rejected: 0, skipped: 0 });
    expect(await statuses(ofA)).toEqual(ofA.map(() => ['processed', null, 10, 1, true]));
    expect(await balance(ctx.db, a.id)).toEqual({ available: 20, lifetime: 20 });
  });

  it('answers the pending events by customer, and marks events failed only while pending', async () => {
    const [a, b] = [await seedCustomer(ctx.db, tenant), await seedCustomer(ctx.db, tenant)];
    const ofA = await storePending(a, 2);
    const ofB = await storePending(b, 1);
    expect(await stored.pendingByCustomer([...ofB, ...ofA])).toEqual([ofA, ofB]);
    await stored.execute(ofA);
    await stored.markFailed([...ofA, ...ofB], 'x'.repeat(600));
    expect((await statuses([...ofA, ...ofB])).map(([status]) => status)).toEqual(['processed', 'processed', 'failed']);
    const [row] = (await ctx.db.query(`SELECT length(reason)::int AS length FROM events WHERE id = $1`, [ofB[0].id])) as Array<{ length: number }>;
    expect(row.length).toBe(500);
  });

  it('finds events by key to the microsecond, in every month a job spans, and by id alone for jobs queued without times', async () => {
    const customer = await seedCustomer(ctx.db, tenant);
    const keys = [
      await storeV2(customer.id, `'2026-03-01T10:00:00.123456Z'`),
      await storeV2(customer.id, `'2026-03-31T23:59:59.999999Z'`),
      await storeV2(customer.id, `'2026-04-01T00:00:00.000001Z'`),
    ];
    expect(keys.map((k) => k.occurredAt)).toEqual(['2026-03-01T10:00:00.123456Z', '2026-03-31T23:59:59.999999Z', '2026-04-01T00:00:00.000001Z']);
    // A key one microsecond off names no event.
    expect(await stored.execute([{ ...keys[0], occurredAt: '2026-03-01T10:00:00.123457Z' }])).toMatchObject({ processed: 0, skipped: 1 });
    expect(await stored.keysOf(keys.map((k) => k.id))).toEqual(keys);
    expect(await stored.execute(keys)).toMatchObject({ processed: 3, rejected: 0, skipped: 0 });
    expect(await statuses(keys)).toEqual(keys.map(() => ['processed', null, 10, 1, true]));
    expect(await balance(ctx.db, customer.id)).toEqual({ available: 30, lifetime: 30 });
  });
});
