import type { Step } from './write-statement.js';
import type { WritePlan } from './write-plan.js';

/**
 * The evaluation's write of campaign analytics (contract §19, decision 0022), as steps of its one statement:
 * - what each campaign's evaluation did, appended to campaign_activity (an insert into a table without index: it
 *   never waits on another evaluation's, and costs the event path least); the analytics fold adds it to the read
 *   model within seconds, and before any read;
 * - the goals that took progress, only when that is news (a goal first started, or first completed): the funnel's
 *   rows are the customer's own, which its lock serializes. The probes are scalar subqueries (one index probe each),
 *   where a join estimated from the JSON's rows may scan the table.
 */
export function analyticsSteps(analytics: WritePlan['analytics']): Step[] {
  return [
    {
      name: 'analytics_activity',
      sql: (p) => `INSERT INTO campaign_activity (organization_id, customer_id, campaign_id, behavior_id, at, events, achievements, points_credited, points_reversed, offers_issued, notifications)
         SELECT t.organization_id, t.customer_id, t.campaign_id, t.behavior_id, t.at, t.events, t.achievements, t.points_credited, 0, t.offers_issued, t.notifications
           FROM json_to_recordset(${p(JSON.stringify(analytics.activity))}::json) AS t(organization_id int, customer_id uuid, campaign_id int, behavior_id int,
                at timestamptz, events int, achievements int, points_credited bigint, offers_issued int, notifications int)`,
    },
    {
      name: 'analytics_goals',
      sql: (p) => `INSERT INTO campaign_goal_customers AS g (goal_id, customer_id, completed)
         SELECT t.goal_id, t.customer_id, t.completed
           FROM (SELECT goal_id, customer_id, bool_or(completed) AS completed
                   FROM json_to_recordset(${p(JSON.stringify(analytics.goals))}::json) AS t(goal_id int, customer_id uuid, completed boolean) GROUP BY 1, 2) t
          WHERE coalesce((SELECT g.completed OR NOT t.completed FROM campaign_goal_customers g WHERE g.goal_id = t.goal_id AND g.customer_id = t.customer_id), false) = false
         ON CONFLICT (goal_id, customer_id) DO UPDATE SET completed = true WHERE EXCLUDED.completed AND NOT g.completed`,
    },
  ];
}
