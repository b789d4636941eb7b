import { Injectable } from '@nestjs/common';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { submissionStatement, type SubmissionEvent } from '../events/index.js';
import type { BehaviorProgress } from '../../engine/index.js';
import { consumeSoonestFirst, deliveries, type BalanceRow } from './points.repository.js';

export interface Reversal {
  organizationId: number;
  apiKeyId: number;
  transactionId: string;
  description: string | null;
  customerId: string;
  externalId: string;
  eventIds: string[];
  /** Points the submission credited: lifetime_points goes down by them. */
  credited: number;
  /** Of those, what is taken from available_points (at most what is available). */
  taken: number;
  achievements: number;
  /** Progress of the behaviors whose completions were undone. */
  progress: Array<{ behavior_id: number; state: BehaviorProgress; achieved: number }>;
  /** Completions and credited points given back to each campaign's budget (campaigns without one are left alone). */
  budgets: Array<{ campaign_id: number; completions: number; points: number }>;
  webhookId: string;
  now: string;
  /** Under a period tier policy the customer's tier is reviewed now (the reversed credits qualify no more, §17). */
  reviewTier: boolean;
}

export interface ReversedRow extends BalanceRow {
  id: string;
  delivery_ids: string[] | null;
}

/**
 * The statements of a reversal (contract §13), run on the transaction that holds the customer locked: the
 * submission's events (submissionStatement), whether it was reversed already, what it credited, and the reversal
 * itself in one statement.
 */
@Injectable()
export class ReversalRepository {
  submission(uow: UnitOfWork, apiKeyId: number, transactionId: string): Promise<SubmissionEvent[]> {
    return uow.run<SubmissionEvent>(submissionStatement(apiKeyId, transactionId));
  }

  async reversed(uow: UnitOfWork, apiKeyId: number, transactionId: string): Promise<boolean> {
    const rows = await uow.run({ name: 'reversal-exists', text: `SELECT 1 FROM event_reversals WHERE api_key_id = $1 AND transaction_id = $2`, values: [apiKeyId, transactionId] });
    return rows.length > 0;
  }

  /** The points these events credited, by campaign (their ledger credits, found by the ledger's event index). */
  async credited(uow: UnitOfWork, eventIds: string[]): Promise<Map<number, number>> {
    const rows = await uow.run<{ campaign_id: number | null; points: string }>({
      name: 'reversal-credited',
      text: `SELECT (source->>'campaign_id')::int AS campaign_id, sum(amount) AS points FROM points_ledger
              WHERE event_id = ANY($1::bigint[]) AND amount > 0 GROUP BY 1`,
      values: [eventIds],
    });
    return new Map(rows.map((r) => [r.campaign_id ?? 0, Number(r.points)]));
  }

  /**
   * Campaign analytics (§19) of a reversal, appended to campaign_activity at the time of each reversed event (the
   * analytics fold puts it on that day): its campaigns' achievements less the completions undone, and the points its
   * credits gave counted as reversed (by the campaign and its behavior).
   */
  async reverseAnalytics(uow: UnitOfWork, organizationId: number, customerId: string, eventIds: string[], undone: Array<{ campaign_id: number; behavior_id: number; at: number }>): Promise<void> {
    await uow.run({
      name: 'reversal-analytics',
      // The payload's arrays in ACTIVITY_MEMBERS' order (analytics-steps.ts).
      text: `WITH r AS (
             SELECT t.campaign_id, t.behavior_id, t.at_ms, -1 AS achievements, 0::bigint AS points_reversed
               FROM json_to_recordset($3::json) AS t(campaign_id int, behavior_id int, at_ms bigint)
             UNION ALL
             SELECT (source->>'campaign_id')::int, (source->>'behavior_id')::int, (extract(epoch FROM occurred_at) * 1000)::bigint, 0, amount::bigint
               FROM points_ledger WHERE event_id = ANY($4::bigint[]) AND amount > 0 AND source ? 'campaign_id'
           )
         INSERT INTO campaign_activity (payload)
         SELECT json_build_object(
                  'a', (SELECT json_agg(json_build_array($1::int, $2::uuid, r.campaign_id, r.behavior_id, r.at_ms, 0, r.achievements, 0, r.points_reversed, 0, 0)) FROM r),
                  'g', '[]'::json,
                  -- The customer's experiment groups of running experiments lose them too (GROUP_MEMBERS, §20).
                  'x', (SELECT coalesce(json_agg(json_build_array(x.campaign_id, x.group_name, 0, 0, 0, 0, x.achievements, -x.points)), '[]'::json)
                          FROM (SELECT r.campaign_id, a.group_name, sum(r.achievements) AS achievements, sum(r.points_reversed) AS points
                                  FROM r JOIN experiment_assignments a ON a.customer_id = $2::uuid AND a.campaign_id = r.campaign_id
                                  JOIN campaigns c ON c.id = r.campaign_id AND c.experiment_ended_at IS NULL
                                 GROUP BY 1, 2) x))
          WHERE EXISTS (SELECT 1 FROM r)`,
      values: [organizationId, customerId, JSON.stringify(undone.map((u) => ({ campaign_id: u.campaign_id, behavior_id: u.behavior_id, at_ms: u.at }))), eventIds],
    });
  }

