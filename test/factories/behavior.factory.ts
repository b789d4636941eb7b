import type { INestApplication } from '@nestjs/common';
import { api, TestTenant } from './tenant.factory.js';

/** One goal of a behavior, in compact form (contract §6 achievement). */
export interface GoalSpec {
  /** The goal's name; defaults to the event name. */
  name?: string;
  /** The event the goal listens to (internal_event_name). */
  event: string;
  type?: 'count' | 'unique';
  unique_attribute?: string;
  event_count?: number;
  points?: number;
  required?: boolean;
  criteria?: Array<{ field: string; op: string; value?: unknown }>;
  /** Goal-level data: min_time_between_events, min_time_between_events_count, consecutive. */
  data?: Record<string, unknown>;
}

/**
 * A behavior in compact form: one goal described by the top-level members (event, type, event_count, ...), or
 * several goals in `goals` (one group that needs `goal_count` of them, default all).
 */
export interface BehaviorSpec {
  name: string;
  /** The event of the single goal (ignored when `goals` is given). */
  event?: string;
  type?: 'count' | 'unique';
  unique_attribute?: string;
  event_count?: number;
  /** Behavior points, credited on completion. */
  points?: number;
  /** Points of the single goal. */
  goal_points?: number;
  /** Tags added to the customer on completion, joined with |. */
  tags?: string;
  /** Behavior-level data: caps, period, use_same_period, defaults for goals. */
  data?: Record<string, unknown>;
  /** Goal-level data of the single goal. */
  goal_data?: Record<string, unknown>;
  criteria?: GoalSpec['criteria'];
  goals?: GoalSpec[];
  goal_count?: number;
  /** outcome_config entries as in contract §6: {deal:{id}}, {ad_unit:{id}}, {points}, {event:{name,by}}, {tier:{name}}. */
  outcomes?: Array<Record<string, unknown>>;
  /** The experiment variant whose customers alone it evaluates (contract §20). */
  variant?: string | null;
}

/** What the batch route answers for a behavior (the members tests use). */
export interface CreatedBehavior {
  id: number;
  campaign_id: number;
  name: string;
  goal_groups: Array<{ goal_count: number; goals: Array<{ achievement: { id: number; name: string; internal_event_name: string | null } }> }>;
}

function achievement(goal: GoalSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: goal.name ?? goal.event,
    internal_event_name: goal.event,
    event_count: goal.event_count ?? 1,
    type: goal.type ?? 'count',
    points: goal.points ?? 0,
  };
  if (goal.unique_attribute !== undefined) out.unique_attribute = goal.unique_attribute;
  if (goal.required !== undefined) out.required = goal.required;
  if (goal.criteria !== undefined) out.criteria = goal.criteria;
  if (goal.data !== undefined) out.data = goal.data;
  return { achievement: out };
}

/** The contract §6 request form of a compact behavior. */
export function behaviorBody(spec: BehaviorSpec): Record<string, unknown> {
  const goals: GoalSpec[] = spec.goals ?? [
    {
      event: spec.event ?? spec.name,
      type: spec.type,
      unique_attribute: spec.unique_attribute,
      event_count: spec.event_count,
      points: spec.goal_points,
      criteria: spec.criteria,
      data: spec.goal_data,
    },
  ];
  const group: Record<string, unknown> = { goals: goals.map(achievement) };
  if (spec.goal_count !== undefined) group.goal_count = spec.goal_count;
  const body: Record<string, unknown> = {
    name: spec.name,
    points: spec.points ?? 0,
    data: spec.data ?? {},
    goal_groups: [group],
  };
  if (spec.tags !== undefined) body.tags = spec.tags;
  if (spec.outcomes !== undefined) body.outcome_config = spec.outcomes;
  if (spec.variant !== undefined) body.variant = spec.variant;
  return body;
}

/** Creates behaviors of a campaign through POST .../management/campaigns/:id/behaviors/_batch (one transaction). */
export async function createBehaviors(app: INestApplication, tenant: TestTenant, campaignId: number, specs: BehaviorSpec[]): Promise<CreatedBehavior[]> {
  const res = await api(app, tenant)
    .post(`/management/campaigns/${campaignId}/behaviors/_batch`)
    .send({ behaviors: specs.map(behaviorBody) });
  if (res.status !== 201) throw new Error(`behavior batch answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.behaviors as CreatedBehavior[];
}

/** Creates one behavior of a campaign through the batch route and answers it. */
export async function createBehavior(app: INestApplication, tenant: TestTenant, campaignId: number, spec: BehaviorSpec): Promise<CreatedBehavior> {
  const [behavior] = await createBehaviors(app, tenant, campaignId, [spec]);
  return behavior;
}
