import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { Tenant } from '../../src/common/http/request-context.js';
import { dataSourceOptions } from '../../src/database/data-source.js';
import { BACKFILL_LOCK, LedgerBackfill } from '../../src/modules/points/ledger-backfill.js';
import { BACKFILL_BATCH } from '../../src/modules/points/ledger-backfill.repository.js';
import { PointsWorkerModule } from '../../src/modules/points/points-worker.module.js';
import { waitFor } from '../support/worker.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { ownDatabase, type OwnDatabase } from './support/own-database.js';
import { seedCustomer, seedTenant, type SeededCustomer } from './support/seed.js';

interface LedgerRow {
  id: string;
  reason: string;
  occurred_at: Date | null;
  reversed_at: Date | null;
  /** The row version's transaction: unchanged when a run did not rewrite the row. */
  version: string;
}

const at = (iso: string) => new Date(iso);

/**
 * The backfill of points_ledger.occurred_at and reversed_at (decision 0019, step 3) on rows written as before migration
 * 1765500000000 (inserted with SQL, both null), on a database of its own (the backfill walks the whole ledger): run by
 * the workers at start, right values, the other entries untouched, a second run that changes nothing, a run stopped
 * after one batch that a new run finishes, rows the event path holds skipped rather than waited for.
 */
