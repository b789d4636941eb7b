import type { Statement } from '../../common/database/unit-of-work.js';
import { occurredKey, occurredRange } from './event-keys.js';
import { analyticsSteps } from './analytics-steps.js';
import type { Step } from './statement-step.js';
import type { MarkedEventRow, WritePlan } from './write-plan.js';

const json = (rows: unknown[]) => JSON.stringify(rows);

/**
 * The idempotency key of the rows, as event_transactions stores it: the rows of one plan are one submission, whose
 * every instance carries its transaction id; the first instance's time is the key's.
 */
const transactionsOf = (rows: unknown[]) =>
  (rows as Array<{ api_key_id: number; transaction_id: string | null; occurred_at: unknown }>)
    .filter((r, i, all) => r.transaction_id !== null && all.findIndex((o) => o.transaction_id === r.transaction_id && o.api_key_id === r.api_key_id) === i)
    .map((r) => ({ api_key_id: r.api_key_id, transaction_id: r.transaction_id, occurred_at: r.occurred_at }));

const steps = {
  /** A used (api key, transaction id) violates event_transactions' key: the repository answers DuplicateTransaction. */
  claimTransactions: (rows: unknown[]): Step => ({
    name: 'claimed_transactions',
    sql: (p) => `INSERT INTO event_transactions (api_key_id, transaction_id, occurred_at)
         SELECT t.api_key_id, t.transaction_id, t.occurred_at
           FROM json_to_recordset(${p(json(transactionsOf(rows)))}::json) AS t(api_key_id int, transaction_id text, occurred_at timestamptz)
         RETURNING 1`,
  }),
  insertEvents: (rows: unknown[]): Step => ({
    name: 'inserted_events',
    sql: (p) => `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, transaction_id, name, count, attributes, context,
                             division_id, campaign_id, occurred_at, status, reason, result, points_earned, processed_at, request_id, qualify)
         SELECT t.organization_id, t.api_key_id, t.customer_id, t.user_ref, t.source, t.transaction_id, t.name, t.count, t.attributes, t.context,
                t.division_id, t.campaign_id, t.occurred_at, t.status, t.reason, t.result, t.points,
                CASE WHEN t.status <> 'pending' THEN now() END, t.request_id, t.qualify
           FROM ROWS FROM (json_to_recordset(${p(json(rows))}::json) AS (organization_id int, api_key_id int, customer_id uuid, user_ref text,
                  source text, transaction_id text, name text, count numeric, attributes jsonb, context jsonb, division_id int, campaign_id int,
                  occurred_at timestamptz, status text, reason text, result jsonb, points int, request_id text, qualify boolean))
                WITH ORDINALITY AS t
          ORDER BY t.ordinality
         RETURNING id, occurred_at`,
  }),
  /** The inserted events' ids by their index in the plan (ids grow in insertion order). */
  numberInserted: (): Step => ({ name: 'event_ids', sql: () => `SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS idx FROM inserted_events` }),
  /** Stored events by key (event-keys.ts), in the months their range names. */
  markEvents: (rows: MarkedEventRow[]): Step => ({
    name: 'event_ids',
    sql: (p) => {
      const [low, high] = occurredRange(rows.map((r) => r.occurred_at));
      return `UPDATE events e SET status = t.status, reason = t.reason, result = t.result, points_earned = t.points, processed_at = now(),
                attempts = e.attempts + 1
           FROM ROWS FROM (json_to_recordset(${p(json(rows))}::json)
                  AS (id bigint, occurred_at timestamptz, status text, reason text, result jsonb, points int))
                WITH ORDINALITY AS t
          WHERE e.id = t.id AND e.occurred_at = t.occurred_at AND e.occurred_at BETWEEN ${p(low)}::timestamptz AND ${p(high)}::timestamptz
         RETURNING e.id, (t.ordinality - 1)::int AS idx`;
    },
  }),
  upsertProgress: (rows: unknown[]): Step => ({
    name: 'progress',
    sql: (p) => `INSERT INTO customer_progress (customer_id, behavior_id, state, achieved, updated_at)
         SELECT t.customer_id, t.behavior_id, t.state, t.achieved, now()
           FROM json_to_recordset(${p(json(rows))}::json) AS t(customer_id uuid, behavior_id int, state jsonb, achieved int)
         ON CONFLICT (customer_id, behavior_id) DO UPDATE SET state = EXCLUDED.state, achieved = EXCLUDED.achieved, updated_at = now()
         RETURNING 1`,
  }),
  updateCustomers: (rows: WritePlan['customers']): Step => ({
    name: 'customers_changed',
    // The id list makes the plan an index lookup, not a scan of customers.
    sql: (p) => `UPDATE customers c SET available_points = t.available_points, lifetime_points = t.lifetime_points, tier_id = t.tier_id, tier_review_at = t.tier_review_at,
                tags = t.tags, qualified_campaign_ids = t.qualified_campaign_ids, completed_campaign_ids = t.completed_campaign_ids, updated_at = now()
           FROM json_to_recordset(${p(json(rows))}::json) AS t(id uuid, available_points bigint, lifetime_points bigint, tier_id int, tier_review_at timestamptz, tags text[],
                qualified_campaign_ids int[], completed_campaign_ids int[])
          WHERE c.id = ANY(${p(rows.map((r) => r.id))}::uuid[]) AND c.id = t.id
         RETURNING 1`,
  }),
  creditPoints: (rows: unknown[]): Step => ({
    name: 'credits',
    // A credit expires the organization's points_expire_after_days after its event (never when that is null); its
    // event's time is the period it qualifies for tiers in (§17).
    sql: (p) => `INSERT INTO points_ledger (organization_id, customer_id, event_id, amount, reason, source, expires_at, remaining, occurred_at)
         SELECT t.organization_id, t.customer_id, e.id, t.amount, t.reason, t.source, x.expires_at, CASE WHEN x.expires_at IS NOT NULL THEN t.amount END, t.earned_at
           FROM json_to_recordset(${p(json(rows))}::json)
                AS t(idx int, organization_id int, customer_id uuid, amount int, reason text, source jsonb, earned_at timestamptz)
           JOIN event_ids e ON e.idx = t.idx
           JOIN organizations o ON o.id = t.organization_id
          CROSS JOIN LATERAL (SELECT t.earned_at + make_interval(days => o.points_expire_after_days) AS expires_at) x
         RETURNING 1`,
  }),
  issueOffers: (rows: unknown[]): Step => ({
    name: 'offers_issued',
    sql: (p) => `INSERT INTO customer_offers (organization_id, customer_id, offer_id, campaign_id, behavior_id, event_id, issued_at)
         SELECT t.organization_id, t.customer_id, t.offer_id, t.campaign_id, t.behavior_id, e.id, t.issued_at
           FROM json_to_recordset(${p(json(rows))}::json)
                AS t(idx int, organization_id int, customer_id uuid, offer_id int, campaign_id int, behavior_id int, issued_at timestamptz)
           JOIN event_ids e ON e.idx = t.idx
         RETURNING 1`,
  }),
  insertNotifications: (rows: unknown[]): Step => ({
    name: 'notifications',
    sql: (p) => `INSERT INTO notifications (organization_id, customer_id, event_id, creative_id, campaign_id, behavior_id, type, data)
         SELECT t.organization_id, t.customer_id, e.id, t.creative_id, t.campaign_id, t.behavior_id, t.type, t.data
           FROM ROWS FROM (json_to_recordset(${p(json(rows))}::json)
                AS (idx int, organization_id int, customer_id uuid, creative_id int, campaign_id int, behavior_id int, type text, data jsonb))
                WITH ORDINALITY AS t
           JOIN event_ids e ON e.idx = t.idx
          ORDER BY t.ordinality
         RETURNING id`,
  }),
  /** The inserted notifications' ordinals (from 1), as deliveries name them. */
  numberNotifications: (): Step => ({ name: 'notification_ns', sql: () => `SELECT id, row_number() OVER (ORDER BY id)::int AS n FROM notifications` }),
  /** One delivery per webhook event and subscribed webhook of the organization (the outbox fan-out). */
  queueDeliveries: (rows: unknown[]): Step => ({
    name: 'deliveries',
    sql: (p) => `INSERT INTO webhook_deliveries (organization_id, webhook_id, event_id, type, payload)
         SELECT w.organization_id, w.id, e.id, t.type,
                jsonb_build_object('id', t.id, 'type', t.type, 'created_at', t.created_at,
                  'data', CASE WHEN t.notification_n IS NULL THEN t.data ELSE jsonb_build_object('id', n.id) || t.data END)
           FROM json_to_recordset(${p(json(rows))}::json) AS t(idx int, organization_id int, id text, type text, created_at text, notification_n int, data jsonb)
           JOIN event_ids e ON e.idx = t.idx
           LEFT JOIN notification_ns n ON n.n = t.notification_n
           JOIN webhooks w ON w.organization_id = t.organization_id AND w.deleted_at IS NULL AND t.type = ANY(w.event_types)
          ORDER BY t.idx, w.id
         RETURNING id`,
  }),
  /** Tier outcomes awarded, at their event's time: each qualifies for its tier in that period (§17). */
  recordTierOutcomes: (rows: unknown[]): Step => ({
    name: 'tier_outcomes',
    sql: (p) => `INSERT INTO customer_tier_outcomes (customer_id, tier_id, event_id, occurred_at)
         SELECT t.customer_id, t.tier_id, e.id, t.at
           FROM json_to_recordset(${p(json(rows))}::json) AS t(idx int, customer_id uuid, tier_id int, at timestamptz)
           JOIN event_ids e ON e.idx = t.idx
         RETURNING 1`,
  }),
  /** Moves of tiers (§17); a review's row is written once per customer and time (tier_history_review). */
  recordTierHistory: (rows: unknown[]): Step => ({
    name: 'tier_history',
    sql: (p) => `INSERT INTO tier_history (customer_id, from_tier_id, to_tier_id, reason, at)
         SELECT t.customer_id, t.from_tier_id, t.to_tier_id, t.reason, t.at
           FROM json_to_recordset(${p(json(rows))}::json) AS t(customer_id uuid, from_tier_id int, to_tier_id int, reason text, at timestamptz)
         ON CONFLICT DO NOTHING
         RETURNING 1`,
  }),
  /** Rewards' after-commit effects into their outbox (one row each, pending until a worker runs it). */
  insertEffects: (rows: unknown[]): Step => ({
    name: 'effects',
    sql: (p) => `INSERT INTO reward_effects (organization_id, customer_id, event_id, kind, campaign_id, behavior_id, payload)
         SELECT t.organization_id, t.customer_id, e.id, t.kind, t.campaign_id, t.behavior_id, t.payload
           FROM ROWS FROM (json_to_recordset(${p(json(rows))}::json)
                AS (idx int, organization_id int, customer_id uuid, kind text, campaign_id int, behavior_id int, payload jsonb))
                WITH ORDINALITY AS t
           JOIN event_ids e ON e.idx = t.idx
          ORDER BY t.ordinality
         RETURNING id`,
  }),
  /**
   * Campaign budgets (contract §14): what the completions used, added only where it fits (the row is locked by this
   * UPDATE until the COMMIT behind the statement; under concurrency the condition is checked again on the row's latest
   * version). The statement's last column calls campaign_budget_exceeded() when a use did not fit: the write fails
   * (DuplicateTransaction's sibling BudgetExceeded) and the evaluation runs again with the budgets locked. A budget
   * reached now, or that refused a completion, is marked exhausted once, and that first time is a
   * campaign.budget_exhausted delivery per subscribed webhook.
   */
  spendBudgets: (budgets: WritePlan['budgets']): Step => ({
    name: 'budget_used',
    sql: (p) => `UPDATE campaigns c SET budget_completions = c.budget_completions + t.completions, budget_points = c.budget_points + t.points,
                budget_exhausted_at = CASE WHEN c.budget_exhausted_at IS NULL AND (c.budget_completions + t.completions >= c.budget_max_completions
                  OR c.budget_points + t.points >= c.budget_max_points) THEN now() ELSE c.budget_exhausted_at END
           FROM json_to_recordset(${p(json(budgets.use))}::json) AS t(campaign_id int, completions int, points int)
          WHERE c.id = t.campaign_id
            AND (c.budget_max_completions IS NULL OR c.budget_completions + t.completions <= c.budget_max_completions)
            AND (c.budget_max_points IS NULL OR c.budget_points + t.points <= c.budget_max_points)
         RETURNING c.id, c.organization_id, c.name, c.budget_max_completions, c.budget_max_points, c.budget_completions AS completions,
                   c.budget_points AS points, c.budget_exhausted_at = now() AS reached
       ), budgets_refused AS (
         UPDATE campaigns c SET budget_exhausted_at = now()
          WHERE c.id = ANY(${p(budgets.refused)}::int[]) AND c.budget_exhausted_at IS NULL AND c.id <> ALL(SELECT id FROM budget_used)
         RETURNING c.id, c.organization_id, c.name, c.budget_max_completions, c.budget_max_points, c.budget_completions AS completions, c.budget_points AS points
       ), budgets_exhausted AS (
         SELECT id, organization_id, name, budget_max_completions, budget_max_points, completions, points FROM budget_used WHERE reached
         UNION ALL SELECT * FROM budgets_refused
       ), budget_deliveries AS (
         INSERT INTO webhook_deliveries (organization_id, webhook_id, type, payload)
         SELECT w.organization_id, w.id, 'campaign.budget_exhausted',
                jsonb_build_object('id', gen_random_uuid(), 'type', 'campaign.budget_exhausted',
                  'created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                  'data', jsonb_build_object('campaign_id', x.id, 'campaign_name', x.name,
                    'budget', jsonb_build_object('max_completions', x.budget_max_completions, 'max_points', x.budget_max_points),
                    'budget_used', jsonb_build_object('completions', x.completions, 'points', x.points)))
           FROM budgets_exhausted x
           JOIN webhooks w ON w.organization_id = x.organization_id AND w.deleted_at IS NULL AND 'campaign.budget_exhausted' = ANY(w.event_types)
          ORDER BY x.id, w.id
         RETURNING id`,
  }),
  /**
   * Experiments (§20): customers' assignments, written once (a concurrent first event of the customer waits for its
   * lock, then sees the row) and their metric value x as it now is; a campaign's first assignment is its start.
   */
  assignExperiments: (experiments: WritePlan['experiments']): Step => ({
    name: 'experiment_assignments',
    sql: (p) => `INSERT INTO experiment_assignments AS a (customer_id, campaign_id, group_name, assigned_at, metric_sum, metric_events)
         SELECT t.customer_id, t.campaign_id, t.group_name, t.assigned_at, t.metric_sum, t.metric_events
           FROM json_to_recordset(${p(json(experiments.assignments))}::json)
                AS t(customer_id uuid, campaign_id int, group_name text, assigned_at timestamptz, metric_sum numeric, metric_events int)
         ON CONFLICT (customer_id, campaign_id) DO UPDATE SET metric_sum = EXCLUDED.metric_sum, metric_events = EXCLUDED.metric_events
         RETURNING 1
       ), experiments_started AS (
         UPDATE campaigns c SET experiment_started_at = t.at
           FROM (SELECT campaign_id, min(at) AS at FROM json_to_recordset(${p(json(experiments.started))}::json) AS s(campaign_id int, at timestamptz) GROUP BY 1) t
          WHERE c.id = t.campaign_id AND c.experiment_started_at IS NULL
         RETURNING 1`,
  }),
};

