import type { Step } from './statement-step.js';
import type { ActivityRow, WritePlan } from './write-plan.js';

/**
 * campaign_activity's payload: `a`, activity rows as arrays in ACTIVITY_MEMBERS' order, `g`, goals advanced as
 * [goal_id, customer_id, completed], and, when the evaluation touched an experiment, `x`, experiment groups' sums. Arrays, not objects: a V2 job's payload is a third of the size (less to store,
 * log and read back); the fold (AnalyticsRepository) reads the members by position.
 */
export const ACTIVITY_MEMBERS = ['organization_id', 'customer_id', 'campaign_id', 'behavior_id', 'at', 'events', 'achievements', 'points_credited', 'points_reversed', 'offers_issued', 'notifications'] as const;

/** The members of `x`, what the evaluation adds to experiment groups' sums (§20), in order. */
export const GROUP_MEMBERS = ['campaign_id', 'group_name', 'customers', 'converted', 'metric_sum', 'metric_sum_squares', 'achievements', 'points_credited'] as const;

export function activityPayload(analytics: WritePlan['analytics']): string {
  return JSON.stringify({
    a: analytics.activity.map((row: ActivityRow) => ACTIVITY_MEMBERS.map((member) => row[member])),
    g: analytics.goals.map((goal) => [goal.goal_id, goal.customer_id, goal.completed]),
    ...(analytics.groups.length ? { x: analytics.groups.map((row) => GROUP_MEMBERS.map((member) => row[member])) } : {}),
  });
}

/**
 * The evaluation's write of campaign analytics (contract §19, decision 0022), as a step of its one statement: what
 * each campaign's evaluation did and the goals it advanced, appended to campaign_activity as one `json` value (one row
 * per write, nothing parsed into records, no index: it never waits on another evaluation's, and costs the event path
 * least). The analytics fold adds it to the read model within seconds, and before any read.
 */
export function analyticsSteps(analytics: WritePlan['analytics']): Step[] {
  const empty = analytics.activity.length === 0 && analytics.goals.length === 0 && analytics.groups.length === 0;
  return [
    {
      name: 'analytics_activity',
      sql: (p) => `INSERT INTO campaign_activity (payload) SELECT ${p(empty ? null : activityPayload(analytics))}::json WHERE ${p(!empty)}::boolean`,
    },
  ];
}
