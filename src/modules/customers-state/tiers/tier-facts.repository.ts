import { Injectable } from '@nestjs/common';
import type { Queryable, UnitOfWork } from '../../../common/database/unit-of-work.js';
import type { TierFact } from '../../../engine/index.js';

interface TierFactRow {
  customer_id: string;
  at: string;
  points: string | null;
  tier_id: number | null;
}

/** A local month (a timestamp without zone, from date_trunc) as epoch ms of its start in the zone. */
const epochMs = (month: string, zone: string) => `(extract(epoch FROM ${month} AT TIME ZONE ${zone}) * 1000)::bigint`;

/**
 * The qualifying facts of the customers whose id `who` matches (`= $1::uuid`, `= ANY($1::uuid[])`...), all of one
 * organization, whose time zone is `zone` (a parameter): the credits grouped by local month first, so each month's
 * start is converted once, not each credit.
 */
function tierFactsQuery(who: string, zone: string): string {
  return `SELECT f.customer_id, ${epochMs('f.month', zone)} AS at, f.points, NULL::int AS tier_id
         FROM (SELECT l.customer_id, date_trunc('month', l.occurred_at AT TIME ZONE ${zone}) AS month, sum(l.amount)::bigint AS points
                 FROM points_ledger l WHERE l.customer_id ${who} AND l.occurred_at IS NOT NULL AND l.reversed_at IS NULL
                GROUP BY 1, 2) f
       UNION ALL
       SELECT t.customer_id, ${epochMs(`date_trunc('month', t.occurred_at AT TIME ZONE ${zone})`, zone)}, NULL, t.tier_id
         FROM customer_tier_outcomes t WHERE t.customer_id ${who}`;
}

function tierFact(row: TierFactRow): TierFact {
  return row.tier_id === null ? { at: Number(row.at), points: Number(row.points) } : { at: Number(row.at), tierId: row.tier_id };
}

/**
 * What a customer's tier qualifies on under a period policy (contract §17), read from what the event path writes:
 * credits not reversed (`points_ledger.occurred_at`, `reversed_at`), summed per month of the organization's zone and
 * placed at its start, and tier outcomes (`customer_tier_outcomes`) at the start of their month. The tier standing is
 * the same as from each credit at its time (tier-standing.spec.ts shows it): a month is the finest period.
 * Evaluations, tier reviews, reversals and reads of a standing all read them here.
 */
@Injectable()
export class TierFacts {
  /** The facts of these customers of one organization (its time zone), by customer (an empty list for one without any). */
  async of(db: Queryable, customerIds: string[], timeZone: string): Promise<Map<string, TierFact[]>> {
    const byCustomer = new Map<string, TierFact[]>(customerIds.map((id) => [id, []]));
    if (customerIds.length === 0) return byCustomer;
    const rows = (await db.query(tierFactsQuery(`= ANY($1::uuid[])`, '$2::text'), [customerIds, timeZone])) as TierFactRow[];
    for (const row of rows) byCustomer.get(row.customer_id)?.push(tierFact(row));
    return byCustomer;
  }

  /**
   * The facts of the customer an id or an external id of the organization names, in one prepared statement on `uow`
   * (asked for with the event path's locking read of the customer, it runs once the lock is held). By id, the
   * organization is not checked here: the caller's read of the customer does.
   */
  async ofCustomer(uow: UnitOfWork, organizationId: number, key: { userId: string } | { externalId: string }, timeZone: string): Promise<TierFact[]> {
    const rows = await uow.run<TierFactRow>(
      'userId' in key
        ? { name: 'tier-facts-by-id', text: tierFactsQuery(`= $1::uuid`, '$2::text'), values: [key.userId, timeZone] }
        : {
            name: 'tier-facts-by-external-id',
            text: tierFactsQuery(`= (SELECT id FROM customers WHERE organization_id = $1 AND external_id = $2)`, '$3::text'),
            values: [organizationId, key.externalId, timeZone],
          },
    );
    return rows.map(tierFact);
  }
}
