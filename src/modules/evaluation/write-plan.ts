import { addBudgetUse, type BudgetUse, type CustomerSnapshot, type EvaluationResult, type EventInstance } from '../../engine/index.js';
import type { EventSource, EventStatus } from '../../database/entities/event.entity.js';
import type { WebhookOccurrence } from '../webhooks/index.js';

/** What an evaluation made of one event: its status, the reason, its result summary and the points it earned. */
export interface EventOutcome {
  status: EventStatus;
  reason: string | null;
  result: object | null;
  pointsEarned: number;
}

/** An event row to insert (V1, perform, and V1 async=true stored pending). */
export interface NewEvent extends EventOutcome {
  organizationId: number;
  apiKeyId: number;
  customerId: string;
  userRef: string;
  source: EventSource;
  transactionId: string | null;
  instance: EventInstance;
  divisionId: number | null;
  campaignId: number | null;
  requestId: string | null;
  /** Body `qualify: true`, kept for the worker when the event is stored to be processed later. */
  qualify: boolean;
}

/** An event as a way in describes it to the pipeline: its row but its customer and what the evaluation made of it. */
export type EventToStore = Omit<NewEvent, 'organizationId' | 'customerId' | 'userRef' | keyof EventOutcome>;

/** The part of an engine result that is written: perform's result and evaluate's both have it. */
export type Outcomes = Pick<
  EvaluationResult,
  'customer' | 'progress' | 'credits' | 'offersIssued' | 'notifications' | 'budgetUse' | 'budgetRefused' | 'effects' | 'tierOutcomes' | 'tierChange' | 'evaluated' | 'completions' | 'goalsAdvanced' | 'experiments'
>;

/** One customer's evaluation: its state before, what the engine decided, and its webhook events. */
export interface CustomerResult {
  organizationId: number;
  before: CustomerSnapshot;
  result: Outcomes;
  /** Index, in the plan's event list, of the event the result's eventIndex 0 names. */
  firstIndex: number;
  webhooks: WebhookOccurrence[];
}

/**
 * Everything one evaluation writes, as plain rows (the data form of "what to do next"; a replay can drop it). `idx`
 * names an event by its index in `events`; `notification_n` a notification by its ordinal (from 1) in `notifications`.
 */
export interface WritePlan {
  /** New event rows, or stored events (by id) marked with their outcomes. */
  events: { insert: NewEventRow[] } | { mark: MarkedEventRow[] };
  progress: Array<{ customer_id: string; behavior_id: number; state: unknown; achieved: number }>;
  customers: Array<{
    id: string;
    available_points: number;
    lifetime_points: number;
    tier_id: number | null;
    tier_review_at: string | null;
    tags: string[];
    qualified_campaign_ids: number[];
    completed_campaign_ids: number[];
  }>;
  credits: Array<{ idx: number; organization_id: number; customer_id: string; amount: number; reason: string; source: object; earned_at: string }>;
  offers: Array<{ idx: number; organization_id: number; customer_id: string; offer_id: number; campaign_id: number; behavior_id: number; issued_at: string }>;
  notifications: Array<{ idx: number; organization_id: number; customer_id: string; creative_id: number; campaign_id: number; behavior_id: number; type: string; data: unknown }>;
  deliveries: Array<{ idx: number; organization_id: number; id: string; type: string; created_at: string; notification_n: number | null; data: unknown }>;
  /** Campaign budgets (contract §14): what completions use (the campaigns' rows are locked by then), and the campaigns that refused one. */
  budgets: { use: Array<{ campaign_id: number; completions: number; points: number }>; refused: number[] };
  /** Tier outcomes awarded, at their event's time (customer_tier_outcomes: they qualify for tiers, §17). */
  tierOutcomes: Array<{ idx: number; customer_id: string; tier_id: number; at: string }>;
  /** Moves of customers' tiers, and why (tier_history, §17). */
  tierHistory: TierHistoryRow[];
  /** Rewards' after-commit effects (the outbox reward_effects), run by the workers once committed. */
  effects: Array<{ idx: number; organization_id: number; customer_id: string; kind: string; campaign_id: number; behavior_id: number; payload: unknown }>;
  /** Campaign analytics (§19): what each campaign's evaluations did, by customer and time, and the goals that took progress. */
  analytics: { activity: ActivityRow[]; goals: Array<{ goal_id: number; customer_id: string; completed: boolean }>; groups: GroupRow[] };
  /** Experiments (§20): customers' assignments made or measured, and the campaigns whose first assignment this is. */
  experiments: { assignments: AssignmentRow[]; started: Array<{ campaign_id: number; at: string }> };
  /** A domain action's rows for tables of its own (perform), written in the same transaction before the rest. */
  rows?: Array<{ table: string; rows: Array<Record<string, unknown>> }>;
}

