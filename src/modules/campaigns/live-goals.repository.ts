import type { EntityManager } from 'typeorm';

/**
 * The goals of an organization's live campaigns (contract §18), counted in the transaction of the write that would add
 * to them. Every such write first holds the organization's live-goals lock (a transaction-scoped advisory lock), so
 * that two writes at once cannot both pass the limit: the second counts after the first has committed.
 */

/** Holds the organization's live-goals lock until the transaction ends. */
export async function holdLiveGoals(em: EntityManager, organizationId: number): Promise<void> {
  await em.query(`SELECT pg_advisory_xact_lock(hashtext('live-goals'), $1)`, [organizationId]);
}

/** Goals of the behaviors (not deleted) of the organization's live campaigns (not deleted). */
export async function liveGoalCount(em: EntityManager, organizationId: number): Promise<number> {
  const [row]: Array<{ goals: number }> = await em.query(
    `SELECT coalesce(sum(jsonb_array_length(g.value -> 'goals')), 0)::int AS goals
       FROM campaigns c
       JOIN behaviors b ON b.campaign_id = c.id AND b.organization_id = $1 AND b.deleted_at IS NULL
      CROSS JOIN LATERAL jsonb_array_elements(b.goal_groups) g
      WHERE c.organization_id = $1 AND c.deleted_at IS NULL AND c.status = 'live'`,
    [organizationId],
  );
  return row.goals;
}

/** Goals of one campaign's behaviors (not deleted). */
export async function campaignGoalCount(em: EntityManager, organizationId: number, campaignId: number): Promise<number> {
  const [row]: Array<{ goals: number }> = await em.query(
    `SELECT coalesce(sum(jsonb_array_length(g.value -> 'goals')), 0)::int AS goals
       FROM behaviors b CROSS JOIN LATERAL jsonb_array_elements(b.goal_groups) g
      WHERE b.organization_id = $1 AND b.campaign_id = $2 AND b.deleted_at IS NULL`,
    [organizationId, campaignId],
  );
  return row.goals;
}
