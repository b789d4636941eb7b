import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { IdempotencyKeysNameEvents1765400000000 } from '../../migrations/1765400000000-idempotency-keys-name-events.js';
import { migrations } from '../../migrations/index.js';
import { dataSourceOptions } from '../../src/database/data-source.js';
import { submissionStatement } from '../../src/modules/events/event-log/event-log.repository.js';
import { ownDatabase, type OwnDatabase } from './support/own-database.js';

/**
 * Migration 1765400000000 on a populated event log: a database of its own is migrated to the migration before, filled
 * with events (V1 submissions of two instances under one key, V2 events of one, events without a key) over two
 * months, then migrated forward (every key names its events; the events' own index on the key is gone; the customers'
 * index on external id carries the id) and back.
 */
describe('Idempotency keys that name their events (migration)', () => {
  let own: OwnDatabase;
  let db: DataSource;
  let apiKeyId: number;

  const through = migrations.slice(0, migrations.indexOf(IdempotencyKeysNameEvents1765400000000) + 1);
  const count = async (sql: string) => Number((await db.query(sql))[0].n);
  const submission = async (transactionId: string) => {
    const { text, values } = submissionStatement(apiKeyId, transactionId);
    return ((await db.query(text, values)) as Array<{ id: string; name: string }>).map((e) => `${e.id}:${e.name}`);
  };

  beforeAll(async () => {
    own = await ownDatabase('idempotency_keys');
    db = new DataSource({ ...dataSourceOptions(own.url, 2), migrations: through.slice(0, -1) });
    await db.initialize();
    await db.runMigrations({ transaction: 'all' });
    const [org] = await db.query(`INSERT INTO organizations (name) VALUES ('Acme') RETURNING id`);
    const [division] = await db.query(`INSERT INTO divisions (organization_id, name) VALUES ($1, 'Root') RETURNING id`, [org.id]);
    const [application] = await db.query(`INSERT INTO applications (organization_id, name) VALUES ($1, 'Web') RETURNING id`, [org.id]);
    const [key] = await db.query(`INSERT INTO api_keys (organization_id, application_id, key, secret_hash) VALUES ($1, $2, 'k', 'x') RETURNING id`, [org.id, application.id]);
    apiKeyId = key.id;
    const customer = randomUUID();
    await db.query(`INSERT INTO customers (id, organization_id, external_id, division_id, time_zone) VALUES ($1, $2, 'c-1', $3, 'UTC')`, [customer, org.id, division.id]);
    // 40 events, 20 in March and 20 in April: pairs 'v1-<k>' of a visit and a purchase at one instant, then 'v2-<k>'
    // one each, then events without a key. The keys as the service claimed them before: with the first instance's time.
    await db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, source, transaction_id, name, occurred_at, status)
       SELECT $1, $2, $3, CASE WHEN i < 10 THEN 'v1' ELSE 'v2' END,
              CASE WHEN i < 10 THEN 'v1-' || (i / 2) WHEN i < 15 THEN 'v2-' || i END,
              CASE WHEN i % 2 = 0 THEN 'visit' ELSE 'purchase' END,
              timestamptz '2026-03-10T00:00:00Z' + (m * 31) * interval '1 day' + (CASE WHEN i < 10 THEN i / 2 ELSE i END) * interval '1 hour',
              'processed'
         FROM generate_series(0, 19) AS i, generate_series(0, 1) AS m`,
      [org.id, key.id, customer],
    );
    // The same key in both months would be a duplicate: the April events take their own keys.
    await db.query(`UPDATE events SET transaction_id = transaction_id || '-april' WHERE transaction_id IS NOT NULL AND occurred_at >= '2026-04-01'`);
    await db.query(
      `INSERT INTO event_transactions (api_key_id, transaction_id, occurred_at)
       SELECT api_key_id, transaction_id, min(occurred_at) FROM events WHERE transaction_id IS NOT NULL GROUP BY api_key_id, transaction_id`,
    );
    await db.destroy();
    db = new DataSource({ ...dataSourceOptions(own.url, 2), migrations: through });
    await db.initialize();
  });

  afterAll(async () => {
    await db?.destroy();
    await own?.drop();
  });

  it('gives every key the ids of its events, drops the events’ index on the key, and finds a submission by its key', async () => {
    const stored = async (transactionId: string) =>
      ((await db.query(`SELECT id, name FROM events WHERE transaction_id = $1 ORDER BY id`, [transactionId])) as Array<{ id: string; name: string }>).map((e) => `${e.id}:${e.name}`);
    const before = { pair: await stored('v1-2'), april: await stored('v2-12-april') };
    expect(before.pair).toHaveLength(2);
    const [ran] = await db.runMigrations({ transaction: 'all' });
    expect(ran.name).toBe('IdempotencyKeysNameEvents1765400000000');

    const keys = await db.query(
      `SELECT t.transaction_id, t.event_ids, (SELECT array_agg(e.id ORDER BY e.id) FROM events e WHERE e.transaction_id = t.transaction_id) AS expected
         FROM event_transactions t ORDER BY t.transaction_id`,
    );
    expect(keys).toHaveLength(20);
    for (const key of keys) expect(key.event_ids.map(Number)).toEqual(key.expected.map(Number));
    expect(keys.find((k: { transaction_id: string }) => k.transaction_id === 'v1-0').event_ids).toHaveLength(2);
    expect(await count(`SELECT count(*) AS n FROM pg_indexes WHERE indexname LIKE 'events%transaction%'`)).toBe(0);
    expect(await submission('v1-2')).toEqual(before.pair);
    expect(await submission('v2-12-april')).toEqual(before.april);
    expect(await submission('unknown')).toEqual([]);
  });

  it('resolves a customer by external id from the index alone', async () => {
    const [definition] = await db.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'customers_external_id'`);
    expect(definition.indexdef).toMatch(/UNIQUE INDEX customers_external_id ON public\.customers USING btree \(external_id, organization_id\) INCLUDE \(id\)/);
    await expect(
      db.query(`INSERT INTO customers (organization_id, external_id, division_id, time_zone) SELECT organization_id, external_id, division_id, 'UTC' FROM customers`),
    ).rejects.toThrow(/customers_external_id/);
  });

  it('migrates back: the index on the events’ key again, the keys without ids', async () => {
    await db.undoLastMigration({ transaction: 'all' });
    expect(await count(`SELECT count(*) AS n FROM pg_indexes WHERE indexname = 'events_transaction'`)).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'event_transactions' AND column_name = 'event_ids'`)).toBe(0);
    const [definition] = await db.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'customers_external_id'`);
    expect(definition.indexdef).not.toMatch(/INCLUDE/);
    expect(await count(`SELECT count(*) AS n FROM event_transactions`)).toBe(20);
  });
});
