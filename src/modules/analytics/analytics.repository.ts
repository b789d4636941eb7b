import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { StoredGoalGroup } from '../../database/entities/behavior.entity.js';

/** A day's counters of the campaign (behavior 0) or of one behavior, summed over the shards. */
export interface DailyRow {
  day: number;
  behavior_id: number;
  events: number;
  participants: number;
  achievements: number;
  points_credited: number;
  points_reversed: number;
  offers_issued: number;
  notifications: number;
}

/** Bitmaps to count participants in: every customer with a bit of `mask` set in their bitmap of `year` counts for `group`. */
export interface ParticipantMask {
  group: number;
  year: number;
  mask: string;
}

export interface BehaviorRow {
  id: number;
  name: string;
  goal_groups: StoredGoalGroup[];
}

/** The advisory lock of the analytics fold: one fold at a time, the workers' sweep or a read's. */
export const FOLD_LOCK = 7_700_042;
/** campaign_activity rows (one per evaluation, reversal or 1,000 backfilled activities) one fold statement takes. */
export const FOLD_BATCH = 2_000;

/**
 * One batch of the fold (decision 0022): takes up to $1 rows of campaign_activity (visible ones: rows of
 * transactions still running wait for the next fold) and adds them to the read model, in one statement:
 * - each activity's day in its organization's zone (members a row leaves out count 0);
 * - the customers' first days: a (campaign, customer, day) with an event whose bit is not yet set in the customer's
 *   bitmap of that year adds 1 to the day's participants, and sets the bit;
 * - the daily counters of the campaign (behavior 0) and of each behavior;
 * - the customers' achievements by day and behavior (reversals' negative ones included);
 * - the goals customers started or completed;
 * - what evaluations added to experiment groups' sums (§20).
 */