/** The steps as the named CTEs of one WITH. */
function named(list: Step[], param: (value: unknown) => string): string {
  return list.map((step) => `${step.name} AS (\n         ${step.sql(param)}\n       )`).join(',\n       ');
}

/** The answer of the write: ids of the events, notifications, webhook deliveries and effects written, each in order. */
export interface WrittenRow {
  event_ids: string[];
  notification_ids: string[] | null;
  delivery_ids: string[] | null;
  effect_ids?: string[] | null;
}

/** The ids of the deliveries the statement wrote: the evaluation's, and a budget's exhaustion. */
function deliveryIds(withDeliveries: boolean, withBudgets: boolean): string {
  const sources = [...(withDeliveries ? ['deliveries'] : []), ...(withBudgets ? ['budget_deliveries'] : [])];
  if (sources.length === 0) return 'NULL::bigint[]';
  return `(SELECT array_agg(id ORDER BY id) FROM (${sources.map((t) => `SELECT id FROM ${t}`).join(' UNION ALL ')}) d)`;
}

const EFFECT_IDS = `,
              (SELECT array_agg(id ORDER BY id) FROM effects) AS effect_ids`;

/**
 * The statement of a write plan. Its text depends only on whether events are inserted or marked, whether there are
 * deliveries, whether campaign budgets are spent, whether rewards asked for effects, whether a tier moved or a tier
 * outcome was awarded and whether experiment assignments change, so each variant (at most 64, most never met) is one prepared statement per connection.
 */
