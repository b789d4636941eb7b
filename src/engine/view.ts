import type { CompiledBehavior } from './compiled.js';
import { completedGoalCount, emptyBehaviorProgress, groupCounts, requiredGoalCount } from './progress.js';
import type { BehaviorProgress } from './types.js';

export interface GoalView {
  type: 'goal';
  id: number;
  event_name: string;
  points: number;
  completed: boolean;
  required: boolean;
  earn_count: number;
  group_id: number;
  progress: {
    event_name: string;
    type: 'count' | 'unique';
    current_count: number;
    total_count: number;
    min_time_between_events: number | null;
    min_time_between_events_count: number;
    consecutive: boolean;
  };
}

export interface GroupView {
  type: 'group';
  current_count: number;
  total_count: number;
  num_goals: number;
  completed: boolean;
}

export interface BehaviorView {
  id: number;
  campaign_id: number;
  event_name: string;
  type: 'composite';
  points: number;
  achieved: number;
  can_skip: false;
  skipped: number;
  max_times_repeatable: number | null;
  max_times_repeatable_per_period: number | null;
  period: number | null;
  min_time_between_events: number | null;
  min_time_between_events_count: number;
  consecutive: boolean;
  current_count: number;
  total_count: number;
  goals: Record<string, GoalView>;
  groups: Record<string, GroupView>;
}

/** A behavior with the customer's progress, in the seed's response shape (composite, goals and groups). */
export function behaviorView(behavior: CompiledBehavior, progress: BehaviorProgress | undefined): BehaviorView {
  const p = progress ?? emptyBehaviorProgress();
  const rule = behavior.rule;
  const first = behavior.goals[0]?.rule;
  const goals: Record<string, GoalView> = {};
  for (const goal of behavior.goals) {
    const g = p.goals[goal.key];
    goals[goal.rule.name] = {
      type: 'goal',
      id: goal.rule.id,
      event_name: goal.rule.eventName,
      points: goal.rule.points,
      completed: g?.completed ?? false,
      required: goal.rule.required,
      earn_count: goal.rule.eventCount,
      group_id: goal.groupIndex,
      progress: {
        event_name: goal.rule.eventName,
        type: goal.rule.type,
        current_count: g?.count ?? 0,
        total_count: goal.rule.eventCount,
        min_time_between_events: goal.rule.minTimeBetweenEvents,
        min_time_between_events_count: goal.rule.minTimeBetweenEventsCount,
        consecutive: goal.rule.consecutive,
      },
    };
  }
  const groups: Record<string, GroupView> = {};
  groupCounts(behavior, p).forEach((g, index) => {
    groups[String(index)] = { type: 'group', current_count: g.counted, total_count: g.need, num_goals: g.goals, completed: g.complete };
  });
  return {
    id: rule.id,
    campaign_id: behavior.campaign.rule.id,
    event_name: first?.eventName ?? rule.name,
    type: 'composite',
    points: rule.points,
    achieved: p.achieved,
    can_skip: false,
    skipped: 0,
    max_times_repeatable: rule.maxTimesAchievable,
    max_times_repeatable_per_period: rule.maxTimesAchievablePerPeriod,
    period: rule.period,
    min_time_between_events: first?.minTimeBetweenEvents ?? null,
    min_time_between_events_count: first?.minTimeBetweenEventsCount ?? 1,
    consecutive: first?.consecutive ?? false,
    current_count: completedGoalCount(behavior, p),
    total_count: requiredGoalCount(behavior),
    goals,
    groups,
  };
}
