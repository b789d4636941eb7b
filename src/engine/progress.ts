import type { CompiledBehavior } from './compile.js';
import type { BehaviorProgress, GoalProgress } from './types.js';

export function emptyGoalProgress(): GoalProgress {
  return { count: 0, completed: false, pivots: [], lastDay: null, countedAt: [] };
}

export function emptyBehaviorProgress(): BehaviorProgress {
  return { achieved: 0, completions: [], window: null, goals: {} };
}

/** A deep copy (evaluation never changes its input). Written out by hand: it runs once per touched behavior. */
export function cloneProgress(p: BehaviorProgress): BehaviorProgress {
  const goals: Record<string, GoalProgress> = {};
  for (const key in p.goals) {
    const g = p.goals[key];
    goals[key] = { count: g.count, completed: g.completed, pivots: g.pivots.slice(), lastDay: g.lastDay, countedAt: g.countedAt.slice() };
  }
  return { achieved: p.achieved, completions: p.completions.slice(), window: p.window, goals };
}

export function goalProgress(p: BehaviorProgress, key: string): GoalProgress {
  let g = p.goals[key];
  if (!g) {
    g = emptyGoalProgress();
    p.goals[key] = g;
  }
  return g;
}

/** Starts a new cycle: goal counts, pivots and streaks go back to zero; throttle history stays. */
export function resetCycle(p: BehaviorProgress): void {
  for (const g of Object.values(p.goals)) {
    g.count = 0;
    g.completed = false;
    g.pivots = [];
    g.lastDay = null;
  }
  p.window = null;
}

export function hasCycleProgress(p: BehaviorProgress): boolean {
  return Object.values(p.goals).some((g) => g.count > 0 || g.completed);
}

/** Completed goals per group, and whether every group is complete. */
export function groupStatus(behavior: CompiledBehavior, p: BehaviorProgress): { completedPerGroup: number[]; complete: boolean } {
  const completedPerGroup = behavior.groupNeeds.map(() => 0);
  const requiredMissing = behavior.groupNeeds.map(() => false);
  for (const goal of behavior.goals) {
    const done = p.goals[goal.key]?.completed ?? false;
    if (done) completedPerGroup[goal.groupIndex] += 1;
    else if (goal.rule.required) requiredMissing[goal.groupIndex] = true;
  }
  const complete = behavior.groupNeeds.every((need, i) => completedPerGroup[i] >= need && !requiredMissing[i]);
  return { completedPerGroup, complete };
}

/** Goals completed in the current cycle, counted toward what the groups require (the behavior's current_count). */
export function completedGoalCount(behavior: CompiledBehavior, p: BehaviorProgress): number {
  const { completedPerGroup } = groupStatus(behavior, p);
  return completedPerGroup.reduce((sum, done, i) => sum + Math.min(done, behavior.groupNeeds[i]), 0);
}

export function requiredGoalCount(behavior: CompiledBehavior): number {
  return behavior.groupNeeds.reduce((a, b) => a + b, 0);
}