export function writeStatement(plan: WritePlan): Statement {
  const inserting = 'insert' in plan.events;
  const withDeliveries = plan.deliveries.length > 0;
  const withBudgets = plan.budgets.use.length > 0 || plan.budgets.refused.length > 0;
  const withEffects = plan.effects.length > 0;
  const withTiers = plan.tierOutcomes.length > 0 || plan.tierHistory.length > 0;
  const withExperiments = plan.experiments.assignments.length > 0;
  const list: Step[] = [
    ...('insert' in plan.events
      ? [steps.claimTransactions(plan.events.insert), steps.insertEvents(plan.events.insert), steps.numberInserted()]
      : [steps.markEvents(plan.events.mark)]),
    steps.upsertProgress(plan.progress),
    steps.updateCustomers(plan.customers),
    steps.creditPoints(plan.credits),
    steps.issueOffers(plan.offers),
    steps.insertNotifications(plan.notifications),
    ...(withDeliveries ? [steps.numberNotifications(), steps.queueDeliveries(plan.deliveries)] : []),
    ...(withBudgets ? [steps.spendBudgets(plan.budgets)] : []),
    ...(withEffects ? [steps.insertEffects(plan.effects)] : []),
    ...(withTiers ? [steps.recordTierOutcomes(plan.tierOutcomes), steps.recordTierHistory(plan.tierHistory)] : []),
    ...(withExperiments ? [steps.assignExperiments(plan.experiments)] : []),
    ...analyticsSteps(plan.analytics),
  ];
  const values: unknown[] = [];
  const param = (value: unknown) => `$${values.push(value)}`;
  const budgetCheck = withBudgets ? `,
              (SELECT CASE WHEN count(*) < ${param(plan.budgets.use.length)} THEN campaign_budget_exceeded() END FROM budget_used) AS budgets_exceeded` : '';
  const text = `WITH ${named(list, param)}
       SELECT (SELECT array_agg(id ORDER BY idx) FROM event_ids) AS event_ids,
              (SELECT array_agg(id ORDER BY id) FROM notifications) AS notification_ids,
              ${deliveryIds(withDeliveries, withBudgets)} AS delivery_ids${withEffects ? EFFECT_IDS : ''}${budgetCheck}`;
  const variant = `${withDeliveries ? '-webhooks' : ''}${withBudgets ? '-budgets' : ''}${withEffects ? '-effects' : ''}${withTiers ? '-tiers' : ''}${withExperiments ? '-experiments' : ''}`;
  return { name: `write-${inserting ? 'new' : 'stored'}-events${variant}`, text, values };
}

