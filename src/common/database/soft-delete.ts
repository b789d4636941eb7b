import type { EntityManager } from 'typeorm';

/** The marker a soft-deleted object's name gets: it frees the original name for reuse. */
export function deletedMarker(at: Date): string {
  return ` [DELETED AT ${at.toISOString()}]`;
}

/** The name a soft-deleted object answers with (and keeps). */
export function deletedName(name: string, at: Date): string {
  return `${name}${deletedMarker(at)}`;
}

/**
 * Soft-deletes one live object as of `at` and saves it: its name gets the marker (the name is free again) and
 * deleted_at is set. What lies below it, softDeleteBelow deletes with the same `at`.
 */
export async function softDelete(em: EntityManager, row: { name: string; deletedAt: Date | null }, at: Date): Promise<void> {
  row.name = deletedName(row.name, at);
  row.deletedAt = at;
  await em.save(row);
}

/** What lies below each object that can be deleted with its children, deepest first ($1 is the parent's id). */
const BELOW = {
  campaign: [
    ['creatives', 'creative_group_id IN (SELECT g.id FROM creative_groups g JOIN line_items l ON l.id = g.line_item_id WHERE l.campaign_id = $1)'],
    ['creative_groups', 'line_item_id IN (SELECT id FROM line_items WHERE campaign_id = $1)'],
    ['line_items', 'campaign_id = $1'],
    ['behaviors', 'campaign_id = $1'],
  ],
  line_item: [
    ['creatives', 'creative_group_id IN (SELECT id FROM creative_groups WHERE line_item_id = $1)'],
    ['creative_groups', 'line_item_id = $1'],
  ],
  creative_group: [['creatives', 'creative_group_id = $1']],
} as const;

/** Soft-deletes everything still live below a campaign, line item or creative group, with the same marker and time. */
export async function softDeleteBelow(em: EntityManager, parent: keyof typeof BELOW, id: number, at: Date): Promise<void> {
  for (const [table, where] of BELOW[parent]) {
    await em.query(`UPDATE ${table} SET name = name || $3, deleted_at = $2 WHERE deleted_at IS NULL AND ${where}`, [id, at, deletedMarker(at)]);
  }
}
