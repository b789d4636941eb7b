import type { EntityManager } from 'typeorm';

/**
 * Whether `id` is a live division of the organization, holding its row (FOR KEY SHARE) to the end of the transaction
 * that places a customer or campaign in it. A concurrent delete (which locks the row FOR UPDATE, then checks that
 * nothing uses it) either committed first, and the row no longer matches here, or waits for this transaction and
 * then finds the new use and refuses. Without the hold, a placement checked before the delete committed could land
 * in a deleted division.
 */
export async function holdLiveDivision(em: EntityManager, organizationId: number, id: number): Promise<boolean> {
  const rows: unknown[] = await em.query(
    `SELECT 1 FROM divisions WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL FOR KEY SHARE`,
    [id, organizationId],
  );
  return rows.length > 0;
}
