import type { Queryable } from '../../../common/database/unit-of-work.js';
import type { TierFact } from '../../../engine/index.js';

/**
 * What a customer's tier qualifies on under a period policy (contract §17), read from what the event path writes:
 * credits not reversed (`points_ledger.occurred_at`, `reversed_at`), summed per month of the organization's zone and
 * placed at its start, and tier outcomes (`customer_tier_outcomes`) at the start of their month. The tier standing is
 * the same as from each credit at its time (tier-standing.spec.ts shows it): a month is the finest period.
 */
export interface TierFactRow {
  customer_id: string;
  at: string;
  points: string | null;
  tier_id: number | null;
}

/** The month of the organization's zone an instant falls in, as epoch ms of its start. */
const monthStart = (column: string) => `(extract(epoch FROM date_trunc('month', ${column} AT TIME ZONE o.time_zone) AT TIME ZONE o.time_zone) * 1000)::bigint`;

/** The qualifying facts of the customers `which` selects (a condition on `customers c`). */
export function tierFactsQuery(which: string): string {
  return `SELECT l.customer_id, ${monthStart('l.occurred_at')} AS at, sum(l.amount)::bigint AS points, NULL::int AS tier_id
         FROM customers c JOIN organizations o ON o.id = c.organization_id JOIN points_ledger l ON l.customer_id = c.id
        WHERE ${which} AND l.occurred_at IS NOT NULL AND l.reversed_at IS NULL
        GROUP BY l.customer_id, 2
       UNION ALL
       SELECT t.customer_id, ${monthStart('t.occurred_at')}, NULL, t.tier_id
         FROM customers c JOIN organizations o ON o.id = c.organization_id JOIN customer_tier_outcomes t ON t.customer_id = c.id
        WHERE ${which}`;
}

export function tierFact(row: TierFactRow): TierFact {
  return row.tier_id === null ? { at: Number(row.at), points: Number(row.points) } : { at: Number(row.at), tierId: row.tier_id };
}

/** The facts of these customers, by customer (an empty list for one without any). */
export async function tierFactsOf(db: Queryable, customerIds: string[]): Promise<Map<string, TierFact[]>> {
  const byCustomer = new Map<string, TierFact[]>(customerIds.map((id) => [id, []]));
  if (customerIds.length === 0) return byCustomer;
  const rows = (await db.query(tierFactsQuery(`c.id = ANY($1::uuid[])`), [customerIds])) as TierFactRow[];
  for (const row of rows) byCustomer.get(row.customer_id)?.push(tierFact(row));
  return byCustomer;
}
