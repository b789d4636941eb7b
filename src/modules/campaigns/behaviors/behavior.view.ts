import type { Behavior, StoredGoal, StoredGoalGroup, StoredOutcome } from '../../../database/entities/behavior.entity.js';
import { csvLine } from '../../../common/csv.js';
import { timestampsView } from '../../../common/http/timestamps.js';
import type { AchievementView, BehaviorView, OutcomeConfigView, OutcomeView } from './dto/behavior-view.dto.js';

/** Lower-cased tier name → tier id: what a tier outcome's model_id answers. */
export type TierIds = Map<string, number>;

const MODEL_TYPES = { deal: 'Offer', ad_unit: 'AdUnit', points: 'Points', event: 'EventOutcome', tier: 'Tier', extension: 'Extension' } as const;

/** `goals_csv_data`: one line per goal after the header, each line ending with a newline; formula characters neutralised (common/csv.ts). */
export function goalsCsv(groups: StoredGoalGroup[]): string {
  const rows = groups.flatMap((g) => g.goals).map((goal) => [goal.id, goal.name, goal.internal_event_name, goal.event_count]);
  return [['goal_id', 'name', 'internal_event_name', 'event_count'], ...rows].map((row) => csvLine(row.map((v) => (v === null ? '' : String(v))))).join('');
}

function outcomeKind(o: StoredOutcome): keyof typeof MODEL_TYPES {
  if (o.deal) return 'deal';
  if (o.ad_unit) return 'ad_unit';
  if (o.event) return 'event';
  if (o.tier) return 'tier';
  if (typeof o.points === 'number') return 'points';
  return 'extension';
}

function outcomeView(o: StoredOutcome, organizationId: number, tierIds: TierIds): OutcomeView {
  const kind = outcomeKind(o);
  const modelId = o.deal?.id ?? o.ad_unit?.id ?? (o.tier ? (tierIds.get(o.tier.name.toLowerCase()) ?? null) : null);
  return {
    id: o.id,
    account_id: organizationId,
    organization_id: organizationId,
    model_id: modelId,
    model_type: MODEL_TYPES[kind],
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
}

/** The request form of an outcome with its id (timestamps are answered in `outcomes`). */
function outcomeConfigView(o: StoredOutcome): OutcomeConfigView {
  return Object.fromEntries(Object.entries(o).filter(([key]) => key !== 'created_at' && key !== 'updated_at')) as unknown as OutcomeConfigView;
}

function achievementView(g: StoredGoal): AchievementView {
  return {
    id: g.id,
    name: g.name,
    internal_event_name: g.internal_event_name,
    event_count: g.event_count,
    type: g.type,
    unique_attribute: g.unique_attribute,
    points: g.points,
    required: g.required,
    criteria: g.criteria,
    tags: g.tags,
    data: g.data,
    errors: {},
  };
}

export function behaviorView(b: Behavior, tierIds: TierIds): BehaviorView {
  return {
    id: b.id,
    campaign_id: b.campaignId,
    name: b.name,
    tags: b.tags,
    points: b.points,
    data: { ...b.data, goals_csv_data: goalsCsv(b.goalGroups) },
    goal_groups: b.goalGroups.map((group) => ({
      goal_count: group.goal_count ?? group.goals.length,
      goals: group.goals.map((goal) => ({ achievement: achievementView(goal) })),
    })),
    outcome_config: b.outcomeConfig.map(outcomeConfigView),
    outcomes: b.outcomeConfig.map((o) => outcomeView(o, b.organizationId, tierIds)),
    variant: b.variant,
    errors: {},
    ...timestampsView(b),
  };
}