/**
 * What one customer's evaluations did for one campaign (behavior_id null) or one of its behaviors, at one instant: a
 * row of campaign_activity, which the analytics fold adds to the campaign's counters of that day (decision 0022).
 */
export interface ActivityRow {
  organization_id: number;
  customer_id: string;
  campaign_id: number;
  behavior_id: number | null;
  /** The instance's time, in milliseconds since the epoch. */
  at: number;
  events: number;
  achievements: number;
  points_credited: number;
  points_reversed: number;
  offers_issued: number;
  notifications: number;
}

/** A customer's experiment assignment as experiment_assignments stores it. */
export interface AssignmentRow {
  customer_id: string;
  campaign_id: number;
  group_name: string;
  assigned_at: string;
  metric_sum: number;
  metric_events: number;
}

/** What an evaluation adds to one experiment group's sums (folded into experiment_groups with the analytics). */
export interface GroupRow {
  campaign_id: number;
  group_name: string;
  customers: number;
  converted: number;
  metric_sum: number;
  metric_sum_squares: number;
  achievements: number;
  points_credited: number;
}

export interface TierHistoryRow {
  customer_id: string;
  from_tier_id: number | null;
  to_tier_id: number | null;
  reason: string;
  at: string;
}

export interface NewEventRow {
  organization_id: number;
  api_key_id: number;
  customer_id: string;
  user_ref: string;
  source: EventSource;
  transaction_id: string | null;
  name: string;
  count: number;
  attributes: unknown;
  context: unknown;
  division_id: number | null;
  campaign_id: number | null;
  occurred_at: string;
  status: EventStatus;
  reason: string | null;
  result: object | null;
  points: number;
  request_id: string | null;
  qualify: boolean;
}

export interface MarkedEventRow {
  id: string;
  /** The event's key with its id (event-keys.ts). */
  occurred_at: string;
  status: EventStatus;
  reason: string | null;
  result: object | null;
  points: number;
}

export function newEventRows(events: NewEvent[]): NewEventRow[] {
  return events.map((e) => eventRow(e, e, e));
}

/** The row of an event a way in stores, for its customer (`who`), with what the evaluation made of it. */
export function eventRow(who: Pick<NewEvent, 'organizationId' | 'customerId' | 'userRef'>, e: EventToStore, outcome: EventOutcome): NewEventRow {
  return {
    organization_id: who.organizationId,
    api_key_id: e.apiKeyId,
    customer_id: who.customerId,
    user_ref: who.userRef,
    source: e.source,
    transaction_id: e.transactionId,
    name: e.instance.name,
    count: e.instance.count,
    attributes: e.instance.attributes,
    context: e.instance.context,
    division_id: e.divisionId,
    campaign_id: e.campaignId,
    occurred_at: new Date(e.instance.occurredAt).toISOString(),
    status: outcome.status,
    reason: outcome.reason,
    result: outcome.result,
    points: outcome.pointsEarned,
    request_id: e.requestId,
    qualify: e.qualify,
  };
}

