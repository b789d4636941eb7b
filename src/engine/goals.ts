import type { CompiledGoal } from './compiled.js';
import { describeFailure } from './criteria.js';
import type { GoalExplanation, GoalVerdict } from './explanation.js';
import { goalProgress } from './progress.js';
import { dayNumber, iso, localDay } from './time.js';
import type { BehaviorProgress, EventInstance } from './types.js';

export interface GoalStep {
  explanation: GoalExplanation;
  /** How much the goal's count changed (for deltas). */
  countChange: number;
  newPivot: string | null;
  completedNow: boolean;
}

/**
 * Applies one instance to one listening goal of a qualified campaign's behavior (not at a cap): criteria, throttle,
 * then the goal's kind of counting (count, unique, consecutive). Mutates the progress it is given.
 */
export function applyToGoal(goal: CompiledGoal, progress: BehaviorProgress, instance: EventInstance, timeZone: string): GoalStep {
  const rule = goal.rule;
  const g = goalProgress(progress, goal.key);
  const failure = goal.matches(instance);
  // Past its criteria, the goal's explanation names the extension operators they held by.
  const held = failure ? null : goal.held;
  const step = (verdict: GoalVerdict, detail: string, countChange = 0, newPivot: string | null = null): GoalStep => ({
    explanation: { goal_id: rule.id, goal_name: rule.name, verdict, detail: held ? `${detail}; criteria: ${held}` : detail },
    countChange,
    newPivot,
    completedNow: false,
  });
  if (failure) return step('criteria_failed', `criteria not met: ${describeFailure(failure)}`);
  if (g.completed) return step('already_complete', `already complete in this cycle (${g.count}/${rule.eventCount}); waits for the other goals`);

  const at = instance.occurredAt;
  if (rule.minTimeBetweenEvents !== null && rule.minTimeBetweenEvents > 0) {
    const windowMs = rule.minTimeBetweenEvents * 1000;
    const recent = g.countedAt.filter((t) => t > at - windowMs && t <= at);
    if (recent.length >= rule.minTimeBetweenEventsCount) {
      const until = Math.min(...recent) + windowMs;
      return step(
        'throttled',
        `throttled: ${recent.length} instance(s) already counted in the ${rule.minTimeBetweenEvents}s before ${iso(at)} ` +
          `(limit ${rule.minTimeBetweenEventsCount}); counts again from ${iso(until)}`,
      );
    }
  }

  const before = g.count;
  let verdict: GoalVerdict = 'counted';
  let detail: string;
  let newPivot: string | null = null;
  if (rule.consecutive) {
    const day = instance.day ?? localDay(at, timeZone);
    const gap = g.lastDay === null ? null : dayNumber(day) - dayNumber(g.lastDay);
    if (gap === 0) return step('same_day', `same customer-local day (${day}) already counted in the streak of ${g.count}`);
    if (gap !== null && gap < 0) return step('earlier_day', `day ${day} is before the last counted day ${g.lastDay}; a streak only moves forward`);
    if (gap === null || gap === 1) {
      g.count += 1;
      detail = gap === null ? `streak started on ${day}` : `streak continued on ${day}`;
    } else {
      g.count = 1;
      verdict = 'streak_restarted';
      detail = `streak restarted at 1 on ${day}: ${gap - 1} day(s) missed since ${g.lastDay}`;
    }
    g.lastDay = day;
  } else if (rule.type === 'unique') {
    const attribute = rule.uniqueAttribute ?? '';
    const raw = attribute in instance.attributes ? instance.attributes[attribute] : instance.context[attribute];
    if (raw === undefined || raw === null || typeof raw === 'object') {
      return step('missing_pivot', `no value for the unique attribute "${attribute}" in the event's attributes or context`);
    }
    const pivot = String(raw);
    if (g.pivots.includes(pivot)) return step('repeated_pivot', `${attribute}=${pivot} already counted in this cycle`);
    g.pivots.push(pivot);
    g.count = g.pivots.length;
    newPivot = pivot;
    detail = `new ${attribute}=${pivot}`;
  } else {
    if (!(instance.count > 0)) return step('ignored_count', `count ${instance.count} is not positive; nothing counted`);
    g.count = Math.min(rule.eventCount, g.count + instance.count);
    detail = `count +${instance.count}`;
  }

  if (rule.minTimeBetweenEvents !== null && rule.minTimeBetweenEvents > 0) {
    g.countedAt = [...g.countedAt, at].sort((a, b) => a - b).slice(-rule.minTimeBetweenEventsCount);
  }
  const completedNow = g.count >= rule.eventCount;
  if (completedNow) {
    g.count = rule.eventCount;
    g.completed = true;
  }
  const result = step(verdict, `${detail}: ${g.count}/${rule.eventCount}${completedNow ? ', goal complete' : ''}`, g.count - before, newPivot);
  result.completedNow = completedNow;
  return result;
}
