/** What runs a query and answers its rows: a TypeORM DataSource, or a pg client adapted. */
export interface Queryable {
  query(text: string, values: unknown[]): Promise<unknown[]>;
}

/** The organizations every e2e test of this spec file checks the ledger of (createTenant adds each; test/support/ledger-setup.ts checks). */
export const ledgerOrganizations = new Set<number>();

/**
 * The ledger's invariant (contract §13), for every customer of these organizations: the sum of its entries is its
 * available_points, and what is left of its expiring credits is never more than that. An erased customer (§21) is no
 * customer any more: its row is a tombstone without balances until the erasure worker has deleted its ledger and it. Answers the customers that
 * break it (none: an empty list), so a failure names them.
 */
export async function ledgerMismatches(db: Queryable, organizationIds: number[]): Promise<unknown[]> {
  return db.query(
    `SELECT c.id, c.available_points, coalesce(l.sum, 0) AS ledger, coalesce(l.expiring, 0) AS expiring
       FROM customers c
       LEFT JOIN LATERAL (SELECT sum(amount) AS sum, sum(remaining) FILTER (WHERE remaining > 0) AS expiring FROM points_ledger WHERE customer_id = c.id) l ON true
      WHERE c.organization_id = ANY($1) AND c.erased_at IS NULL
        AND (c.available_points <> coalesce(l.sum, 0) OR coalesce(l.expiring, 0) > c.available_points OR c.available_points < 0)`,
    [organizationIds],
  );
}