const FOLD = `WITH taken AS (
    DELETE FROM campaign_activity WHERE ctid = ANY(ARRAY(SELECT ctid FROM campaign_activity LIMIT $1)) RETURNING payload
  ), dated AS (
    -- The payload's activity arrays, by position (ACTIVITY_MEMBERS in analytics-steps.ts).
    SELECT (r->>1)::uuid AS customer_id, (r->>2)::int AS campaign_id, (r->>3)::int AS behavior_id,
           (to_timestamp((r->>4)::bigint / 1000.0) AT TIME ZONE o.time_zone)::date AS day, (r->>5)::int AS events, (r->>6)::int AS achievements,
           (r->>7)::bigint AS points_credited, (r->>8)::bigint AS points_reversed, (r->>9)::int AS offers_issued, (r->>10)::int AS notifications
      FROM taken CROSS JOIN json_array_elements(taken.payload->'a') AS r
      JOIN organizations o ON o.id = (r->>0)::int
  ), goals AS (
    INSERT INTO campaign_goal_customers AS g (goal_id, customer_id, completed)
    SELECT x.goal_id, x.customer_id, x.completed
      FROM (SELECT (t->>0)::int AS goal_id, (t->>1)::uuid AS customer_id, bool_or((t->>2)::boolean) AS completed
              FROM taken CROSS JOIN json_array_elements(taken.payload->'g') AS t GROUP BY 1, 2) x
     -- Only news: an upsert that changes nothing still locks and logs its row.
     WHERE coalesce((SELECT g.completed OR NOT x.completed FROM campaign_goal_customers g WHERE g.goal_id = x.goal_id AND g.customer_id = x.customer_id), false) = false
    ON CONFLICT (goal_id, customer_id) DO UPDATE SET completed = true WHERE EXCLUDED.completed AND NOT g.completed
    RETURNING 1
  ), days AS (
    SELECT DISTINCT customer_id, campaign_id, day, extract(year FROM day)::smallint AS year, extract(doy FROM day)::int - 1 AS bit FROM dated WHERE events > 0
  ), first_days AS (
    -- A probe per day (a scalar subquery): a join could scan every customer's bitmaps.
    SELECT d.* FROM days d
     WHERE coalesce((SELECT get_bit(p.days, d.bit) FROM campaign_participants p WHERE p.campaign_id = d.campaign_id AND p.year = d.year AND p.customer_id = d.customer_id), 0) = 0
  ), participants AS (
    INSERT INTO campaign_participants AS p (campaign_id, year, customer_id, days)
    SELECT campaign_id, year, customer_id, bit_or(set_bit(repeat('0', 366)::bit(366), bit, 1)) FROM first_days GROUP BY 1, 2, 3
    ON CONFLICT (campaign_id, year, customer_id) DO UPDATE SET days = p.days | EXCLUDED.days
    RETURNING 1
  ), counted AS (
    INSERT INTO campaign_daily AS d (campaign_id, day, behavior_id, events, participants, achievements, points_credited, points_reversed, offers_issued, notifications)
    SELECT campaign_id, day, behavior_id, sum(events), sum(participants), sum(achievements), sum(points_credited), sum(points_reversed), sum(offers_issued), sum(notifications)
      FROM (SELECT campaign_id, day, 0 AS behavior_id, events, 0 AS participants, achievements, points_credited, points_reversed, offers_issued, notifications FROM dated
            UNION ALL
            SELECT campaign_id, day, behavior_id, 0, 0, achievements, points_credited, points_reversed, offers_issued, notifications FROM dated WHERE behavior_id IS NOT NULL
            UNION ALL
            SELECT campaign_id, day, 0, 0, 1, 0, 0, 0, 0, 0 FROM first_days) x
     GROUP BY 1, 2, 3
    ON CONFLICT (campaign_id, day, behavior_id) DO UPDATE SET events = d.events + EXCLUDED.events, participants = d.participants + EXCLUDED.participants,
       achievements = d.achievements + EXCLUDED.achievements, points_credited = d.points_credited + EXCLUDED.points_credited,
       points_reversed = d.points_reversed + EXCLUDED.points_reversed, offers_issued = d.offers_issued + EXCLUDED.offers_issued,
       notifications = d.notifications + EXCLUDED.notifications
    RETURNING 1
  ), achievers AS (
    INSERT INTO campaign_achievers AS a (campaign_id, day, behavior_id, customer_id, achievements)
    SELECT campaign_id, day, behavior_id, customer_id, sum(achievements) FROM dated WHERE behavior_id IS NOT NULL AND achievements <> 0 GROUP BY 1, 2, 3, 4
    ON CONFLICT (campaign_id, day, behavior_id, customer_id) DO UPDATE SET achievements = a.achievements + EXCLUDED.achievements
    RETURNING 1
  ), experiment_sums AS (
    -- Experiments' group sums (GROUP_MEMBERS in analytics-steps.ts), exact in numeric.
    INSERT INTO experiment_groups AS s (campaign_id, group_name, customers, converted, metric_sum, metric_sum_squares, achievements, points_credited)
    SELECT (x->>0)::int, x->>1, sum((x->>2)::int), sum((x->>3)::int), sum((x->>4)::numeric), sum((x->>5)::numeric), sum((x->>6)::int), sum((x->>7)::bigint)
      FROM taken CROSS JOIN json_array_elements(taken.payload->'x') AS x
     GROUP BY 1, 2
    ON CONFLICT (campaign_id, group_name) DO UPDATE SET customers = s.customers + EXCLUDED.customers, converted = s.converted + EXCLUDED.converted,
       metric_sum = s.metric_sum + EXCLUDED.metric_sum, metric_sum_squares = s.metric_sum_squares + EXCLUDED.metric_sum_squares,
       achievements = s.achievements + EXCLUDED.achievements, points_credited = s.points_credited + EXCLUDED.points_credited
    RETURNING 1
  )
  SELECT count(*)::int AS folded FROM taken`;

