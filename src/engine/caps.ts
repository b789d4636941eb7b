import type { CompiledBehavior } from './compiled.js';
import { monthKey, startOfNextLocalMonth, startOfNextLocalYear, yearKey } from './time.js';
import type { BehaviorProgress } from './types.js';

export type CapKind = 'total' | 'period' | 'month' | 'year';

export interface CapReached {
  kind: CapKind;
  limit: number;
  /** When the behavior can progress again; null for the total cap (never). */
  until: number | null;
}

const YEAR_MS = 366 * 86_400_000;

function periodWindow(behavior: CompiledBehavior, at: number): { start: number; end: number; index: number } | null {
  const period = behavior.rule.period;
  if (!period || period <= 0) return null;
  const length = period * 1000;
  const index = Math.floor((at - behavior.campaign.rule.startsAt) / length);
  const start = behavior.campaign.rule.startsAt + index * length;
  return { start, end: start + length, index };
}

/** The use_same_period window an instant falls in, or null when the behavior has no period. */
export function windowIndex(behavior: CompiledBehavior, at: number): number | null {
  return periodWindow(behavior, at)?.index ?? null;
}

/** The first cap the behavior has reached at that instant (total first), or null. */
export function capReached(behavior: CompiledBehavior, p: BehaviorProgress, at: number, timeZone: string): CapReached | null {
  const r = behavior.rule;
  if (r.maxTimesAchievable !== null && p.achieved >= r.maxTimesAchievable) return { kind: 'total', limit: r.maxTimesAchievable, until: null };
  const window = periodWindow(behavior, at);
  if (r.maxTimesAchievablePerPeriod !== null && window) {
    const inWindow = p.completions.filter((t) => t >= window.start && t < window.end).length;
    if (inWindow >= r.maxTimesAchievablePerPeriod) return { kind: 'period', limit: r.maxTimesAchievablePerPeriod, until: window.end };
  }
  if (r.maxTimesAchievablePerMonth !== null) {
    const month = monthKey(at, timeZone);
    const inMonth = p.completions.filter((t) => monthKey(t, timeZone) === month).length;
    if (inMonth >= r.maxTimesAchievablePerMonth) return { kind: 'month', limit: r.maxTimesAchievablePerMonth, until: startOfNextLocalMonth(at, timeZone) };
  }
  if (r.maxTimesAchievablePerYear !== null) {
    const year = yearKey(at, timeZone);
    const inYear = p.completions.filter((t) => yearKey(t, timeZone) === year).length;
    if (inYear >= r.maxTimesAchievablePerYear) return { kind: 'year', limit: r.maxTimesAchievablePerYear, until: startOfNextLocalYear(at, timeZone) };
  }
  return null;
}

/** Drops completion times no periodic cap can look back at any more (relative to the latest one). */
export function pruneCompletions(behavior: CompiledBehavior, p: BehaviorProgress): void {
  const r = behavior.rule;
  let keepMs = 0;
  if (r.maxTimesAchievablePerPeriod !== null && r.period) keepMs = Math.max(keepMs, r.period * 1000);
  if (r.maxTimesAchievablePerMonth !== null || r.maxTimesAchievablePerYear !== null) keepMs = Math.max(keepMs, YEAR_MS);
  if (keepMs === 0) {
    p.completions = [];
    return;
  }
  const latest = Math.max(...p.completions);
  p.completions = p.completions.filter((t) => t > latest - keepMs).sort((a, b) => a - b);
}
