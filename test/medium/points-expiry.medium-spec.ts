import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Tenant } from '../../src/common/http/request-context.js';
import { EXPIRY_BATCH, PointsExpirySweeper } from '../../src/modules/points/points-expiry.sweeper.js';
import { PointsWorkerModule } from '../../src/modules/points/points-worker.module.js';
import { PointsRepository } from '../../src/modules/points/points.repository.js';
import { ledgerMismatches } from '../support/ledger.js';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source.js';
import { createMediumContext, START, type MediumContext } from './support/module.js';
import { ownDatabase, type OwnDatabase } from './support/own-database.js';
import { seedCustomer, seedTenant, type SeededCustomer } from './support/seed.js';

const HOUR = 3_600_000;
const at = (t: number) => new Date(t).toISOString();

describe('points expiry sweeper (medium: real database, no HTTP)', () => {
  let ctx: MediumContext;
  let sweeper: PointsExpirySweeper;
  let tenant: Tenant;
  let own: OwnDatabase;

  /** Credits written as an evaluation writes them: each with its expires_at and what is left of it; the balance their sum. */
  async function customerWithCredits(credits: Array<{ amount: number; expiresAt: number | null; remaining?: number }>): Promise<SeededCustomer> {
    const customer = await seedCustomer(ctx.db, tenant);
    let balance = 0;
    for (const c of credits) {
      const left = c.expiresAt === null ? null : (c.remaining ?? c.amount);
      await ctx.db.query(
        `INSERT INTO points_ledger (organization_id, customer_id, amount, reason, expires_at, remaining, created_at) VALUES ($1, $2, $3, 'behavior', $4, $5, $6)`,
        [tenant.organizationId, customer.id, c.amount, c.expiresAt === null ? null : at(c.expiresAt), left, at(START - 48 * HOUR)],
      );
      balance += c.amount;
      // A credit partly spent: the debit that spent it is in the ledger too.
      if (left !== null && left < c.amount) {
        await ctx.db.query(`INSERT INTO points_ledger (organization_id, customer_id, amount, reason, created_at) VALUES ($1, $2, $3, 'debit', $4)`, [
          tenant.organizationId,
          customer.id,
          left - c.amount,
          at(START - 24 * HOUR),
        ]);
        balance += left - c.amount;
      }
    }
    await ctx.db.query(`UPDATE customers SET available_points = $2, lifetime_points = $3 WHERE id = $1`, [customer.id, balance, credits.reduce((s, c) => s + c.amount, 0)]);
    return customer;
  }

  const available = async (c: SeededCustomer) => Number((await ctx.db.query(`SELECT available_points FROM customers WHERE id = $1`, [c.id]))[0].available_points);
  const expiredEntries = async (c: SeededCustomer) =>
    (await ctx.db.query(`SELECT amount, created_at FROM points_ledger WHERE customer_id = $1 AND reason = 'expired' ORDER BY id`, [c.id])) as Array<{ amount: number; created_at: Date }>;

  beforeAll(async () => {
    // A database of its own: the workers of the e2e specs sweep the shared one with the real clock, to which every
    // credit here is long due.
    own = await ownDatabase('points_expiry');
    const migrator = new DataSource(dataSourceOptions(own.url, 1));
    await migrator.initialize();
    await migrator.runMigrations({ transaction: 'all' });
    await migrator.destroy();
    ctx = await createMediumContext({ databasePoolSize: 6, databaseUrl: own.url }, START, [PointsWorkerModule]);
    sweeper = ctx.app.get(PointsExpirySweeper);
    // The spec runs every sweep itself. The sweeper's own 5-second timer would otherwise sweep too, holding the lock
    // while the spec seeds customers: the spec's sweeps then find the lock taken, and a customer seeded after the
    // timer's last batch stayed due (CI saw 199 of 200 expired).
    await sweeper.onApplicationShutdown();
    tenant = await seedTenant(ctx.db);
  });
  afterAll(async () => {
    expect(await ledgerMismatches(ctx.db, [tenant.organizationId])).toEqual([]);
    await ctx.close();
    await own.drop();
  });

  it('expires what is left of each due credit as one expired entry per customer; credits not yet due and credits that never expire stay', async () => {
    ctx.clock.set(START);
    const customer = await customerWithCredits([
      { amount: 50, expiresAt: START - 1000 },
      { amount: 40, expiresAt: START - HOUR, remaining: 15 },
      { amount: 30, expiresAt: START + HOUR },
      { amount: 20, expiresAt: null },
    ]);
    expect(await available(customer)).toBe(50 + 15 + 30 + 20);
    await sweeper.sweep();
    expect(await available(customer)).toBe(50);
    const entries = await expiredEntries(customer);
    expect(entries.map((e) => e.amount)).toEqual([-65]);
    expect(entries[0].created_at.toISOString()).toBe(at(START));
    const left = await ctx.db.query(`SELECT amount, remaining FROM points_ledger WHERE customer_id = $1 AND reason = 'behavior' ORDER BY amount DESC`, [customer.id]);
    expect(left).toEqual([
      { amount: 50, remaining: 0 },
      { amount: 40, remaining: 0 },
      { amount: 30, remaining: 30 },
      { amount: 20, remaining: null },
    ]);

    // An hour later the next credit is due; a sweep with nothing due changes nothing.
    ctx.clock.set(START + HOUR);
    await sweeper.sweep();
    expect(await available(customer)).toBe(20);
    expect((await expiredEntries(customer)).map((e) => e.amount)).toEqual([-65, -30]);
    await sweeper.sweep();
    expect((await expiredEntries(customer)).map((e) => e.amount)).toEqual([-65, -30]);
  });

  it(`expires every due customer in one sweep, more than one batch (${EXPIRY_BATCH.customers}) of them, each credit once`, async () => {
    ctx.clock.set(START + 2 * HOUR);
    const count = EXPIRY_BATCH.customers + 150;
    const customers: SeededCustomer[] = [];
    for (let i = 0; i < count; i++) customers.push(await customerWithCredits([{ amount: 10, expiresAt: START + HOUR + i }]));
    await Promise.all([sweeper.sweep(), sweeper.sweep()]);
    const rows = await ctx.db.query(
      `SELECT count(*)::int AS expired, sum(amount)::int AS points FROM points_ledger WHERE customer_id = ANY($1) AND reason = 'expired'`,
      [customers.map((c) => c.id)],
    );
    expect(rows).toEqual([{ expired: count, points: -10 * count }]);
    const balances = await ctx.db.query(`SELECT DISTINCT available_points::int AS points FROM customers WHERE id = ANY($1)`, [customers.map((c) => c.id)]);
    expect(balances).toEqual([{ points: 0 }]);
  });

  it('never waits for a customer an evaluation holds: the others expire, and that one on a sweep after its lock is gone', async () => {
    ctx.clock.set(START + 3 * HOUR);
    const busy = await customerWithCredits([{ amount: 25, expiresAt: START + 2.5 * HOUR }]);
    const idle = await customerWithCredits([{ amount: 35, expiresAt: START + 2.5 * HOUR }]);
    const runner = ctx.db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query(`SELECT 1 FROM customers WHERE id = $1 FOR NO KEY UPDATE`, [busy.id]);
    // What each batch of the sweep expired: one for the idle customer, then one that finds only the held customer due
    // and ends the sweep (it neither waits for the lock nor tries again until the sweep's time is up).
    const batches = jest.spyOn(PointsRepository.prototype, 'expireDue');
    try {
      expect(await sweeper.sweep()).toBe(1);
      const done = await Promise.all(batches.mock.results.map((result) => result.value as ReturnType<PointsRepository['expireDue']>));
      expect(done.map((batch) => batch.credits)).toEqual([1, 0]);
      expect(await available(idle)).toBe(0);
      expect(await available(busy)).toBe(25);
    } finally {
      batches.mockRestore();
      await runner.rollbackTransaction();
      await runner.release();
    }
    await sweeper.sweep();
    expect(await available(busy)).toBe(0);
  });

  it('can find due credits through the partial index points_ledger_due', async () => {
    const runner = ctx.db.createQueryRunner();
    await runner.connect();
    try {
      // On a small table the planner may rightly prefer a scan: off, it shows whether the index serves the query at all.
      await runner.query(`SET enable_seqscan = off`);
      const [plan] = await runner.query(
        `EXPLAIN (FORMAT JSON) SELECT customer_id FROM points_ledger WHERE remaining > 0 AND expires_at <= $1::timestamptz ORDER BY expires_at LIMIT 500`,
        [at(START)],
      );
      expect(JSON.stringify(plan['QUERY PLAN'])).toContain('"Index Name":"points_ledger_due"');
    } finally {
      await runner.query(`RESET enable_seqscan`);
      await runner.release();
    }
  });
});
