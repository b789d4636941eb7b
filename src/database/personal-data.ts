/**
 * What erasing a customer (contract §21, issue #44) does to each table of the schema, and every column each table has.
 * test/medium/personal-data.medium-spec.ts compares this list with the migrated schema (information_schema): a table
 * or a column a migration adds fails it until it is classified here, so that no future table can forget a customer.
 * - `erased`: the customer's rows are deleted (the table is keyed by, or names, the customer);
 * - `kept_anonymous`: the customer's rows stay, stripped of what names them (`personal` columns cleared), because
 *   something that names no one depends on them (a used transaction id, delivered webhooks' history, the audit trail);
 * - `not_personal`: the table holds nothing about a customer (configuration, counts, the service's own bookkeeping).
 */
export type Handling = 'erased' | 'kept_anonymous' | 'not_personal';

export interface TableHandling {
  handling: Handling;
  /** Why, in a sentence: what an auditor reads. */
  why: string;
  /** Every column of the table, in the migrations' order. */
  columns: readonly string[];
  /** kept_anonymous: the columns cleared (or rewritten) for the customer's rows. */
  personal?: readonly string[];
}

const table = (handling: Handling, why: string, columns: string, personal?: string): TableHandling => ({
  handling,
  why,
  columns: columns.split(' '),
  ...(personal ? { personal: personal.split(' ') } : {}),
});

