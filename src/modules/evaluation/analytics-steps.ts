import type { Step } from './write-statement.js';
import type { WritePlan } from './write-plan.js';

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
      sql: (p) => `INSERT INTO campaign_activity (payload) SELECT ${p(empty ? null : JSON.stringify(analytics))}::json WHERE ${p(!empty)}::boolean`,
    },
  ];
}
