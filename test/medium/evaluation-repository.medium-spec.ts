import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tenant } from '../../src/common/http/request-context.js';
import { CustomerTransactions } from '../../src/modules/evaluation/customer-transactions.js';
import { DuplicateTransaction, EvaluationRepository } from '../../src/modules/evaluation/evaluation.repository.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { creditPlan, eventRow } from './support/plans.js';
import { achieved, balance, eventsOf, ledgerTotal } from './support/read.js';
import { seedCampaign, seedCustomer, seedTenant, type SeededCustomer } from './support/seed.js';

describe('EvaluationRepository on the real database', () => {
  let ctx: MediumContext;
  let repository: EvaluationRepository;
  let transactions: CustomerTransactions;
  let tenant: Tenant;
  let campaignId: number;
  let behaviorId: number;

  beforeAll(async () => {
    ctx = await createMediumContext();
    repository = ctx.app.get(EvaluationRepository);
    transactions = ctx.app.get(CustomerTransactions);
    tenant = await seedTenant(ctx.db);
    ({ campaignId, behaviorIds: [behaviorId] } = await seedCampaign(ctx.db, tenant, [{ event: 'purchase', points: 10 }]));
  });

  afterAll(() => ctx.close());

  /** Tries to lock the customer row from another connection without waiting: true when it is free. */
  async function lockable(customerId: string): Promise<boolean> {
    const runner = ctx.db.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query(`SELECT 1 FROM customers WHERE id = $1 FOR UPDATE NOWAIT`, [customerId]);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return false;
      throw error;
    } finally {
      await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
  }

  describe('customer()', () => {
    let customer: SeededCustomer;
    beforeAll(async () => {
      customer = await seedCustomer(ctx.db, tenant, 25);
    });

    it('reads a customer by id and by external id, with its balance and the rules version', async () => {
      const [byId, byExternal] = await transactions.read(({ uow }) =>
        Promise.all([repository.customer(uow, tenant.organizationId, { userId: customer.id }, false), repository.customer(uow, tenant.organizationId, { externalId: customer.externalId }, false)]),
      );
      expect(byId).toEqual(byExternal);
      expect(byId).toMatchObject({ externalId: customer.externalId, snapshot: { id: customer.id, availablePoints: 25, lifetimePoints: 25, divisionId: tenant.rootDivisionId, tags: [] } });
      expect(byId!.rulesVersion).toBeGreaterThan(0);
    });

    it('answers null for an unknown id, a malformed id, an unknown external id and another organization', async () => {
      const other = await seedTenant(ctx.db);
      const found = await transactions.read(({ uow }) =>
        Promise.all([
          repository.customer(uow, tenant.organizationId, { userId: '00000000-0000-4000-8000-000000000000' }, false),
          repository.customer(uow, tenant.organizationId, { userId: 'not-a-uuid' }, true),
          repository.customer(uow, tenant.organizationId, { externalId: 'nobody' }, false),
          repository.customer(uow, other.organizationId, { userId: customer.id }, false),
        ]),
      );
      expect(found).toEqual([null, null, null, null]);
    });

    it('holds the row lock until the transaction ends when locked, and takes none when not', async () => {
      const seen: boolean[] = [];
      await transactions.run(null, async ({ uow }) => {
        await repository.customer(uow, tenant.organizationId, { userId: customer.id }, false);
        seen.push(await lockable(customer.id));
        await repository.customer(uow, tenant.organizationId, { externalId: customer.externalId }, true);
        seen.push(await lockable(customer.id));
      });
      seen.push(await lockable(customer.id));
      expect(seen).toEqual([true, false, true]);
    });
  });

  describe('progressByKey() and progress()', () => {
    it('read the progress rows of the behaviors asked for, by key and for several customers', async () => {
      const [a, b] = [await seedCustomer(ctx.db, tenant), await seedCustomer(ctx.db, tenant)];
      const other = (await seedCampaign(ctx.db, tenant, [{ event: 'visit', points: 1 }])).behaviorIds[0];
      const state = (n: number) => ({ achieved: n, completions: [], window: null, goals: {} });
      await ctx.db.query(
        `INSERT INTO customer_progress (customer_id, behavior_id, state, achieved) VALUES ($1, $3, $4, 1), ($1, $5, $6, 2), ($2, $3, $7, 3)`,
        [a.id, b.id, behaviorId, state(1), other, state(2), state(3)],
      );
      const [byId, byExternal, none, several] = await transactions.read(({ uow }) =>
        Promise.all([
          repository.progressByKey(uow, tenant.organizationId, { userId: a.id }, [behaviorId]),
          repository.progressByKey(uow, tenant.organizationId, { externalId: a.externalId }, [behaviorId, other]),
          repository.progressByKey(uow, tenant.organizationId, { userId: a.id }, []),
          repository.progress(uow, [a.id, b.id], [behaviorId, other]),
        ]),
      );
      expect(byId).toEqual({ [behaviorId]: state(1) });
      expect(byExternal).toEqual({ [behaviorId]: state(1), [other]: state(2) });
      expect(none).toEqual({});
      expect(Object.fromEntries(several)).toEqual({ [a.id]: { [behaviorId]: state(1), [other]: state(2) }, [b.id]: { [behaviorId]: state(3) } });
    });
  });

  describe('write()', () => {
    it('inserts the events, progress, ledger, offers and notifications and updates the customer row, exactly', async () => {
      const customer = await seedCustomer(ctx.db, tenant, 5);
      const plan = creditPlan(tenant, customer.id, behaviorId, campaignId, 10, 5);
      plan.events = {
        insert: [eventRow(tenant, customer.id, { transaction_id: 'order-write-1', points: 10, campaign_id: campaignId }), eventRow(tenant, customer.id, { name: 'visit' })],
      };
      plan.offers = [{ idx: 0, organization_id: tenant.organizationId, customer_id: customer.id, offer_id: 77, campaign_id: campaignId, behavior_id: behaviorId, issued_at: '2026-03-02T10:00:00.000Z' }];
      plan.notifications = [
        { idx: 1, organization_id: tenant.organizationId, customer_id: customer.id, creative_id: 55, campaign_id: campaignId, behavior_id: behaviorId, type: 'push', data: { message: 'hi' } },
      ];
      const written = await transactions.run(null, (tx) => tx.commitWith(repository.write(tx.uow, plan)));

      const events = await eventsOf(ctx.db, customer.id);
      expect(events.map((e) => [e.id, e.name, e.status, Number(e.points_earned), e.transaction_id])).toEqual([
        [written.eventIds[0], 'purchase', 'processed', 10, 'order-write-1'],
        [written.eventIds[1], 'visit', 'processed', 0, null],
      ]);
      expect(await balance(ctx.db, customer.id)).toEqual({ available: 15, lifetime: 15 });
      expect(await ledgerTotal(ctx.db, customer.id)).toEqual({ rows: 1, total: 10 });
      expect(await achieved(ctx.db, customer.id, behaviorId)).toBe(1);
      const [row] = (await ctx.db.query(`SELECT tags, qualified_campaign_ids FROM customers WHERE id = $1`, [customer.id])) as Array<{ tags: string[]; qualified_campaign_ids: number[] }>;
      expect(row).toEqual({ tags: ['buyer'], qualified_campaign_ids: [campaignId] });
      const ledger = (await ctx.db.query(`SELECT event_id, reason FROM points_ledger WHERE customer_id = $1`, [customer.id])) as Array<{ event_id: string; reason: string }>;
      expect(ledger).toEqual([{ event_id: written.eventIds[0], reason: 'behavior' }]);
      const offers = (await ctx.db.query(`SELECT offer_id, event_id FROM customer_offers WHERE customer_id = $1`, [customer.id])) as unknown[];
      expect(offers).toEqual([{ offer_id: 77, event_id: written.eventIds[0] }]);
      const notifications = (await ctx.db.query(`SELECT id, event_id, creative_id, data FROM notifications WHERE customer_id = $1`, [customer.id])) as Array<Record<string, unknown>>;
      expect(notifications).toEqual([{ id: String(written.notificationIds[0]), event_id: written.eventIds[1], creative_id: 55, data: { message: 'hi' } }]);
      expect(written.deliveryIds).toEqual([]);
    });

    it('raises DuplicateTransaction for a transaction_id already used under the key, and writes nothing of the repeat', async () => {
      const customer = await seedCustomer(ctx.db, tenant);
      await transactions.run(null, (tx) => tx.commitWith(repository.write(tx.uow, creditPlan(tenant, customer.id, behaviorId, campaignId, 10, 0, 'order-dup'))));
      const error = await transactions
        .run(null, (tx) => tx.commitWith(repository.write(tx.uow, creditPlan(tenant, customer.id, behaviorId, campaignId, 10, 10, 'order-dup'))))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateTransaction);
      expect(error).toMatchObject({ code: 'duplicate_transaction', message: 'transaction_id order-dup has already been processed' });
      expect(await eventsOf(ctx.db, customer.id)).toHaveLength(1);
      expect(await balance(ctx.db, customer.id)).toEqual({ available: 10, lifetime: 10 });
      expect(await ledgerTotal(ctx.db, customer.id)).toEqual({ rows: 1, total: 10 });
    });

    it("writes a domain action's rows in the write's transaction: a write that fails leaves none of them", async () => {
      await ctx.db.query(`CREATE TABLE IF NOT EXISTS medium_action_rows (customer_id uuid NOT NULL, note text NOT NULL DEFAULT 'kept')`);
      const customer = await seedCustomer(ctx.db, tenant);
      const withRows = (points: number, before: number, note: string) => ({
        ...creditPlan(tenant, customer.id, behaviorId, campaignId, points, before, 'rows-dup'),
        rows: [{ table: 'medium_action_rows', rows: [{ customer_id: customer.id, note }, { customer_id: customer.id }] }],
      });
      await transactions.run(null, (tx) => tx.commitWith(repository.write(tx.uow, withRows(5, 0, 'first'))));
      const repeat = await transactions.run(null, (tx) => tx.commitWith(repository.write(tx.uow, withRows(5, 5, 'repeat')))).catch((e: unknown) => e);
      expect(repeat).toBeInstanceOf(DuplicateTransaction);
      // The second row names no note: it keeps the column's default.
      expect(await ctx.db.query(`SELECT note FROM medium_action_rows WHERE customer_id = $1 ORDER BY note`, [customer.id])).toEqual([{ note: 'first' }, { note: 'kept' }]);
      expect(await balance(ctx.db, customer.id)).toEqual({ available: 5, lifetime: 5 });
      await ctx.db.query(`DROP TABLE medium_action_rows`);
    });

    it('lets another api key use the same transaction_id', async () => {
      const customer = await seedCustomer(ctx.db, tenant);
      const other = await seedTenant(ctx.db);
      const otherKey = { ...tenant, apiKeyId: other.apiKeyId };
      await transactions.run(null, (tx) => tx.commitWith(repository.write(tx.uow, creditPlan(tenant, customer.id, behaviorId, campaignId, 1, 0, 'shared-id'))));
      await transactions.run(null, (tx) => tx.commitWith(repository.write(tx.uow, creditPlan(otherKey, customer.id, behaviorId, campaignId, 1, 1, 'shared-id'))));
      expect((await eventsOf(ctx.db, customer.id)).map((e) => e.transaction_id)).toEqual(['shared-id', 'shared-id']);
    });
  });

  describe('storePending()', () => {
    it('stores events pending, unprocessed, and answers their keys (id and occurred_at) in order', async () => {
      const customer = await seedCustomer(ctx.db, tenant);
      const rows = ['a', 'b', 'c'].map((name) => eventRow(tenant, customer.id, { name, status: 'pending', source: 'v1_async' }));
      const keys = await transactions.run(null, ({ uow }) => repository.storePending(uow, rows));
      const stored = (await ctx.db.query(`SELECT id, occurred_at, name, status, processed_at, source FROM events WHERE customer_id = $1 ORDER BY id`, [customer.id])) as unknown[];
      expect(stored).toEqual(
        keys.map((key, i) => ({ id: key.id, occurred_at: new Date(rows[i].occurred_at), name: ['a', 'b', 'c'][i], status: 'pending', processed_at: null, source: 'v1_async' })),
      );
      expect(keys.map((k) => k.occurredAt)).toEqual(rows.map((r) => r.occurred_at.replace('Z', '000Z')));
      expect(await balance(ctx.db, customer.id)).toEqual({ available: 0, lifetime: 0 });
    });

    it('raises DuplicateTransaction for a used transaction_id and stores none of the rows', async () => {
      const customer = await seedCustomer(ctx.db, tenant);
      await transactions.run(null, ({ uow }) => repository.storePending(uow, [eventRow(tenant, customer.id, { status: 'pending', transaction_id: 'pending-dup' })]));
      const repeat = [eventRow(tenant, customer.id, { status: 'pending', transaction_id: 'pending-dup' }), eventRow(tenant, customer.id, { status: 'pending' })];
      await expect(transactions.run(null, ({ uow }) => repository.storePending(uow, repeat))).rejects.toMatchObject({
        code: 'duplicate_transaction',
        message: 'transaction_id pending-dup has already been processed',
      });
      expect(await eventsOf(ctx.db, customer.id)).toHaveLength(1);
    });
  });
});