/** A plan that writes the events and nothing else (the start of every plan). */
export function emptyPlan(events: WritePlan['events']): WritePlan {
  return {
    events,
    progress: [],
    customers: [],
    credits: [],
    offers: [],
    notifications: [],
    deliveries: [],
    budgets: { use: [], refused: [] },
    effects: [],
    tierOutcomes: [],
    tierHistory: [],
    analytics: { activity: [], goals: [], groups: [] },
    experiments: { assignments: [], started: [] },
  };
}

/**
 * The write plan of evaluated customers: their events (new rows, or stored ids marked with `outcomes`), progress rows
 * that changed, customer rows whose balances, tier, tags or campaign lists changed, points credits, offers issued,
 * notifications, webhook deliveries and rewards' after-commit effects.
 */
export function planWrite(events: WritePlan['events'], customers: CustomerResult[]): WritePlan {
  const plan = emptyPlan(events);
  const budgetUse: Record<number, BudgetUse> = {};
  for (const c of customers) {
    const who = { organization_id: c.organizationId, customer_id: c.result.customer.id };
    const idx = (eventIndex: number) => c.firstIndex + eventIndex;
    // Webhooks' notification_n counts every notification of the plan, in the order they are inserted.
    const notificationsBefore = plan.notifications.length;
    for (const [id, state] of Object.entries(c.result.progress)) {
      plan.progress.push({ customer_id: who.customer_id, behavior_id: Number(id), state, achieved: state.achieved });
    }
    if (!sameCustomer(c.before, c.result.customer)) plan.customers.push(customerRow(c.result.customer));
    for (const credit of c.result.credits) {
      plan.credits.push({
        idx: idx(credit.eventIndex),
        ...who,
        amount: credit.amount,
        reason: credit.reason,
        source: { campaign_id: credit.campaignId, behavior_id: credit.behaviorId, goal_id: credit.goalId ?? null, offer_id: credit.offerId ?? null },
        earned_at: new Date(credit.at).toISOString(),
      });
    }
    for (const step of c.result.tierChange?.steps ?? []) {
      plan.tierHistory.push({ customer_id: who.customer_id, from_tier_id: step.fromTierId, to_tier_id: step.toTierId, reason: step.reason, at: new Date(step.at).toISOString() });
    }
    for (const t of c.result.tierOutcomes) plan.tierOutcomes.push({ idx: idx(t.eventIndex), customer_id: who.customer_id, tier_id: t.tierId, at: new Date(t.at).toISOString() });
    for (const o of c.result.offersIssued) {
      plan.offers.push({ idx: idx(o.eventIndex), ...who, offer_id: o.offerId, campaign_id: o.campaignId, behavior_id: o.behaviorId, issued_at: new Date(o.at).toISOString() });
    }
    for (const n of c.result.notifications) {
      plan.notifications.push({ idx: idx(n.eventIndex), ...who, creative_id: n.creativeId, campaign_id: n.campaignId, behavior_id: n.behaviorId, type: n.type, data: n.data });
    }
    for (const e of c.result.effects) {
      plan.effects.push({ idx: idx(e.eventIndex), ...who, kind: e.kind, campaign_id: e.campaignId, behavior_id: e.behaviorId, payload: e.payload });
    }
    plan.analytics.activity.push(...activityOf(c));
    for (const g of c.result.goalsAdvanced) plan.analytics.goals.push({ goal_id: g.goalId, customer_id: who.customer_id, completed: g.completed });
    planExperiments(plan, who.customer_id, c.result.experiments);
    addBudgetUse(budgetUse, c.result.budgetUse);
    for (const id of c.result.budgetRefused) if (!plan.budgets.refused.includes(id)) plan.budgets.refused.push(id);
    for (const w of c.webhooks) {
      plan.deliveries.push({
        idx: idx(w.eventIndex),
        organization_id: c.organizationId,
        id: w.id,
        type: w.type,
        created_at: w.created_at,
        notification_n: w.notificationIndex === null ? null : notificationsBefore + w.notificationIndex + 1,
        data: w.data,
      });
    }
  }
  plan.budgets.use = Object.entries(budgetUse).map(([id, u]) => ({ campaign_id: Number(id), ...u }));
  return plan;
}