/**
 * The read model of campaign analytics (contract §19, migration 1765900000000, decision 0022): the fold of what the
 * event path appends, and the reads: the daily counters, distinct participants from the bitmaps, distinct achievers,
 * the goal funnel.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** One batch of the fold, on a transaction that holds FOLD_LOCK; answers the activity rows folded. */
  async foldBatch(em: EntityManager): Promise<number> {
    const [{ folded }] = (await em.query(FOLD, [FOLD_BATCH])) as Array<{ folded: number }>;
    return folded;
  }

  /**
   * Folds everything appended so far, batch by batch, each in a transaction that waits for FOLD_LOCK (a sweep running
   * finishes first): what a read does before it reads, so that it sees every event processed before it.
   */
  async foldAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const folded = await this.db.transaction(async (em) => {
        await em.query(`SELECT pg_advisory_xact_lock($1)`, [FOLD_LOCK]);
        return this.foldBatch(em);
      });
      total += folded;
      if (folded < FOLD_BATCH) return total;
    }
  }

  async daily(campaignId: number, from: string, to: string): Promise<DailyRow[]> {
    const rows = await this.db.query<Array<Record<keyof DailyRow, string | number>>>(
      `SELECT (day - DATE '1970-01-01') AS day, behavior_id, sum(events) AS events, sum(participants) AS participants, sum(achievements) AS achievements,
              sum(points_credited) AS points_credited, sum(points_reversed) AS points_reversed, sum(offers_issued) AS offers_issued, sum(notifications) AS notifications
         FROM campaign_daily WHERE campaign_id = $1 AND day BETWEEN $2::date AND $3::date
        GROUP BY day, behavior_id`,
      [campaignId, from, to],
    );
    return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)])) as unknown as DailyRow);
  }

  /** Distinct customers per group: those with any day of the group's masks in their bitmaps. */
  async participants(campaignId: number, masks: ParticipantMask[]): Promise<Map<number, number>> {
    const rows = await this.db.query<Array<{ group: number; customers: string }>>(
      `SELECT q.group, count(DISTINCT p.customer_id) AS customers
         FROM json_to_recordset($2::json) AS q("group" int, year smallint, mask text)
         JOIN campaign_participants p ON p.campaign_id = $1 AND p.year = q.year AND (p.days & q.mask::bit(366)) <> repeat('0', 366)::bit(366)
        GROUP BY q.group`,
      [campaignId, JSON.stringify(masks)],
    );
    return new Map(rows.map((r) => [r.group, Number(r.customers)]));
  }

  /** Distinct customers with an achievement not reversed in the range, by behavior, and over all of them (key 0). */
  async achievers(campaignId: number, from: string, to: string): Promise<Map<number, number>> {
    const rows = await this.db.query<Array<{ behavior_id: number | null; customers: string }>>(
      `SELECT behavior_id, count(DISTINCT customer_id) AS customers FROM campaign_achievers
        WHERE campaign_id = $1 AND day BETWEEN $2::date AND $3::date AND achievements > 0
        GROUP BY ROLLUP (behavior_id)`,
      [campaignId, from, to],
    );
    return new Map(rows.map((r) => [r.behavior_id ?? 0, Number(r.customers)]));
  }

  /** Per goal: the customers with progress on it, and those who completed it. */
  async goals(goalIds: number[]): Promise<Map<number, { started: number; completed: number }>> {
    const rows = await this.db.query<Array<{ goal_id: number; started: string; completed: string }>>(
      `SELECT goal_id, count(*) AS started, count(*) FILTER (WHERE completed) AS completed FROM campaign_goal_customers WHERE goal_id = ANY($1::int[]) GROUP BY goal_id`,
      [goalIds],
    );
    return new Map(rows.map((r) => [r.goal_id, { started: Number(r.started), completed: Number(r.completed) }]));
  }

  /** The campaign's behaviors that are not deleted, in creation order, with their goals. */
  behaviors(campaignId: number): Promise<BehaviorRow[]> {
    return this.db.query(`SELECT id, name, goal_groups FROM behaviors WHERE campaign_id = $1 AND deleted_at IS NULL ORDER BY id`, [campaignId]);
  }
}
