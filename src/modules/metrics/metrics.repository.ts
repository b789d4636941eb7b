import type { Queryable } from '../../common/database/unit-of-work.js';

/**
 * The due date of the oldest credit still to expire at `now` (null when none is due): the first entry of the partial
 * index `points_ledger_due` (credits with points left). The expiry backlog gauge reads it at each scrape.
 */
export async function oldestDueCredit(db: Queryable, now: number): Promise<Date | null> {
  const rows = (await db.query(`SELECT min(expires_at) AS oldest FROM points_ledger WHERE remaining > 0 AND expires_at <= $1::timestamptz`, [new Date(now).toISOString()])) as Array<{ oldest: Date | null }>;
  return rows[0]?.oldest ?? null;
}