/** Every table of the service's schema (the event log's monthly partitions are `events`). */
export const PERSONAL_DATA: Readonly<Record<string, TableHandling>> = {
  customers: table('erased', 'the customer: profile, external id, tags, attributes, balances, tier', 'id organization_id external_id time_zone division_id tags attributes available_points lifetime_points tier_id qualified_campaign_ids completed_campaign_ids created_at updated_at tier_floor_id tier_review_at erased_at'),
  events: table('erased', "the customer's events, every month of the log", 'id organization_id api_key_id customer_id user_ref source transaction_id name count attributes context division_id campaign_id occurred_at status reason result points_earned attempts created_at processed_at request_id qualify'),
  customer_progress: table('erased', "the customer's progress in behaviors", 'customer_id behavior_id state achieved updated_at'),
  points_ledger: table('erased', "the customer's points ledger", 'id organization_id customer_id event_id amount reason source created_at expires_at remaining api_key_id transaction_id occurred_at reversed_at'),
  notifications: table('erased', "the customer's notifications", 'id organization_id customer_id event_id creative_id campaign_id behavior_id type data created_at'),
  customer_offers: table('erased', 'offers issued to the customer', 'id organization_id customer_id offer_id campaign_id behavior_id event_id issued_at'),
  customer_tier_outcomes: table('erased', 'tier outcomes the customer was awarded', 'id customer_id tier_id event_id occurred_at'),
  tier_history: table('erased', "the customer's tier moves", 'id customer_id from_tier_id to_tier_id reason at created_at'),
  experiment_assignments: table('erased', "the customer's experiment group and metric value", 'customer_id campaign_id group_name assigned_at metric_sum metric_events'),
  reward_effects: table('erased', "rewards' after-commit effects for the customer (their payloads may name them)", 'id organization_id customer_id event_id kind campaign_id behavior_id payload status attempts last_error created_at updated_at done_at'),
  campaign_participants: table('kept_anonymous', 'the days each customer took part: the customer id becomes one that links to no one, so distinct counts stay', 'campaign_id year customer_id days', 'customer_id'),
  campaign_achievers: table('kept_anonymous', 'achievements by customer and day: the customer id becomes one that links to no one', 'campaign_id day behavior_id customer_id achievements', 'customer_id'),
  campaign_goal_customers: table('kept_anonymous', 'the goals each customer started or completed: the customer id becomes one that links to no one', 'goal_id customer_id completed', 'customer_id'),
  campaign_activity: table('erased', 'activity not folded yet, naming customers in its payload: folded before the erasure removes them', 'payload'),
  event_transactions: table('not_personal', 'used transaction ids by api key: they name no customer, and stay used (409)', 'api_key_id transaction_id occurred_at created_at'),
  event_reversals: table('kept_anonymous', 'a reversed transaction id stays reversed: the customer is unlinked, and the free-text reason dropped', 'id organization_id api_key_id transaction_id customer_id events points achievements reason created_at', 'customer_id reason'),
  webhook_deliveries: table('kept_anonymous', 'deliveries not yet made are cancelled, made ones keep no payload: the history of a webhook stays', 'id organization_id webhook_id event_id type payload status attempts created_at updated_at delivered_at', 'payload event_id'),
  webhook_delivery_attempts: table('not_personal', 'status codes and timings of attempts; the payload is the delivery\'s', 'id delivery_id attempt status response_code error duration_ms started_at finished_at'),
  simulations: table('kept_anonymous', "totals name no one; the customer's ids and explanations are removed", 'id organization_id campaign_id status range_from range_to customer_ids explain customers events_replayed results explanations error attempt started_at heartbeat_at completed_at created_at', 'customer_ids explanations'),
  audit_log: table('not_personal', 'configuration changes; a customer appears only in their erasure\'s entry, by an internal id that names no one once erased', 'id organization_id api_key_id action object_type object_id before after created_at'),
  erasures: table('kept_anonymous', 'the erasure jobs: an internal id that names no one once erased, when, and the step the worker reached; the external id is kept only until the erasure is done', 'customer_id organization_id erased_at external_id alias step attempts last_error updated_at done_at', 'external_id'),
  audience_jobs: table('kept_anonymous', "runs stay; their CSV files are rewritten without the customer's record", 'id organization_id creative_id status scheduled_at customer_count file_path error attempt started_at heartbeat_at completed_at created_at updated_at', 'file_path'),
  experiment_groups: table('not_personal', 'sums per group: they name no one', 'campaign_id group_name customers converted metric_sum metric_sum_squares achievements points_credited'),
  campaign_daily: table('not_personal', 'counts per campaign and day: they name no one', 'campaign_id day behavior_id events participants achievements points_credited points_reversed offers_issued notifications'),
  analytics_backfill: table('not_personal', 'the backfill cursor', 'singleton processed_before until_id after_id done_at'),
  organizations: table('not_personal', 'configuration', 'id name multi_org_enabled time_zone created_at updated_at rules_version points_expire_after_days tier_policy tier_policy_changed_at'),
  applications: table('not_personal', 'configuration', 'id organization_id name created_at'),
  api_keys: table('not_personal', 'credentials', 'id organization_id application_id key secret_hash active created_at deactivated_at'),
  divisions: table('not_personal', 'configuration', 'id organization_id parent_id name ancestor_ids created_at updated_at deleted_at'),
  campaigns: table('not_personal', 'configuration, budgets used and experiments\' frozen results (counts)', 'id organization_id name permalink status starts_at ends_at division_id opt_in_required prerequisite_campaign_ids targeting created_at updated_at deleted_at budget_max_completions budget_max_points budget_completions budget_points budget_exhausted_at experiment experiment_started_at experiment_ended_at experiment_winner experiment_results'),
  behaviors: table('not_personal', 'configuration', 'id organization_id campaign_id name tags points data goal_groups outcome_config created_at updated_at deleted_at variant'),
  offers: table('not_personal', 'configuration', 'id organization_id name points description created_at updated_at deleted_at'),
  tiers: table('not_personal', 'configuration', 'id organization_id name min_points created_at updated_at deleted_at retain_points'),
  line_items: table('not_personal', 'configuration', 'id organization_id campaign_id name display_name description status starts_at ends_at created_at updated_at deleted_at'),
  creative_groups: table('not_personal', 'configuration', 'id organization_id line_item_id name display_name status starts_at ends_at targeting created_at updated_at deleted_at'),
  creatives: table('not_personal', 'configuration', 'id organization_id creative_group_id application_id name status ad_type creative_type message url payload issue_audience_csv behavior_id created_at updated_at deleted_at'),
  webhooks: table('not_personal', 'configuration', 'id organization_id url event_types secret created_at updated_at deleted_at'),
  migrations: table('not_personal', "the migrations' own bookkeeping", 'id timestamp name'),
};