/** V1 async=true: events stored pending, to be evaluated by a worker; answers their ids and occurred_at keys in order. */
export function storePendingStatement(rows: unknown[]): Statement {
  const values: unknown[] = [];
  const param = (value: unknown) => `$${values.push(value)}`;
  const text = named([steps.claimTransactions(rows), steps.insertEvents(rows)], param);
  return {
    name: 'store-pending-events',
    text: `WITH ${text}\n       SELECT array_agg(id ORDER BY id) AS event_ids, array_agg(${occurredKey('occurred_at')} ORDER BY id) AS occurred_keys FROM inserted_events`,
    values,
  };
}

const COLUMN = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A domain action's rows for one of its tables: one INSERT per set of columns the rows name (json_populate_recordset
 * types each value as its column; a column a row does not name keeps its default). The table name was checked when the
 * action was registered.
 */
export function domainRowsStatements(table: string, rows: Array<Record<string, unknown>>): Statement[] {
  const name = table.split('.').map((part) => `"${part}"`).join('.');
  const byColumns = new Map<string, Array<Record<string, unknown>>>();
  for (const row of rows) {
    const columns = Object.keys(row).sort();
    const wrong = columns.find((column) => !COLUMN.test(column));
    if (wrong !== undefined) throw new Error(`rows for ${table}: column ${JSON.stringify(wrong)} must be a plain lower case name`);
    const key = columns.join(',');
    byColumns.set(key, [...(byColumns.get(key) ?? []), row]);
  }
  return [...byColumns].map(([key, group]) => {
    const list = key.split(',').map((column) => `"${column}"`).join(', ');
    return { text: `INSERT INTO ${name} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${name}, $1::json)`, values: [JSON.stringify(group)] };
  });
}