/**
 * One customer's experiment outcomes (§20): their assignment rows as they now are (the last of each campaign), what each
 * adds to its group's sums, and the first assignment of a campaign not known to have started.
 */
function planExperiments(plan: WritePlan, customerId: string, outcomes: Outcomes['experiments']): void {
  if (outcomes.length === 0) return;
  const rows = new Map<number, AssignmentRow>();
  for (const { campaignId, assignment: a, stored, added } of outcomes) {
    const at = new Date(a.assignedAt).toISOString();
    if (stored) rows.set(campaignId, { customer_id: customerId, campaign_id: campaignId, group_name: a.group, assigned_at: at, metric_sum: a.metricSum, metric_events: a.metricEvents });
    if (added.customers > 0) plan.experiments.started.push({ campaign_id: campaignId, at });
    plan.analytics.groups.push({
      campaign_id: campaignId,
      group_name: a.group,
      customers: added.customers,
      converted: added.converted,
      metric_sum: added.metricSum,
      metric_sum_squares: added.metricSumSquares,
      achievements: added.achievements,
      points_credited: added.points,
    });
  }
  plan.experiments.assignments.push(...rows.values());
}

/** One customer's analytics activity, summed by campaign, behavior and instant. */
function activityOf(c: CustomerResult): ActivityRow[] {
  const r = c.result;
  const rows = new Map<string, ActivityRow>();
  const add = (campaignId: number, behaviorId: number | null, at: number, counts: Partial<Pick<ActivityRow, 'events' | 'achievements' | 'points_credited' | 'offers_issued' | 'notifications'>>) => {
    const key = `${campaignId}:${behaviorId}:${at}`;
    let row = rows.get(key);
    if (!row) {
      row = { organization_id: c.organizationId, customer_id: r.customer.id, campaign_id: campaignId, behavior_id: behaviorId, at, events: 0, achievements: 0, points_credited: 0, points_reversed: 0, offers_issued: 0, notifications: 0 };
      rows.set(key, row);
    }
    for (const [name, n] of Object.entries(counts) as Array<[keyof typeof counts, number]>) row[name] += n;
  };
  const timeOf = new Map(r.evaluated.map((e) => [e.eventIndex, e.at]));
  for (const e of r.evaluated) add(e.campaignId, null, e.at, { events: 1 });
  for (const x of r.completions) add(x.campaignId, x.behaviorId, x.at, { achievements: 1 });
  for (const x of r.credits) add(x.campaignId, x.behaviorId, x.at, { points_credited: x.amount });
  for (const x of r.offersIssued) add(x.campaignId, x.behaviorId, x.at, { offers_issued: 1 });
  for (const x of r.notifications) add(x.campaignId, x.behaviorId, timeOf.get(x.eventIndex) ?? r.completions.find((y) => y.eventIndex === x.eventIndex)?.at ?? 0, { notifications: 1 });
  return [...rows.values()];
}

function customerRow(a: CustomerSnapshot): WritePlan['customers'][number] {
  return {
    id: a.id,
    available_points: a.availablePoints,
    lifetime_points: a.lifetimePoints,
    tier_id: a.tierId,
    tier_review_at: a.tierReviewAt == null ? null : new Date(a.tierReviewAt).toISOString(),
    tags: a.tags,
    qualified_campaign_ids: a.qualifiedCampaignIds,
    completed_campaign_ids: a.completedCampaignIds,
  };
}

function sameCustomer(a: CustomerSnapshot, b: CustomerSnapshot): boolean {
  const same = (x: unknown[], y: unknown[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return (
    a.availablePoints === b.availablePoints &&
    a.lifetimePoints === b.lifetimePoints &&
    a.tierId === b.tierId &&
    (a.tierReviewAt ?? null) === (b.tierReviewAt ?? null) &&
    same(a.tags, b.tags) &&
    same(a.qualifiedCampaignIds, b.qualifiedCampaignIds) &&
    same(a.completedCampaignIds, b.completedCampaignIds)
  );
}