  /**
   * Takes the submission's points back and undoes its completions, in one statement: its credits have nothing left
   * to expire and are marked reversed (they qualify for no tier, §17); one `reversal` entry of what is taken; if the customer's other expiring credits now hold more than
   * the balance, the excess is consumed soonest-expiring first (what is left to expire never exceeds the balance);
   * the balances, the progress rows, the campaign budgets given back, the `event_reversals` row, and a
   * `points.reversed` delivery per subscribed webhook.
   */
  async reverse(uow: UnitOfWork, r: Reversal): Promise<ReversedRow> {
    const available = '(SELECT available_points FROM customers WHERE id = $2) - $4';
    const notReversed = 'coalesce(event_id <> ALL($3::bigint[]), true)';
    const [row] = await uow.run<ReversedRow>({
      name: 'reversal',
      text: `WITH spent AS (
           UPDATE points_ledger SET remaining = CASE WHEN remaining > 0 THEN 0 ELSE remaining END, reversed_at = $8::timestamptz
            WHERE event_id = ANY($3::bigint[]) AND amount > 0 RETURNING 1
         ), ${consumeSoonestFirst('$2', `(SELECT GREATEST(0, sum(remaining) - (${available})) FROM spendable)`, notReversed)},
         entry AS (
           INSERT INTO points_ledger (organization_id, customer_id, amount, reason, source, created_at)
           SELECT $1, $2, -$4::int, 'reversal', jsonb_build_object('transaction_id', $6::text, 'description', $7::text), $8::timestamptz WHERE $4 > 0
           RETURNING 1
         ), customer AS (
           UPDATE customers SET available_points = available_points - $4, lifetime_points = GREATEST(0, lifetime_points - $5), updated_at = now(),
                  tier_review_at = CASE WHEN $16 THEN $8::timestamptz ELSE tier_review_at END
            WHERE id = $2
           RETURNING available_points, lifetime_points, tier_id
         ), progress AS (
           UPDATE customer_progress p SET state = t.state, achieved = t.achieved, updated_at = now()
             FROM json_to_recordset($9::json) AS t(behavior_id int, state jsonb, achieved int)
            WHERE p.customer_id = $2 AND p.behavior_id = t.behavior_id
           RETURNING 1
         ), budgets_returned AS (
           UPDATE campaigns c SET budget_completions = GREATEST(0, c.budget_completions - t.completions), budget_points = GREATEST(0, c.budget_points - t.points)
             FROM json_to_recordset($15::json) AS t(campaign_id int, completions int, points int)
            WHERE c.id = t.campaign_id AND (c.budget_max_completions IS NOT NULL OR c.budget_max_points IS NOT NULL)
           RETURNING 1
         ), reversal AS (
           INSERT INTO event_reversals (organization_id, api_key_id, transaction_id, customer_id, events, points, achievements, reason, created_at)
           VALUES ($1, $10, $6, $2, $11, $4, $12, $7, $8::timestamptz)
           RETURNING id
         ), delivered AS (${deliveries(
           '$1',
           `'points.reversed'`,
           `jsonb_build_object('id', $13::text, 'type', 'points.reversed', 'created_at', $8::text, 'data', jsonb_build_object('user_id', $2::uuid,
              'external_id', $14::text, 'points', $4::int, 'reason', 'reversal', 'transaction_id', $6::text, 'description', $7::text,
              'achievements', $12::int, 'created_at', $8::text, 'available_points', (SELECT available_points FROM customer),
              'lifetime_points', (SELECT lifetime_points FROM customer)))`,
         )})
         SELECT r.id, c.available_points, c.lifetime_points, t.name AS tier, (SELECT array_agg(id ORDER BY id) FROM delivered) AS delivery_ids
           FROM reversal r, customer c LEFT JOIN tiers t ON t.id = c.tier_id`,
      values: [
        r.organizationId,
        r.customerId,
        r.eventIds,
        r.taken,
        r.credited,
        r.transactionId,
        r.description,
        r.now,
        JSON.stringify(r.progress),
        r.apiKeyId,
        r.eventIds.length,
        r.achievements,
        r.webhookId,
        r.externalId,
        JSON.stringify(r.budgets),
        r.reviewTier,
      ],
    });
    return row;
  }
}
