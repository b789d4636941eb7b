import type { Queryable } from '../../common/database/unit-of-work.js';

/**
 * The due date of the oldest credit still to expire at `now` (null when none is due): the first entry of the partial
 * index `points_ledger_due` (credits with points left). The expiry backlog gauge reads it at each scrape.
 */
export async function oldestDueCredit(db: Queryable, now: number): Promise<Date | null> {
  const rows = (await db.query(`SELECT min(expires_at) AS oldest FROM points_ledger WHERE remaining > 0 AND expires_at <= $1::timestamptz`, [new Date(now).toISOString()])) as Array<{ oldest: Date | null }>;
  return rows[0]?.oldest ?? null;
}

/** Reward effects counted at most this many per status at each scrape: the count is read from an index, never the table. */
export const EFFECTS_COUNTED = 10_000;

/** What the reward effects' gauges show: effects open and dead (each up to EFFECTS_COUNTED), and the oldest open one's last change. */
export interface EffectsBacklog {
  open: number;
  dead: number;
  oldestOpen: Date | null;
}

/**
 * The reward effects still to run (pending or retrying) and dead, each counted up to EFFECTS_COUNTED from its partial
 * index (`reward_effects_open`, `reward_effects_dead`), and when the oldest open one last changed (created, or its last
 * attempt recorded): the first entry of `reward_effects_open`.
 */
export async function rewardEffectsBacklog(db: Queryable): Promise<EffectsBacklog> {
  const rows = (await db.query(
    `SELECT (SELECT count(*) FROM (SELECT 1 FROM reward_effects WHERE status IN ('pending', 'retrying') LIMIT $1) o)::int AS open,
            (SELECT count(*) FROM (SELECT 1 FROM reward_effects WHERE status = 'dead' LIMIT $1) d)::int AS dead,
            (SELECT min(updated_at) FROM reward_effects WHERE status IN ('pending', 'retrying')) AS oldest_open`,
    [EFFECTS_COUNTED],
  )) as Array<{ open: number; dead: number; oldest_open: Date | null }>;
  return { open: rows[0].open, dead: rows[0].dead, oldestOpen: rows[0].oldest_open };
}
