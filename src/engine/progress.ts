import type { CompiledBehavior } from './compiled.js';
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

export interface GroupCount {
  /** Completed goals that count toward the group's need: its required ones, then optional ones up to the need. */
  counted: number;
  need: number;
  goals: number;
  complete: boolean;
}

/** Per group: how many goals are done toward what it needs, and whether it is complete. */
export function groupCounts(behavior: CompiledBehavior, p: BehaviorProgress): GroupCount[] {
  return behavior.groupNeeds.map((need, index) => {
    let requiredTotal = 0;
    let requiredDone = 0;
    let optionalDone = 0;
    let goals = 0;
    for (const goal of behavior.goals) {
      if (goal.groupIndex !== index) continue;
      goals += 1;
      const done = p.goals[goal.key]?.completed ?? false;
      if (goal.rule.required) {
        requiredTotal += 1;
        if (done) requiredDone += 1;
      } else if (done) optionalDone += 1;
    }
    const counted = requiredDone + Math.min(optionalDone, Math.max(0, need - requiredTotal));
    return { counted, need, goals, complete: requiredDone === requiredTotal && requiredDone + optionalDone >= need };
  });
}

/** The behavior's current_count: goals completed in the current cycle that count toward total_count. */
export function completedGoalCount(behavior: CompiledBehavior, p: BehaviorProgress): number {
  return goalsCounted(groupCounts(behavior, p));
}

/** The sum of the groups' counted goals (completedGoalCount, from counts already made). */
export function goalsCounted(counts: GroupCount[]): number {
  let sum = 0;
  for (const g of counts) sum += g.counted;
  return sum;
}

export function requiredGoalCount(behavior: CompiledBehavior): number {
  return behavior.groupNeeds.reduce((a, b) => a + b, 0);
}
