import type { Step } from './write-statement.js';
import type { ActivityRow, WritePlan } from './write-plan.js';

/**
 * campaign_activity's payload: `a`, activity rows as arrays in ACTIVITY_MEMBERS' order, and `g`, goals advanced as
 * [goal_id, customer_id, completed]. Arrays, not objects: a V2 job's payload is a third of the size (less to store,
 * log and read back); the fold (AnalyticsRepository) reads the members by position.
 */
export const ACTIVITY_MEMBERS = ['organization_id', 'customer_id', 'campaign_id', 'behavior_id', 'at', 'events', 'achievements', 'points_credited', 'points_reversed', 'offers_issued', 'notifications'] as const;

export function activityPayload(analytics: WritePlan['analytics']): string {
  return JSON.stringify({
    a: analytics.activity.map((row: ActivityRow) => ACTIVITY_MEMBERS.map((member) => row[member])),
    g: analytics.goals.map((goal) => [goal.goal_id, goal.customer_id, goal.completed]),
  });
}

/**
 * The evaluation's write of campaign analytics (contract §19, decision 0022), as a step of its one statement: what
 * each campaign's evaluation did and the goals it advanced, appended to campaign_activity as one `json` value (one row
 * per write, nothing parsed into records, no index: it never waits on another evaluation's, and costs the event path
 * least). The analytics fold adds it to the read model within seconds, and before any read.
 */
export function analyticsSteps(analytics: WritePlan['analytics']): Step[] {
  const empty = analytics.activity.length === 0 && analytics.goals.length === 0;
  return [
    {
      name: 'analytics_activity',
      sql: (p) => `INSERT INTO campaign_activity (payload) SELECT ${p(empty ? null : activityPayload(analytics))}::json WHERE ${p(!empty)}::boolean`,
    },
  ];
}
