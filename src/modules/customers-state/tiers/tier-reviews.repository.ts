import { Injectable } from '@nestjs/common';
import type { Queryable, UnitOfWork } from '../../../common/database/unit-of-work.js';
import type { TierFact } from '../../../engine/index.js';
import { TierFacts } from './tier-facts.repository.js';

/** A customer whose tier review is due, locked for the review (what the standing is computed from). */
export interface DueCustomer {
  id: string;
  organizationId: number;
  externalId: string;
  tierId: number | null;
  tierFloorId: number | null;
  lifetimePoints: number;
  facts: TierFact[];
}

/** What a review writes for one customer: the tier (when it moved), the next review, the move and its webhook. */
export interface ReviewedCustomer {
  id: string;
  tier_id: number | null;
  tier_review_at: string | null;
  /** Null when the tier stays. */
  move: { from_tier_id: number | null; from_name: string | null; to_tier_id: number | null; to_name: string | null; direction: 'up' | 'down'; reason: string; at: string } | null;
}

/**
 * The statements of the tier review sweeper (contract §17): due customers locked (those an evaluation holds are
 * skipped: the next batch takes them), their facts, and one write of the batch's tiers, history and `tier.changed`
 * deliveries. A review's history row is unique per customer and time, so a review applied twice writes once, and
 * sends its webhook once.
 */
@Injectable()
export class TierReviewsRepository {
  constructor(private readonly facts: TierFacts) {}

  /**
   * Up to `limit` customers whose review is due at `now`, soonest first (in the order of the index customers_tier_review:
   * a tie-break on another column would sort every due customer at each batch), locked until the transaction ends.
   */
  async lockDue(uow: UnitOfWork, now: string, limit: number): Promise<DueCustomer[]> {
    const rows = await uow.run<{ id: string; organization_id: number; external_id: string; tier_id: number | null; tier_floor_id: number | null; lifetime_points: string; time_zone: string }>({
      name: 'tier-reviews-due',
      text: `SELECT c.id, c.organization_id, c.external_id, c.tier_id, c.tier_floor_id, c.lifetime_points, o.time_zone
         FROM customers c JOIN organizations o ON o.id = c.organization_id
        WHERE c.tier_review_at <= $1::timestamptz ORDER BY c.tier_review_at LIMIT $2 FOR NO KEY UPDATE OF c SKIP LOCKED`,
      values: [now, limit],
    });
    // The facts of each time zone's customers (their months are those of their organization's zone).
    const facts = new Map<string, TierFact[]>();
    for (const zone of new Set(rows.map((r) => r.time_zone))) {
      for (const [id, list] of await this.facts.of(uow, rows.filter((r) => r.time_zone === zone).map((r) => r.id), zone)) facts.set(id, list);
    }
    return rows.map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      externalId: r.external_id,
      tierId: r.tier_id,
      tierFloorId: r.tier_floor_id,
      lifetimePoints: Number(r.lifetime_points),
      facts: facts.get(r.id) ?? [],
    }));
  }

  /** Writes the reviews; answers the deliveries written (to queue once committed). */
  async write(uow: UnitOfWork, reviewed: ReviewedCustomer[], createdAt: string): Promise<{ moved: number; deliveryIds: string[] }> {
    const [row] = await uow.run<{ moved: string; delivery_ids: string[] | null }>({
      name: 'tier-reviews-write',
      text: `WITH t AS (
           SELECT * FROM json_to_recordset($1::json) AS t(id uuid, tier_id int, tier_review_at timestamptz, move jsonb)
         ), customers_written AS (
           UPDATE customers c SET tier_id = t.tier_id, tier_review_at = t.tier_review_at, updated_at = CASE WHEN t.move IS NULL THEN c.updated_at ELSE now() END
             FROM t WHERE c.id = ANY($3::uuid[]) AND c.id = t.id
           RETURNING c.id, c.organization_id, c.external_id, c.lifetime_points
         ), history AS (
           INSERT INTO tier_history (customer_id, from_tier_id, to_tier_id, reason, at)
           SELECT t.id, (t.move->>'from_tier_id')::int, (t.move->>'to_tier_id')::int, t.move->>'reason', (t.move->>'at')::timestamptz
             FROM t WHERE t.move IS NOT NULL
           ON CONFLICT DO NOTHING
           RETURNING customer_id
         ), delivered AS (
           INSERT INTO webhook_deliveries (organization_id, webhook_id, type, payload)
           SELECT w.organization_id, w.id, 'tier.changed',
                  jsonb_build_object('id', gen_random_uuid(), 'type', 'tier.changed', 'created_at', $2::text, 'data', jsonb_build_object(
                    'user_id', c.id, 'external_id', c.external_id,
                    'from_tier', CASE WHEN t.move->>'from_tier_id' IS NULL THEN NULL ELSE jsonb_build_object('id', (t.move->>'from_tier_id')::int, 'name', t.move->>'from_name') END,
                    'to_tier', CASE WHEN t.move->>'to_tier_id' IS NULL THEN NULL ELSE jsonb_build_object('id', (t.move->>'to_tier_id')::int, 'name', t.move->>'to_name') END,
                    'direction', t.move->>'direction', 'reason', t.move->>'reason', 'lifetime_points', c.lifetime_points))
             FROM history h JOIN t ON t.id = h.customer_id JOIN customers_written c ON c.id = h.customer_id
             JOIN webhooks w ON w.organization_id = c.organization_id AND w.deleted_at IS NULL AND 'tier.changed' = ANY(w.event_types)
            ORDER BY h.customer_id, w.id
           RETURNING id
         )
         SELECT (SELECT count(*) FROM history) AS moved, (SELECT array_agg(id ORDER BY id) FROM delivered) AS delivery_ids`,
      // The id list makes the update an index lookup per customer, not a scan of customers joined to the batch.
      values: [JSON.stringify(reviewed), createdAt, reviewed.map((r) => r.id)],
    });
    return { moved: Number(row.moved), deliveryIds: (row.delivery_ids ?? []).map(String) };
  }

  /**
   * A tier policy change (§17): every customer of the organization keeps the tier they have as their floor, and the
   * tiered ones are reviewed at `review` (the first review after the change; null under lifetime: none).
   */
  async keepTiersUntil(db: Queryable, organizationId: number, review: Date | null): Promise<void> {
    await db.query(
      `UPDATE customers SET tier_floor_id = tier_id, tier_review_at = CASE WHEN tier_id IS NULL THEN NULL ELSE $2::timestamptz END
        WHERE organization_id = $1 AND (tier_id IS NOT NULL OR tier_floor_id IS NOT NULL OR tier_review_at IS NOT NULL)`,
      [organizationId, review],
    );
  }
}
