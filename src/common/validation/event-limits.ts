import { isPrototypeKey, PROTOTYPE_KEY_MESSAGE } from './reserved-names.js';
import { LIMIT_SETTINGS, limits } from '../../config/limits.js';

/**
 * Contract §18 on what an event carries: its name and the names of its attributes and context members are not
 * prototype keys, and each string value holds at most `limits().attributeLength` characters (LIMIT_ATTRIBUTE_LENGTH).
 * Each problem is the message that follows the field it names, or null.
 */

/** Characters as a person counts them (code points: an emoji is one), counted only as far as needed. */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false; // never fewer code units than code points
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++; // a surrogate pair
    if (++count > max) return true;
  }
  return false;
}

/** An event's name. */
export function eventNameProblem(name: string): string | null {
  return isPrototypeKey(name) ? PROTOTYPE_KEY_MESSAGE : null;
}

/** One member of an event's attributes or context: its name, and its value when a string. */
export function memberProblem(name: string, value: unknown): string | null {
  if (isPrototypeKey(name)) return `is refused: a member name ${PROTOTYPE_KEY_MESSAGE}`;
  const max = limits().attributeLength;
  if (typeof value === 'string' && longerThan(value, max)) return `must be at most ${max} characters (${LIMIT_SETTINGS.attributeLength.env})`;
  return null;
}

/** The first member of a flat object (attributes or context) over the limits, as [its name, the problem], or null. */
export function membersProblem(members: object): [string, string] | null {
  for (const [name, value] of Object.entries(members)) {
    const problem = memberProblem(name, value);
    if (problem) return [name, problem];
  }
  return null;
}
