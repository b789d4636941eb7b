import type { EntityManager } from 'typeorm';

/** A monthly partition of the event log: `events_YYYY_MM`, holding events that occurred in [from, to) (UTC). */
export interface MonthPartition {
  name: string;
  from: Date;
  to: Date;
}

/** The name of the partition of the UTC month that starts at `from`. */
export function partitionName(from: Date): string {
  return `events_${from.getUTCFullYear()}_${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
}

/**
 * The SQL of the event log's partitions (docs/decisions/0011-partitioned-event-log.md). Every method runs on the
 * maintenance transaction, which holds the maintenance lock: one process changes partitions at a time.
 */
export class EventPartitionsRepository {
  /** The monthly partitions, oldest first (the default partition is not one). */
  async months(em: EntityManager): Promise<MonthPartition[]> {
    const rows: Array<{ name: string; bound: string }> = await em.query(
      `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'events'::regclass AND c.relname ~ '^events_[0-9]{4}_[0-9]{2}$'`,
    );
    return rows
      .map(({ name, bound }) => {
        const [from, to] = [...bound.matchAll(/'([^']+)'/g)].map((m) => new Date(m[1]));
        return { name, from, to };
      })
      .sort((a, b) => a.from.getTime() - b.from.getTime());
  }

  /**
   * Adds the month's partition. Events of that month already stored meanwhile in the default partition (the month
   * was not created in time, or they occurred far ahead) move into it in the same transaction, since PostgreSQL
   * refuses a partition whose rows the default partition holds.
   */
  async addMonth(em: EntityManager, month: MonthPartition): Promise<number> {
    const range = [month.from.toISOString(), month.to.toISOString()];
    await em.query(`CREATE TABLE ${month.name} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    const moved: Array<{ n: number }> = await em.query(
      `WITH moved AS (DELETE FROM events_default WHERE occurred_at >= $1 AND occurred_at < $2 RETURNING *)
       INSERT INTO ${month.name} SELECT * FROM moved RETURNING 1 AS n`,
      range,
    );
    await em.query(`ALTER TABLE events ATTACH PARTITION ${month.name} FOR VALUES FROM ('${range[0]}') TO ('${range[1]}')`);
    return moved.length;
  }

  /**
   * How long the maintenance's DDL may wait for a lock: a drop needs the log to itself for an instant and would make
   * the event path queue behind it while it waits; past the timeout it fails, and the next maintenance tries again.
   */
  async limitLockWaits(em: EntityManager, ms: number): Promise<void> {
    await em.query(`SET LOCAL lock_timeout = ${Math.trunc(ms)}`);
  }

  /** Drops a month's partition: its events leave the log at once, without a DELETE. */
  async dropMonth(em: EntityManager, month: MonthPartition): Promise<void> {
    await em.query(`DROP TABLE ${month.name}`);
  }

  /** Deletes up to `limit` events of the default partition that occurred before `horizon`; answers how many. */
  async deleteOldDefaultRows(em: EntityManager, horizon: Date, limit: number): Promise<number> {
    const rows: unknown[] = await em.query(
      `WITH gone AS (DELETE FROM events_default WHERE ctid IN (SELECT ctid FROM events_default WHERE occurred_at < $1 LIMIT $2) RETURNING 1)
       SELECT 1 FROM gone`,
      [horizon, limit],
    );
    return rows.length;
  }

  /** Forgets up to `limit` idempotency keys of events that occurred before `horizon`; answers how many. */
  async forgetTransactions(em: EntityManager, horizon: Date, limit: number): Promise<number> {
    const rows: unknown[] = await em.query(
      `WITH gone AS (
         DELETE FROM event_transactions WHERE (api_key_id, transaction_id) IN
           (SELECT api_key_id, transaction_id FROM event_transactions WHERE occurred_at < $1 LIMIT $2)
         RETURNING 1)
       SELECT 1 FROM gone`,
      [horizon, limit],
    );
    return rows.length;
  }
}
