import { Injectable } from '@nestjs/common';
import type { Queryable } from '../../common/database/unit-of-work.js';

/** Events one backfill statement reads. */
export const ANALYTICS_BACKFILL_BATCH = 5_000;

/** What one backfill statement did. */
export interface AnalyticsBackfillStep {
  /** Events read (every status); fewer than the batch: the walk is done. */
  read: number;
  /** Of those, events counted: processed (or stored) before the migration, with their customer. */
  counted: number;
  /** Whether the walk is done (analytics_backfill.done_at set). */
  done: boolean;
}

/**
 * The backfill of campaign analytics for the events processed before migration 1765900000000 (decision 0022): the
 * events up to the last id that existed then (`analytics_backfill.until_id`), walked by id from its cursor, one
 * statement per batch that appends what they did to campaign_activity (one json row, folded like the event path's)
 * and moves the cursor, in one transaction: a run killed at any point has appended each batch once or not at all.
 * Counted are events processed (or stored) before the migration (`processed_before`), by what was stored of them:
 * - `events` and `participants`: the campaigns that existed with a behavior's goal listening to the event's name, not a
 *   draft, between their start and end at the event's processing (the one the event names, for a V1 event scoped to a
 *   campaign). Targeting and divisions at the time were not stored: a campaign that did not target the customer is
 *   counted as if it did;
 * - `achievements`: the completions its stored result names; `points_credited`: its ledger credits; `offers_issued`,
 *   `notifications`: its offers and notifications;
 * - a reversal made before the migration: its completions back, its credits as reversed (later ones write their own).
 * Goals' funnels are not backfilled (progress keeps no history of goals started).
 */
@Injectable()
export class AnalyticsBackfillRepository {
  async step(db: Queryable, size = ANALYTICS_BACKFILL_BATCH): Promise<AnalyticsBackfillStep> {
    const [row] = (await db.query(
      `WITH state AS MATERIALIZED (
         SELECT processed_before, until_id, after_id FROM analytics_backfill WHERE done_at IS NULL FOR UPDATE
       ), batch AS MATERIALIZED (
         SELECT e.id, e.organization_id, e.customer_id, e.api_key_id, e.transaction_id, e.campaign_id, e.name, e.occurred_at, e.processed_at, e.status, e.result
           -- The cursor as values (InitPlans), not a join: each partition's index scan starts at it, where a join
           -- filter reads every id before it again, batch after batch.
           FROM events e WHERE e.id > (SELECT after_id FROM state) AND e.id <= (SELECT until_id FROM state) ORDER BY e.id LIMIT $1
       ), counted AS MATERIALIZED (
         SELECT b.* FROM batch b, state s
          WHERE b.status IN ('processed', 'stored') AND b.processed_at < s.processed_before AND b.customer_id IS NOT NULL
       ), listeners AS MATERIALIZED (
         SELECT DISTINCT c.id AS campaign_id, c.organization_id, c.starts_at, c.ends_at, coalesce(goal->>'internal_event_name', goal->>'name') AS event_name
           FROM campaigns c
           JOIN behaviors bh ON bh.campaign_id = c.id AND bh.deleted_at IS NULL
          CROSS JOIN jsonb_array_elements(bh.goal_groups) g
          CROSS JOIN jsonb_array_elements(g->'goals') goal
          WHERE c.organization_id IN (SELECT DISTINCT organization_id FROM counted) AND c.deleted_at IS NULL AND c.status <> 'draft'
       ), reversed AS MATERIALIZED (
         SELECT b.id FROM counted b, state s
          WHERE b.transaction_id IS NOT NULL
            AND EXISTS (SELECT 1 FROM event_reversals r WHERE r.api_key_id = b.api_key_id AND r.transaction_id = b.transaction_id AND r.created_at < s.processed_before)
       ), credits AS MATERIALIZED (
         SELECT l.event_id, (l.source->>'campaign_id')::int AS campaign_id, (l.source->>'behavior_id')::int AS behavior_id, l.amount
           FROM points_ledger l
          WHERE l.event_id = ANY(ARRAY(SELECT id FROM counted)) AND l.amount > 0 AND l.reason NOT IN ('debit', 'expired', 'reversal') AND l.source ? 'campaign_id'
       ), activity AS (
         SELECT b.organization_id, b.customer_id, l.campaign_id, NULL::int AS behavior_id, b.occurred_at AS at, 1 AS events, 0 AS achievements,
                0::bigint AS points_credited, 0::bigint AS points_reversed, 0 AS offers_issued, 0 AS notifications
           FROM counted b
           JOIN listeners l ON l.organization_id = b.organization_id AND l.event_name = b.name AND b.processed_at BETWEEN l.starts_at AND l.ends_at
                           AND (b.campaign_id IS NULL OR b.campaign_id = l.campaign_id)
         UNION ALL
         SELECT b.organization_id, b.customer_id, (c->>'campaign_id')::int, (c->>'behavior_id')::int, b.occurred_at, 0,
                CASE WHEN b.id IN (SELECT id FROM reversed) THEN 0 ELSE 1 END, 0, 0, 0, 0
           FROM counted b CROSS JOIN jsonb_array_elements(coalesce(b.result->'completions', '[]'::jsonb)) c
         UNION ALL
         SELECT b.organization_id, b.customer_id, x.campaign_id, x.behavior_id, b.occurred_at, 0, 0, x.amount,
                CASE WHEN b.id IN (SELECT id FROM reversed) THEN x.amount ELSE 0 END, 0, 0
           FROM credits x JOIN counted b ON b.id = x.event_id
         UNION ALL
         SELECT b.organization_id, b.customer_id, o.campaign_id, o.behavior_id, b.occurred_at, 0, 0, 0, 0, 1, 0
           FROM customer_offers o JOIN counted b ON b.id = o.event_id
          WHERE o.customer_id = ANY(ARRAY(SELECT DISTINCT customer_id FROM counted))
         UNION ALL
         SELECT b.organization_id, b.customer_id, n.campaign_id, n.behavior_id, b.occurred_at, 0, 0, 0, 0, 0, 1
           FROM notifications n JOIN counted b ON b.id = n.event_id
          WHERE n.event_id = ANY(ARRAY(SELECT id FROM counted))
       ), appended AS (
         -- The payload's arrays in ACTIVITY_MEMBERS' order (analytics-steps.ts), 1,000 to a row: the fold takes rows by batches.
         INSERT INTO campaign_activity (payload)
         SELECT json_build_object('a', json_agg(json_build_array(organization_id, customer_id, campaign_id, behavior_id, (extract(epoch FROM at) * 1000)::bigint,
                  events, achievements, points_credited, points_reversed, offers_issued, notifications)), 'g', '[]'::json)
           FROM (SELECT a.*, (row_number() OVER () - 1) / 1000 AS chunk FROM activity a) a GROUP BY chunk
       ), moved AS (
         UPDATE analytics_backfill SET after_id = coalesce((SELECT max(id) FROM batch), (SELECT until_id FROM state)),
                done_at = CASE WHEN (SELECT count(*) FROM batch) < $1 THEN now() END
          WHERE done_at IS NULL
         RETURNING done_at IS NOT NULL AS done
       )
       SELECT (SELECT count(*) FROM batch)::int AS read, (SELECT count(*) FROM counted)::int AS counted, coalesce((SELECT done FROM moved), true) AS done`,
      [size],
    )) as AnalyticsBackfillStep[];
    return row;
  }
}
