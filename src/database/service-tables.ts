/**
 * The tables of the service's own schema (migrations/), and the migrations' own: a domain action may not declare one
 * as a table of its rows. The event log's monthly partitions (events_*) are refused by their prefix.
 * src/database/service-tables.spec.ts checks that every table a migration creates is here.
 */
export const SERVICE_TABLES: ReadonlySet<string> = new Set([
  'analytics_backfill',
  'api_keys',
  'applications',
  'audience_jobs',
  'audit_log',
  'behaviors',
  'campaign_achievers',
  'campaign_activity',
  'campaign_daily',
  'campaign_goal_customers',
  'campaign_participants',
  'campaigns',
  'creative_groups',
  'creatives',
  'customer_offers',
  'customer_progress',
  'customer_tier_outcomes',
  'customers',
  'divisions',
  'event_reversals',
  'event_transactions',
  'erasures',
  'events',
  'experiment_assignments',
  'experiment_groups',
  'line_items',
  'migrations',
  'notifications',
  'offers',
  'organizations',
  'points_ledger',
  'reward_effects',
  'simulations',
  'tier_history',
  'tiers',
  'webhook_deliveries',
  'webhook_delivery_attempts',
  'webhooks',
]);

/** Whether a table (`table` or `schema.table`, public assumed) is one of the service's own. */
export function isServiceTable(table: string): boolean {
  const [schema, name] = table.includes('.') ? table.split('.') : ['public', table];
  return schema === 'public' && (SERVICE_TABLES.has(name) || /^events(_|$)/.test(name));
}
