import type { DataSource } from 'typeorm';
import type { RejectedEventView } from './dto/rejected-events.dto.js';

interface RejectedRow {
  id: string;
  name: string;
  user_ref: string | null;
  reason: string | null;
  source: string;
  transaction_id: string | null;
  occurred_at: Date;
  created_at: Date;
  total: string;
}

/**
 * Events the workers rejected (status `rejected`: today only `customer_not_found`, a V2 or V1 async event naming a
 * customer that does not exist), newest first; of one organization, or of all of them (the CLI without --org).
 * Read through the partial index `events_rejected`.
 */
export async function listRejectedEvents(
  db: DataSource,
  organizationId: number | null,
  take: number,
  skip: number,
): Promise<{ events: RejectedEventView[]; total: number }> {
  const rows: RejectedRow[] = await db.query(
    `SELECT id, name, user_ref, reason, source, transaction_id, occurred_at, created_at, count(*) OVER () AS total
       FROM events
      WHERE status = 'rejected' AND ($1::int IS NULL OR organization_id = $1)
      ORDER BY created_at DESC, id DESC
      LIMIT $2 OFFSET $3`,
    [organizationId, take, skip],
  );
  const total = rows.length
    ? Number(rows[0].total)
    : Number(
        (await db.query(`SELECT count(*) AS n FROM events WHERE status = 'rejected' AND ($1::int IS NULL OR organization_id = $1)`, [organizationId]))[0].n,
      );
  return {
    events: rows.map((r) => ({
      id: r.id,
      name: r.name,
      user_ref: r.user_ref,
      reason: r.reason ?? '',
      source: r.source,
      transaction_id: r.transaction_id,
      occurred_at: r.occurred_at.toISOString(),
      created_at: r.created_at.toISOString(),
    })),
    total,
  };
}
