import type { BehaviorProgress, ProgressMap } from './types.js';

/** A completion to undo: its behavior, and when it happened (the time of the event that caused it). */
export interface ReversedCompletion {
  behaviorId: number;
  at: number;
}

/**
 * Undoes completions (a reversal, contract §13): each takes one from its behavior's `achieved` (never below 0) and
 * drops one recorded completion at that instant, so the total cap and the periodic caps count it no more. Goal
 * progress is not rewound: the customer keeps what they did. Answers the progress of the behaviors it changed (new
 * objects; `progress` is not touched), how many completions it undid, and which (their indexes in `completions`).
 */
export function undoCompletions(progress: ProgressMap, completions: ReversedCompletion[]): { progress: ProgressMap; undone: number; which: number[] } {
  const changed: ProgressMap = {};
  let undone = 0;
  const which: number[] = [];
  for (const [index, c] of completions.entries()) {
    const before: BehaviorProgress | undefined = changed[c.behaviorId] ?? progress[c.behaviorId];
    if (!before || before.achieved === 0) continue;
    const at = before.completions.indexOf(c.at);
    changed[c.behaviorId] = {
      ...before,
      achieved: before.achieved - 1,
      completions: at === -1 ? before.completions : [...before.completions.slice(0, at), ...before.completions.slice(at + 1)],
    };
    undone += 1;
    which.push(index);
  }
  return { progress: changed, undone, which };
}
