import type { Queryable } from '../../../common/database/unit-of-work.js';
import type { TierHistoryEntry } from '../dto/tier-standing.dto.js';

/** A customer's tier history (contract §17), newest first; tiers named as they are now, deleted ones included. */
export async function tierHistoryPage(db: Queryable, customerId: string, page: { limit: number; offset: number }): Promise<{ entries: TierHistoryEntry[]; total: number }> {
  const [rows, count] = (await Promise.all([
    db.query(
      `SELECT h.from_tier_id, f.name AS from_name, h.to_tier_id, t.name AS to_name, h.reason, h.at
         FROM tier_history h LEFT JOIN tiers f ON f.id = h.from_tier_id LEFT JOIN tiers t ON t.id = h.to_tier_id
        WHERE h.customer_id = $1 ORDER BY h.at DESC, h.id DESC LIMIT $2 OFFSET $3`,
      [customerId, page.limit, page.offset],
    ),
    db.query(`SELECT count(*)::int AS total FROM tier_history WHERE customer_id = $1`, [customerId]),
  ])) as [Array<{ from_tier_id: number | null; from_name: string | null; to_tier_id: number | null; to_name: string | null; reason: TierHistoryEntry['reason']; at: Date }>, Array<{ total: number }>];
  const ref = (id: number | null, name: string | null) => (id === null ? null : { id, name: name ?? '' });
  return {
    entries: rows.map((r) => ({ from: ref(r.from_tier_id, r.from_name), to: ref(r.to_tier_id, r.to_name), reason: r.reason, at: r.at.toISOString() })),
    total: count[0].total,
  };
}