describe('ledger backfill of occurred_at and reversed_at (medium: real database)', () => {
  let own: OwnDatabase;
  let db: DataSource;
  let ctx: MediumContext;
  let backfill: LedgerBackfill;
  let tenant: Tenant;
  let customer: SeededCustomer;
  /** The fixture's ledger ids by name. */
  const ids: Record<string, string> = {};

  const ledger = async (): Promise<LedgerRow[]> =>
    (await db.query(`SELECT id::text, reason, occurred_at, reversed_at, xmin::text AS version FROM points_ledger ORDER BY id`)) as LedgerRow[];
  const row = async (name: string): Promise<LedgerRow> => (await ledger()).find((r) => r.id === ids[name])!;
  const nullCredits = async () =>
    Number((await db.query(`SELECT count(*) AS n FROM points_ledger WHERE occurred_at IS NULL AND reason NOT IN ('debit', 'expired', 'reversal')`))[0].n);

  /** An event as the service stores it, in the month its time names (or the default partition). */
  async function event(occurredAt: string, transactionId: string | null, source = 'v1'): Promise<string> {
    const [e] = (await db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, source, transaction_id, name, occurred_at, status, points_earned)
       VALUES ($1, $2, $3, $4, $5, 'purchase', $6, 'processed', 10) RETURNING id::text`,
      [tenant.organizationId, tenant.apiKeyId, customer.id, source, transactionId, occurredAt],
    )) as Array<{ id: string }>;
    if (transactionId !== null) {
      await db.query(`INSERT INTO event_transactions (api_key_id, transaction_id, occurred_at) VALUES ($1, $2, $3)`, [tenant.apiKeyId, transactionId, occurredAt]);
    }
    return e.id;
  }

  /** A ledger entry as it was written before the migration: occurred_at and reversed_at null unless given. */
  async function entry(
    name: string,
    e: { amount: number; reason: string; eventId?: string | null; createdAt: string; occurredAt?: string; reversedAt?: string; source?: object },
  ): Promise<void> {
    const [r] = (await db.query(
      `INSERT INTO points_ledger (organization_id, customer_id, event_id, amount, reason, source, created_at, occurred_at, reversed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id::text`,
      [tenant.organizationId, customer.id, e.eventId ?? null, e.amount, e.reason, JSON.stringify(e.source ?? {}), e.createdAt, e.occurredAt ?? null, e.reversedAt ?? null],
    )) as Array<{ id: string }>;
    ids[name] = r.id;
  }

  /** A reversal as the service wrote it: the event_reversals row naming the submission, and its negative entry. */
  async function reversal(name: string, transactionId: string, points: number, createdAt: string): Promise<void> {
    await db.query(
      `INSERT INTO event_reversals (organization_id, api_key_id, transaction_id, customer_id, events, points, achievements, created_at)
       VALUES ($1, $2, $3, $4, 1, $5, 1, $6)`,
      [tenant.organizationId, tenant.apiKeyId, transactionId, customer.id, points, createdAt],
    );
    await entry(name, { amount: -points, reason: 'reversal', createdAt, source: { transaction_id: transactionId, description: null } });
  }

  beforeAll(async () => {
    own = await ownDatabase('ledger_backfill');
    db = new DataSource(dataSourceOptions(own.url, 3));
    await db.initialize();
    await db.runMigrations({ transaction: 'all' });
    // Months of their own for January and February 2026; March's events go to the default partition.
    for (const [name, from, to] of [
      ['events_2026_01', '2026-01-01', '2026-02-01'],
      ['events_2026_02', '2026-02-01', '2026-03-01'],
    ]) {
      await db.query(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF events FOR VALUES FROM ('${from}T00:00:00Z') TO ('${to}T00:00:00Z')`);
    }
    tenant = await seedTenant(db);
    customer = await seedCustomer(db, tenant);

    const january = await event('2026-01-10T09:00:00Z', 'order-1');
    const february = await event('2026-02-15T12:30:00Z', 'order-2');
    const march = await event('2026-03-05T18:00:00Z', null);
    const performed = await event('2026-02-01T08:00:00Z', 'perform-1', 'perform');
    const undone = await event('2026-01-20T10:00:00Z', 'order-3');
    // Credits of every reason, each written a while after its event (a worker's, a back-dated V1 event's).
    await entry('behavior', { amount: 10, reason: 'behavior', eventId: january, createdAt: '2026-01-10T09:00:01Z' });
    await entry('goal', { amount: 5, reason: 'goal', eventId: january, createdAt: '2026-01-10T09:00:01Z' });
    await entry('reversed', { amount: 20, reason: 'behavior', eventId: february, createdAt: '2026-02-16T00:00:00Z' });
    await entry('offer', { amount: 7, reason: 'offer', eventId: march, createdAt: '2026-03-06T00:00:00Z' });
    await entry('outcome', { amount: 3, reason: 'outcome', eventId: march, createdAt: '2026-03-06T00:00:00Z' });
    await entry('perform', { amount: 4, reason: 'behavior', eventId: performed, createdAt: '2026-02-01T08:00:00Z' });
    // An event that left the log (its month dropped), and a credit naming none: the row's own time.
    await entry('gone', { amount: 6, reason: 'behavior', eventId: '999999999', createdAt: '2025-06-01T10:00:00Z' });
    await entry('eventless', { amount: 2, reason: 'goal', createdAt: '2025-07-01T10:00:00Z' });
    // Reversed after the migration (the reversal statement set reversed_at, not occurred_at): its reversed_at stays.
    await entry('marked', { amount: 8, reason: 'behavior', eventId: undone, createdAt: '2026-01-20T10:00:00Z', reversedAt: '2026-11-20T10:00:00Z' });
    // Written after the migration: left as it is.
    await entry('new', { amount: 9, reason: 'behavior', eventId: march, createdAt: '2026-03-06T00:00:00Z', occurredAt: '2026-03-05T18:00:00Z' });
    // The other entries keep occurred_at null.
    await entry('debit', { amount: -5, reason: 'debit', createdAt: '2026-02-20T00:00:00Z' });
    await entry('expired', { amount: -2, reason: 'expired', createdAt: '2026-02-21T00:00:00Z' });
    await reversal('reversal', 'order-2', 20, '2026-02-18T07:00:00Z');

    // A worker process starts: its points module runs the backfill once.
    ctx = await createMediumContext({ databasePoolSize: 4, databaseUrl: own.url }, undefined, [PointsWorkerModule]);
    backfill = ctx.app.get(LedgerBackfill);
    // Its run goes on in the background (the worker does not wait for it to take jobs).
    await waitFor(async () => (await nullCredits()) === 0, 10_000, 'the backfill started at bootstrap to fill the ledger');
  });

  afterAll(async () => {
    await ctx?.close();
    await db?.destroy();
    await own?.drop();
  });

  it("gives each credit its event's time (the row's own when the event is gone) and the reversal's time to those taken back, run by the worker at start", async () => {
    const expected: Record<string, [string | null, string | null]> = {
      behavior: ['2026-01-10T09:00:00Z', null],
      goal: ['2026-01-10T09:00:00Z', null],
      reversed: ['2026-02-15T12:30:00Z', '2026-02-18T07:00:00Z'],
      offer: ['2026-03-05T18:00:00Z', null],
      outcome: ['2026-03-05T18:00:00Z', null],
      perform: ['2026-02-01T08:00:00Z', null],
      gone: ['2025-06-01T10:00:00Z', null],
      eventless: ['2025-07-01T10:00:00Z', null],
      marked: ['2026-01-20T10:00:00Z', '2026-11-20T10:00:00Z'],
      new: ['2026-03-05T18:00:00Z', null],
      debit: [null, null],
      expired: [null, null],
      reversal: [null, null],
    };
    for (const [name, [occurredAt, reversedAt]] of Object.entries(expected)) {
      const r = await row(name);
      expect({ name, occurred_at: r.occurred_at, reversed_at: r.reversed_at }).toEqual({
        name,
        occurred_at: occurredAt === null ? null : at(occurredAt),
        reversed_at: reversedAt === null ? null : at(reversedAt),
      });
    }
    expect(await nullCredits()).toBe(0);
  });

  it('changes nothing when run again: no row rewritten', async () => {
    const before = await ledger();
    const report = await backfill.run({ paced: false, wait: true }); // after the bootstrap's run, if still walking
    expect(report).toMatchObject({ rows: 0, reversed: 0, skipped: 0, complete: true });
    expect(await ledger()).toEqual(before);
  });

  it('leaves the run to the process that holds the lock; by hand (wait) it runs once that one is done', async () => {
    const holder = db.createQueryRunner();
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock($1)`, [BACKFILL_LOCK]);
      expect(await backfill.run({ paced: false, wait: false })).toBeNull();
      const waiting = backfill.run({ paced: false, wait: true });
      // The run by hand waits for the lock (a request of it not granted), then the holder lets go.
      const waitsForLock = async () =>
        (await db.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1`, [BACKFILL_LOCK]))[0].n === 1;
      await waitFor(waitsForLock, 10_000, 'the run by hand to wait for the lock');
      await holder.query(`SELECT pg_advisory_unlock($1)`, [BACKFILL_LOCK]);
      expect(await waiting).toMatchObject({ rows: 0, complete: true });
    } finally {
      await holder.release();
    }
  });

  it(`finishes on a new run what a run stopped after one batch (${BACKFILL_BATCH} rows) left, with the same result`, async () => {
    // 6,000 events of March (default partition), each with a goal and a behavior credit; every tenth event reversed.
    await db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, source, transaction_id, name, occurred_at, status, points_earned)
       SELECT $1, $2, $3, 'v1', 'bulk-' || i, 'purchase', timestamptz '2026-03-10T00:00:00Z' + i * interval '1 minute', 'processed', 2
         FROM generate_series(0, 5999) AS i`,
      [tenant.organizationId, tenant.apiKeyId, customer.id],
    );
    await db.query(
      `INSERT INTO event_reversals (organization_id, api_key_id, transaction_id, customer_id, events, points, achievements, created_at)
       SELECT $1, $2, transaction_id, customer_id, 1, 2, 0, occurred_at + interval '1 day' FROM events
        WHERE transaction_id LIKE 'bulk-%' AND substr(transaction_id, 6)::int % 10 = 0`,
      [tenant.organizationId, tenant.apiKeyId],
    );
    await db.query(
      `INSERT INTO points_ledger (organization_id, customer_id, event_id, amount, reason, created_at)
       SELECT e.organization_id, e.customer_id, e.id, 1, r.reason, e.occurred_at + interval '1 second'
         FROM events e CROSS JOIN (VALUES ('goal'), ('behavior')) AS r(reason)
        WHERE e.transaction_id LIKE 'bulk-%' ORDER BY e.id, r.reason`,
    );
    expect(await nullCredits()).toBe(12_000);

    // Stopped after its first batch (as a worker shutting down stops it; a killed one leaves the same: whole batches).
    let batches = 0;
    const stopped = await backfill.run({ paced: false, wait: false, stop: () => batches++ >= 1 });
    expect(stopped).toMatchObject({ batches: 1, complete: false });
    expect(stopped!.rows).toBeGreaterThan(0);
    expect(await nullCredits()).toBe(12_000 - stopped!.rows);

    const rerun = await backfill.run({ paced: true, wait: false });
    expect(rerun).toMatchObject({ complete: true, skipped: 0 });
    expect(stopped!.rows + rerun!.rows).toBe(12_000);
    expect(stopped!.reversed + rerun!.reversed).toBe(1_200);
    expect(await nullCredits()).toBe(0);
    const wrong = await db.query(
      `SELECT count(*)::int AS n FROM points_ledger l JOIN events e ON e.id = l.event_id
        WHERE e.transaction_id LIKE 'bulk-%'
          AND (l.occurred_at IS DISTINCT FROM e.occurred_at
               OR l.reversed_at IS DISTINCT FROM (SELECT r.created_at FROM event_reversals r WHERE r.api_key_id = e.api_key_id AND r.transaction_id = e.transaction_id))`,
    );
    expect(wrong).toEqual([{ n: 0 }]);
  });

  it('skips a credit the event path holds locked instead of waiting for it; the next run fills it', async () => {
    const march = await event('2026-03-20T12:00:00Z', null);
    await entry('held', { amount: 5, reason: 'behavior', eventId: march, createdAt: '2026-03-20T12:00:01Z' });
    const holder = db.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      await holder.query(`SELECT 1 FROM points_ledger WHERE id = $1 FOR NO KEY UPDATE`, [ids.held]); // a debit's lock
      const report = await backfill.run({ paced: false, wait: false });
      expect(report).toMatchObject({ rows: 0, skipped: 1, complete: true });
      expect((await row('held')).occurred_at).toBeNull();
      await holder.commitTransaction();
    } finally {
      await holder.release();
    }
    expect(await backfill.run({ paced: false, wait: false })).toMatchObject({ rows: 1, skipped: 0 });
    expect((await row('held')).occurred_at).toEqual(at('2026-03-20T12:00:00Z'));
  });
});
