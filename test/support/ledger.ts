import type { DataSource } from 'typeorm';

/**
 * The ledger's invariant (contract §13), for every customer of these organizations: the sum of its entries is its
 * available_points, and what is left of its expiring credits is never more than that. Answers the customers that
 * break it (none: an empty list), so a failure names them.
 */
export async function ledgerMismatches(db: DataSource, organizationIds: number[]): Promise<Array<{ id: string; available_points: string; ledger: string; expiring: string }>> {
  return db.query(
    `SELECT c.id, c.available_points, coalesce(l.sum, 0) AS ledger, coalesce(l.expiring, 0) AS expiring
       FROM customers c
       LEFT JOIN (SELECT customer_id, sum(amount) AS sum, sum(remaining) FILTER (WHERE remaining > 0) AS expiring FROM points_ledger GROUP BY customer_id) l
              ON l.customer_id = c.id
      WHERE c.organization_id = ANY($1)
        AND (c.available_points <> coalesce(l.sum, 0) OR coalesce(l.expiring, 0) > c.available_points OR c.available_points < 0)`,
    [organizationIds],
  );
}
