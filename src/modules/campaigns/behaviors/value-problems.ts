import { isPrototypeKey, PROTOTYPE_KEY_MESSAGE } from '../../../common/validation/reserved-names.js';

/**
 * What is wrong with one value of a behavior, or null when nothing is: the messages of behavior-validation.ts's checks
 * and of the built-in reward kinds' args classes (rewards/core-reward-args.ts), part of the API.
 */

export const MAX_INT = 2_147_483_647;

export const REQUIRED = 'is required';

export function intProblem(value: unknown, min: number, max = MAX_INT): string | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return null;
  return max === MAX_INT ? `must be an integer of at least ${min}` : `must be an integer from ${min} to ${max}`;
}

export function textProblem(value: unknown, max = 255): string | null {
  return typeof value === 'string' && value.length >= 1 && value.length <= max ? null : `must be a string of 1 to ${max} characters`;
}

/** A name of a behavior, goal, event or attribute: text that is not a prototype key (contract §18). */
export function nameProblem(value: unknown): string | null {
  return textProblem(value) ?? (isPrototypeKey(value) ? PROTOTYPE_KEY_MESSAGE : null);
}

export function positiveNumberProblem(value: unknown): string | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? null : 'must be a number greater than 0';
}
