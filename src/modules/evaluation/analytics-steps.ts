import type { Step } from './write-statement.js';
import type { WritePlan } from './write-plan.js';

/** Shards of a campaign's daily counters: two customers of one campaign update the same row one time in SHARDS. */
export const SHARDS = 32;

const counters = ['events', 'participants', 'achievements', 'points_credited', 'offers_issued', 'notifications'] as const;

/**
 * The evaluation's write of campaign analytics (contract §19, decision 0022), as steps of its one statement:
 * - the activity rows with their day in the organization's zone and the customer's shard;
 * - the customer's bitmap of active days per campaign and year: read as it was before the statement (the customer is
 *   locked, so no other write of theirs runs between), it tells which days are the customer's first of that day;
 * - the campaign's daily counters (the campaign as a whole, behavior 0, and each behavior), added to in key order so
 *   that two writes lock shared rows in the same order;
 * - the customer's achievements per day and behavior, and the goals that took progress.
 */
export function analyticsSteps(analytics: WritePlan['analytics']): Step[] {
  return [
    {
      name: 'analytics_activity',
      sql: (p) => `SELECT t.customer_id, t.campaign_id, t.behavior_id, (t.at AT TIME ZONE o.time_zone)::date AS day,
                (hashtext(t.customer_id::text) & ${SHARDS - 1})::smallint AS shard, t.events, t.achievements, t.points, t.offers, t.notifications
           FROM json_to_recordset(${p(JSON.stringify(analytics.activity))}::json) AS t(organization_id int, customer_id uuid, campaign_id int, behavior_id int,
                at timestamptz, events int, achievements int, points bigint, offers int, notifications int)
           JOIN organizations o ON o.id = t.organization_id`,
    },
    {
      name: 'analytics_days',
      sql: () => `SELECT DISTINCT customer_id, campaign_id, shard, day, extract(year FROM day)::smallint AS year, extract(doy FROM day)::int - 1 AS bit
           FROM analytics_activity WHERE events > 0`,
    },
    {
      name: 'analytics_first_days',
      sql: () => `SELECT d.campaign_id, d.day, d.shard FROM analytics_days d
           LEFT JOIN campaign_participants p ON p.campaign_id = d.campaign_id AND p.year = d.year AND p.customer_id = d.customer_id
          WHERE p.days IS NULL OR get_bit(p.days, d.bit) = 0`,
    },
    {
      name: 'analytics_participants',
      sql: () => `INSERT INTO campaign_participants AS p (campaign_id, year, customer_id, days)
         SELECT campaign_id, year, customer_id, bit_or(set_bit(repeat('0', 366)::bit(366), bit, 1)) FROM analytics_days GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
         ON CONFLICT (campaign_id, year, customer_id) DO UPDATE SET days = p.days | EXCLUDED.days WHERE p.days | EXCLUDED.days <> p.days
         RETURNING 1`,
    },
    {
      name: 'analytics_counted',
      sql: () => `INSERT INTO campaign_daily AS d (campaign_id, day, behavior_id, shard, ${counters.join(', ')})
         SELECT campaign_id, day, behavior_id, shard, ${counters.map((c) => `sum(${c})`).join(', ')}
           FROM (SELECT campaign_id, day, 0 AS behavior_id, shard, events, 0 AS participants, achievements, points AS points_credited, offers AS offers_issued, notifications
                   FROM analytics_activity
                 UNION ALL
                 SELECT campaign_id, day, behavior_id, shard, 0, 0, achievements, points, offers, notifications FROM analytics_activity WHERE behavior_id IS NOT NULL
                 UNION ALL
                 SELECT campaign_id, day, 0, shard, 0, 1, 0, 0, 0, 0 FROM analytics_first_days) x
          GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
         ON CONFLICT (campaign_id, day, behavior_id, shard) DO UPDATE SET ${counters.map((c) => `${c} = d.${c} + EXCLUDED.${c}`).join(', ')}
         RETURNING 1`,
    },
    {
      name: 'analytics_achievers',
      sql: () => `INSERT INTO campaign_achievers AS a (campaign_id, day, behavior_id, customer_id, achievements)
         SELECT campaign_id, day, behavior_id, customer_id, sum(achievements) FROM analytics_activity WHERE achievements > 0 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
         ON CONFLICT (campaign_id, day, behavior_id, customer_id) DO UPDATE SET achievements = a.achievements + EXCLUDED.achievements
         RETURNING 1`,
    },
    {
      name: 'analytics_goals',
      sql: (p) => `INSERT INTO campaign_goal_customers AS g (goal_id, customer_id, completed)
         SELECT t.goal_id, t.customer_id, bool_or(t.completed) FROM json_to_recordset(${p(JSON.stringify(analytics.goals))}::json) AS t(goal_id int, customer_id uuid, completed boolean)
          GROUP BY 1, 2 ORDER BY 1, 2
         ON CONFLICT (goal_id, customer_id) DO UPDATE SET completed = true WHERE EXCLUDED.completed AND NOT g.completed
         RETURNING 1`,
    },
  ];
}
