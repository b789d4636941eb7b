import type { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = `id, organization_id, api_key_id, customer_id, user_ref, source, transaction_id, name, count, attributes, context, division_id,
  campaign_id, occurred_at, status, reason, result, points_earned, attempts, created_at, processed_at, request_id, qualify`;

/**
 * The event log in monthly partitions by `occurred_at` (UTC months, `events_YYYY_MM`, and `events_default` for rows
 * outside them), so that retention drops a month instead of deleting rows (docs/decisions/0011-partitioned-event-log.md).
 * - Idempotency keys move to `event_transactions` (PostgreSQL enforces a unique index on a partitioned table only
 *   with the partition key in it): one row per (api key, transaction id), claimed in the statement that stores the
 *   event, kept when the event's partition is dropped.
 * - Ledger entries, notifications and issued offers keep their `event_id` without a foreign key: it names an event
 *   that may have left the log (a key to a partitioned table would need the partition key too).
 * - Existing rows are copied in one statement, into tables without keys or indexes, which are built after the copy
 *   (one sort each); docs/operations.md gives the time per million events and how to run it on a large log.
 * - Partitions: every month that holds events, through three months ahead; the workers keep three months ahead.
 */
export class PartitionedEventLog1764800000000 implements MigrationInterface {
  name = 'PartitionedEventLog1764800000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['points_ledger', 'notifications', 'customer_offers']) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${table}_event_id_fkey`);
    }
    // Tables are filled first and indexed after: one sort per index instead of an index entry per row.
    await q.query(`
      CREATE TABLE event_transactions (
        api_key_id integer NOT NULL,
        transaction_id text NOT NULL,
        occurred_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      INSERT INTO event_transactions (api_key_id, transaction_id, occurred_at, created_at)
      SELECT api_key_id, transaction_id, occurred_at, created_at FROM events WHERE transaction_id IS NOT NULL`);
    await q.query(`ALTER TABLE event_transactions ADD PRIMARY KEY (api_key_id, transaction_id)`);
    await q.query(`CREATE INDEX event_transactions_occurred ON event_transactions (occurred_at)`);

    await q.query(`ALTER TABLE events RENAME TO events_unpartitioned`);
    for (const index of ['events_pkey', 'events_customer_timeline', 'events_pending', 'events_rejected', 'events_transaction']) {
      await q.query(`ALTER INDEX IF EXISTS ${index} RENAME TO ${index}_old`);
    }
    await q.query(`ALTER TABLE events_unpartitioned RENAME CONSTRAINT events_source_check TO events_source_check_old`);
    await q.query(`ALTER TABLE events_unpartitioned RENAME CONSTRAINT events_status_check TO events_status_check_old`);
    await q.query(`ALTER TABLE events_unpartitioned RENAME CONSTRAINT events_customer_id_fkey TO events_customer_id_fkey_old`);
    await q.query(`
      CREATE TABLE events (
        id bigint NOT NULL DEFAULT nextval('events_id_seq'),
        organization_id integer NOT NULL,
        api_key_id integer NOT NULL,
        customer_id uuid,
        user_ref text,
        source text NOT NULL CONSTRAINT events_source_check CHECK (source IN ('v1', 'v1_async', 'v2', 'perform')),
        transaction_id text,
        name text NOT NULL,
        count numeric NOT NULL DEFAULT 1,
        attributes jsonb NOT NULL DEFAULT '{}',
        context jsonb NOT NULL DEFAULT '{}',
        division_id integer,
        campaign_id integer,
        occurred_at timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'pending' CONSTRAINT events_status_check CHECK (status IN ('pending', 'processed', 'rejected', 'failed', 'stored')),
        reason text,
        result jsonb,
        points_earned bigint NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz,
        request_id text,
        qualify boolean NOT NULL DEFAULT false
      ) PARTITION BY RANGE (occurred_at)`);
    await q.query(`ALTER SEQUENCE events_id_seq OWNED BY events.id`);
    await q.query(`CREATE TABLE events_default PARTITION OF events DEFAULT`);

    // Every month from the oldest event's through three months ahead of now, in UTC.
    await q.query(`
      DO $$
      DECLARE month timestamptz;
      BEGIN
        FOR month IN
          SELECT generate_series(
                   date_trunc('month', least(coalesce((SELECT min(occurred_at) FROM events_unpartitioned), now()), now()) AT TIME ZONE 'UTC'),
                   date_trunc('month', greatest(coalesce((SELECT max(occurred_at) FROM events_unpartitioned), now()), now() + interval '3 months') AT TIME ZONE 'UTC'),
                   interval '1 month') AT TIME ZONE 'UTC'
        LOOP
          EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)',
                         'events_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM'), month, (month AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC');
        END LOOP;
      END $$`);
    await q.query(`INSERT INTO events (${COLUMNS}) SELECT ${COLUMNS} FROM events_unpartitioned`);
    await q.query(`DROP TABLE events_unpartitioned`);
    await q.query(`ALTER TABLE events ADD PRIMARY KEY (id, occurred_at), ADD FOREIGN KEY (customer_id) REFERENCES customers(id)`);
    await q.query(`CREATE INDEX events_customer_timeline ON events (customer_id, occurred_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_pending ON events (created_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX events_rejected ON events (organization_id, created_at DESC, id DESC) WHERE status = 'rejected'`);
    await q.query(`CREATE INDEX events_transaction ON events (api_key_id, transaction_id) WHERE transaction_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events RENAME TO events_partitioned`);
    await q.query(`ALTER SEQUENCE events_id_seq OWNED BY NONE`);
    for (const index of ['events_pkey', 'events_customer_timeline', 'events_pending', 'events_rejected', 'events_transaction']) {
      await q.query(`ALTER INDEX IF EXISTS ${index} RENAME TO ${index}_partitioned`);
    }
    await q.query(`ALTER TABLE events_partitioned RENAME CONSTRAINT events_source_check TO events_source_check_partitioned`);
    await q.query(`ALTER TABLE events_partitioned RENAME CONSTRAINT events_status_check TO events_status_check_partitioned`);
    await q.query(`CREATE TABLE events (LIKE events_partitioned INCLUDING DEFAULTS)`);
    await q.query(`ALTER SEQUENCE events_id_seq OWNED BY events.id`);
    await q.query(`INSERT INTO events (${COLUMNS}) SELECT ${COLUMNS} FROM events_partitioned`);
    await q.query(`DROP TABLE events_partitioned`);
    // The constraints under their own names, so that the migration can run forward again.
    await q.query(`
      ALTER TABLE events ADD PRIMARY KEY (id),
        ADD CONSTRAINT events_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers(id),
        ADD CONSTRAINT events_source_check CHECK (source IN ('v1', 'v1_async', 'v2', 'perform')),
        ADD CONSTRAINT events_status_check CHECK (status IN ('pending', 'processed', 'rejected', 'failed', 'stored'))`);
    await q.query(`CREATE UNIQUE INDEX events_transaction ON events (api_key_id, transaction_id) WHERE transaction_id IS NOT NULL`);
    await q.query(`CREATE INDEX events_customer_timeline ON events (customer_id, occurred_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_pending ON events (created_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX events_rejected ON events (organization_id, created_at DESC, id DESC) WHERE status = 'rejected'`);
    await q.query(`DROP TABLE event_transactions`);
    for (const table of ['points_ledger', 'notifications', 'customer_offers']) {
      await q.query(`ALTER TABLE ${table} ADD FOREIGN KEY (event_id) REFERENCES events(id) NOT VALID`);
    }
  }
}
