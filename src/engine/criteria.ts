import type { Criterion, CriterionOp } from './types.js';

/** A compiled criterion list: true when every criterion holds on the subject. */
export type Predicate<T> = (subject: T) => CriterionFailure | null;

export interface CriterionFailure {
  criterion: Criterion;
  actual: unknown;
}

export const CRITERION_OPS: readonly CriterionOp[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists', 'contains'];

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z| ?[+-]\d{2}:?\d{2})?)?$/;

function asNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

/** An ISO datetime (or the seed's `2026-01-05 10:00:00 +0200`) as an instant; one without an offset is UTC. */
function asTime(value: unknown): number | null {
  if (typeof value !== 'string' || !ISO_DATETIME.test(value)) return null;
  let text = value.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T').replace(/ ?([+-]\d{2}):?(\d{2})$/, '$1:$2');
  if (text.length > 10 && !/(Z|[+-]\d{2}:\d{2})$/.test(text)) text += 'Z';
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

/** Orders two values: numerically when both are numbers, by instant when both are datetimes; else null. */
function compare(a: unknown, b: unknown): number | null {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== null && nb !== null) return na - nb;
  const ta = asTime(a);
  const tb = asTime(b);
  if (ta !== null && tb !== null) return ta - tb;
  return null;
}

function equals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'boolean' || typeof b === 'boolean') return false;
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== null && nb !== null) return na === nb;
  const ta = asTime(a);
  return ta !== null && ta === asTime(b);
}

/** A field holding a list (such as user.tags) matches when any element does. */
function some(actual: unknown, test: (value: unknown) => boolean): boolean {
  return Array.isArray(actual) ? actual.some(test) : test(actual);
}

export function holds(op: CriterionOp, actual: unknown, expected: unknown): boolean {
  const missing = actual === undefined || actual === null;
  switch (op) {
    case 'exists':
      return (expected ?? true) === !missing;
    case 'ne':
      return missing || !some(actual, (v) => equals(v, expected));
    case 'nin':
      return missing || !some(actual, (v) => Array.isArray(expected) && expected.some((e) => equals(v, e)));
    default:
      break;
  }
  if (missing) return false;
  switch (op) {
    case 'eq':
      return some(actual, (v) => equals(v, expected));
    case 'in':
      return Array.isArray(expected) && some(actual, (v) => expected.some((e) => equals(v, e)));
    case 'contains':
      if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
      return Array.isArray(actual) && actual.some((v) => equals(v, expected));
    default: {
      const order = compare(actual, expected);
      if (order === null) return false;
      if (op === 'gt') return order > 0;
      if (op === 'gte') return order >= 0;
      if (op === 'lt') return order < 0;
      return order <= 0;
    }
  }
}

/** Compiles criteria once into a predicate over a subject, given how to read a dotted field from it. */
export function compileCriteria<T>(criteria: Criterion[], read: (subject: T, field: string) => unknown): Predicate<T> {
  if (criteria.length === 0) return () => null;
  const checks = criteria.map((criterion) => (subject: T): CriterionFailure | null => {
    const actual = read(subject, criterion.field);
    return holds(criterion.op, actual, criterion.value) ? null : { criterion, actual };
  });
  return (subject) => {
    for (const check of checks) {
      const failure = check(subject);
      if (failure) return failure;
    }
    return null;
  };
}

export function describeFailure(failure: CriterionFailure): string {
  const { field, op, value } = failure.criterion;
  const shown = op === 'exists' ? String(value ?? true) : JSON.stringify(value);
  return `${field} ${op} ${shown} failed (actual: ${failure.actual === undefined ? 'absent' : JSON.stringify(failure.actual)})`;
}
