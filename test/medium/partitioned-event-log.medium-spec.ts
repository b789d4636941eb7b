import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PartitionedEventLog1764800000000 } from '../../migrations/1764800000000-partitioned-event-log.js';
import { migrations } from '../../migrations/index.js';
import { dataSourceOptions } from '../../src/database/data-source.js';
import { ownDatabase, type OwnDatabase } from './support/own-database.js';

/**
 * Migration 1764800000000 on a populated, unpartitioned event log: a database of its own is migrated to the
 * migration before, filled with events over three months (with idempotency keys and ledger entries that name them),
 * then migrated; and migrated back.
 */
describe('Partitioning a populated event log (migration)', () => {
  let own: OwnDatabase;
  let db: DataSource;

  // The migrations up to the one tested, and up to the one before it.
  const through = migrations.slice(0, migrations.indexOf(PartitionedEventLog1764800000000) + 1);
  const count = async (sql: string) => Number((await db.query(sql))[0].n);

  beforeAll(async () => {
    own = await ownDatabase('partitioning');
    db = new DataSource({ ...dataSourceOptions(own.url, 2), migrations: through.slice(0, -1) });
    await db.initialize();
    await db.runMigrations({ transaction: 'all' });

    const [org] = await db.query(`INSERT INTO organizations (name) VALUES ('Acme') RETURNING id`);
    const [division] = await db.query(`INSERT INTO divisions (organization_id, name) VALUES ($1, 'Root') RETURNING id`, [org.id]);
    const [application] = await db.query(`INSERT INTO applications (organization_id, name) VALUES ($1, 'Web') RETURNING id`, [org.id]);
    const [key] = await db.query(`INSERT INTO api_keys (organization_id, application_id, key, secret_hash) VALUES ($1, $2, 'k', 'x') RETURNING id`, [org.id, application.id]);
    const customer = randomUUID();
    await db.query(`INSERT INTO customers (id, organization_id, external_id, division_id, time_zone) VALUES ($1, $2, 'c-1', $3, 'UTC')`, [customer, org.id, division.id]);
    // 300 events: 100 in each of March, May and July 2026; every tenth with a transaction id; a ledger entry for each.
    await db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, source, transaction_id, name, occurred_at, status, points_earned)
       SELECT $1, $2, $3, 'v1', CASE WHEN i % 10 = 0 THEN 'tx-' || i END, 'visit',
              timestamptz '2026-03-05T00:00:00Z' + ((i / 100) * 61) * interval '1 day' + (i % 100) * interval '1 hour', 'processed', 5
         FROM generate_series(0, 299) AS i`,
      [org.id, key.id, customer],
    );
    await db.query(
      `INSERT INTO points_ledger (organization_id, customer_id, event_id, amount, reason) SELECT organization_id, customer_id, id, 5, 'behavior' FROM events`,
    );
    await db.destroy();

    db = new DataSource({ ...dataSourceOptions(own.url, 2), migrations: through });
    await db.initialize();
  });

  afterAll(async () => {
    await db?.destroy();
    await own?.drop();
  });

  it('moves every event into its month, keeps ids, keys and what names them, and continues the ids', async () => {
    const before = await db.query(`SELECT id, occurred_at FROM events ORDER BY id`);
    const [ran] = await db.runMigrations({ transaction: 'all' });
    expect(ran.name).toBe('PartitionedEventLog1764800000000');

    expect(await count(`SELECT count(*) AS n FROM pg_partitioned_table WHERE partrelid = 'events'::regclass`)).toBe(1);
    expect(await db.query(`SELECT id, occurred_at FROM events ORDER BY id`)).toEqual(before);
    for (const month of ['2026_03', '2026_05', '2026_07']) expect(await count(`SELECT count(*) AS n FROM events_${month}`)).toBe(100);
    expect(await count(`SELECT count(*) AS n FROM events_2026_04`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM events_default`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM event_transactions`)).toBe(30);
    expect(await count(`SELECT count(*) AS n FROM points_ledger l JOIN events e ON e.id = l.event_id`)).toBe(300);

    // A used key is refused; a new event takes the next id.
    await expect(db.query(`INSERT INTO event_transactions (api_key_id, transaction_id, occurred_at) SELECT id, 'tx-10', now() FROM api_keys`)).rejects.toThrow(
      /event_transactions_pkey/,
    );
    const [fresh] = await db.query(
      `INSERT INTO events (organization_id, api_key_id, source, name, occurred_at) SELECT organization_id, id, 'v2', 'visit', now() FROM api_keys RETURNING id`,
    );
    expect(Number(fresh.id)).toBeGreaterThan(Math.max(...before.map((e: { id: string }) => Number(e.id))));
  });

  it('migrates back to one table with the same events', async () => {
    const before = await count(`SELECT count(*) AS n FROM events`);
    await db.undoLastMigration({ transaction: 'all' });
    expect(await count(`SELECT count(*) AS n FROM pg_partitioned_table`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM events`)).toBe(before);
    expect(await count(`SELECT count(*) AS n FROM pg_indexes WHERE indexname = 'events_transaction' AND indexdef LIKE 'CREATE UNIQUE%'`)).toBe(1);
    const constraints = await db.query(`SELECT conname FROM pg_constraint WHERE conrelid = 'events'::regclass ORDER BY conname`);
    expect(constraints.map((c: { conname: string }) => c.conname)).toEqual(['events_customer_id_fkey', 'events_pkey', 'events_source_check', 'events_status_check']);
  });

  it('migrates forward again after the way back', async () => {
    const before = await count(`SELECT count(*) AS n FROM events`);
    await db.runMigrations({ transaction: 'all' });
    expect(await count(`SELECT count(*) AS n FROM pg_partitioned_table WHERE partrelid = 'events'::regclass`)).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM events`)).toBe(before);
    expect(await count(`SELECT count(*) AS n FROM event_transactions`)).toBe(30);
    const indexes = await db.query(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'events'::regclass AND indisvalid ORDER BY 1`);
    expect(indexes.map((i: { name: string }) => i.name)).toEqual(['events_customer_timeline', 'events_pending', 'events_pkey', 'events_rejected', 'events_transaction']);
  });
});
