import { Injectable } from '@nestjs/common';
import type { Queryable } from '../../common/database/unit-of-work.js';

/** Ledger rows one backfill statement reads, and so fills at most. */
export const BACKFILL_BATCH = 5_000;
/**
 * A batch's events are read by one id range per month when they are at least 1 in SPREAD of the ids between their
 * lowest and highest (the usual case: ledger ids and event ids both grow with time), else one by one.
 */
const SPREAD = 10;

/** What one backfill statement did. */
export interface BackfillStep {
  /** The last ledger id read: where the next statement goes on from; null when no row is left after the cursor. */
  lastId: string | null;
  /** Credits read that lacked their occurred_at. */
  needed: number;
  /** Of those, filled: fewer when the event path held some of them locked (they were skipped, not waited for). */
  filled: number;
  /** Of those filled, credits whose event a reversal took back (reversed_at set). */
  reversed: number;
}

/**
 * SQL: whether a ledger row (alias `l`) is a credit, whatever its reason (perform's included): positive, and not of the
 * reasons of the other entries, which keep occurred_at null (they qualify for no tier period).
 */
const CREDIT = `l.amount > 0 AND l.reason NOT IN ('debit', 'expired', 'reversal')`;

/**
 * The backfill of `points_ledger.occurred_at` and `reversed_at` for the rows written before migration 1765500000000
 * (decision 0019, step 3), one statement per batch: the next BACKFILL_BATCH ledger rows by id after the cursor are
 * read, and the credits among them (CREDIT) with occurred_at null are filled:
 * - `occurred_at`: their event's, or the row's created_at when the event has left the log (a month dropped by the
 *   retention) or there is none;
 * - `reversed_at`, when a reversal took their event back: the reversal's time (`event_reversals.created_at`, which is
 *   the reversal entry's created_at too). The ledger's reversal entry names no event; the reversal names the
 *   submission by (api key, transaction id), as its events carry it. A reversed_at set already (a reversal after the
 *   migration) stays.
 * Only rows still null are written, so a statement run again, or after a killed run, changes nothing already done.
 * The rows are locked in id order, skipping those the event path holds (a debit, a reversal, the expiry sweeper):
 * the backfill never waits on the event path, so it can never deadlock with it. Events are read by id alone (their
 * months are what is looked for): by one id range per month when the batch's events are dense, else by each id.
 */
@Injectable()
export class LedgerBackfillRepository {
  /**
   * Where a run starts: just before the first credit still lacking its occurred_at; null when none is left (the
   * partial index points_ledger_occurred_at_missing answers either at once).
   */
  async start(db: Queryable): Promise<string | null> {
    const [row] = (await db.query(`SELECT (min(l.id) - 1)::text AS start FROM points_ledger l WHERE l.occurred_at IS NULL AND ${CREDIT}`)) as Array<{ start: string | null }>;
    return row.start;
  }

  async step(db: Queryable, after: string, size = BACKFILL_BATCH): Promise<BackfillStep> {
    const rows = (await db.query(
      `WITH read AS (
         SELECT max(id) AS last_id FROM (SELECT id FROM points_ledger WHERE id > $1::bigint ORDER BY id LIMIT $2) w
       ), needed AS (
         SELECT count(*) AS n FROM points_ledger l
          WHERE l.id > $1::bigint AND l.id <= (SELECT last_id FROM read) AND l.occurred_at IS NULL AND ${CREDIT}
       ), todo AS MATERIALIZED (
         SELECT l.id, l.event_id, l.created_at FROM points_ledger l
          WHERE l.id > $1::bigint AND l.id <= (SELECT last_id FROM read) AND l.occurred_at IS NULL AND ${CREDIT}
          ORDER BY l.id
            FOR NO KEY UPDATE SKIP LOCKED
       ), bounds AS MATERIALIZED (
         SELECT min(event_id) AS low, max(event_id) AS high, count(DISTINCT event_id) AS events FROM todo
       ), event AS MATERIALIZED (
         SELECT e.id, e.occurred_at, e.api_key_id, e.transaction_id FROM events e
          WHERE e.id BETWEEN (SELECT low FROM bounds) AND (SELECT high FROM bounds)
            AND (SELECT high - low < ${SPREAD} * events FROM bounds)
         UNION ALL
         SELECT e.id, e.occurred_at, e.api_key_id, e.transaction_id FROM events e
          WHERE e.id = ANY(ARRAY(SELECT DISTINCT event_id FROM todo WHERE event_id IS NOT NULL))
            AND (SELECT high - low >= ${SPREAD} * events FROM bounds)
       ), filled AS (
         UPDATE points_ledger l SET occurred_at = coalesce(e.occurred_at, t.created_at), reversed_at = coalesce(l.reversed_at, r.created_at)
           FROM todo t
           LEFT JOIN event e ON e.id = t.event_id
           LEFT JOIN event_reversals r ON r.api_key_id = e.api_key_id AND r.transaction_id = e.transaction_id
          WHERE l.id = t.id AND l.occurred_at IS NULL
         RETURNING r.id IS NOT NULL AS reversed
       )
       SELECT (SELECT last_id FROM read)::text AS last_id, (SELECT n FROM needed)::int AS needed,
              (SELECT count(*) FROM filled)::int AS filled, (SELECT count(*) FROM filled WHERE reversed)::int AS reversed`,
      [after, size],
    )) as Array<{ last_id: string | null; needed: number; filled: number; reversed: number }>;
    const [row] = rows;
    return { lastId: row.last_id, needed: row.needed, filled: row.filled, reversed: row.reversed };
  }
}
