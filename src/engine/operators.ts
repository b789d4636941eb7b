/**
 * Criteria operators as definitions: a name and a pure test, the built-ins defined the same way an extension defines
 * its own (issue #29, decision 0018). The engine knows operators only through a registry of them (CriteriaOperators)
 * of OperatorDefinition (definitions.ts).
 */
import { byName, type CriteriaOperators, type OperatorDefinition } from './definitions.js';

/** A registry of operators; two with one name is an error that names them. */
export function criteriaOperators(operators: readonly OperatorDefinition[]): CriteriaOperators {
  return byName('criteria operator', operators);
}

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

const missing = (value: unknown) => value === undefined || value === null;

/** A field holding a list (such as user.tags) matches when any element does. */
function some(actual: unknown, test: (value: unknown) => boolean): boolean {
  return Array.isArray(actual) ? actual.some(test) : test(actual);
}

const isIn = (actual: unknown, expected: unknown) => Array.isArray(expected) && some(actual, (v) => expected.some((e) => equals(v, e)));

const core = (name: string, description: string, test: OperatorDefinition['test']): OperatorDefinition => ({ name, source: 'core', description, test });
/** An ordering operator: false when the field is absent or the two values do not order (a number against a date). */
const ordering = (name: string, description: string, holds: (order: number) => boolean) =>
  core(name, description, (actual, expected) => {
    const order = missing(actual) ? null : compare(actual, expected);
    return order !== null && holds(order);
  });

/** The built-in operators, in the order the API documents them. */
export const CORE_OPERATORS: CriteriaOperators = criteriaOperators([
  core('eq', 'Equals the value; numbers and datetimes given as strings compare as numbers and instants', (actual, expected) => !missing(actual) && some(actual, (v) => equals(v, expected))),
  core('ne', 'Does not equal the value, or the field is absent', (actual, expected) => missing(actual) || !some(actual, (v) => equals(v, expected))),
  ordering('gt', 'Greater than the value', (order) => order > 0),
  ordering('gte', 'Greater than or equal to the value', (order) => order >= 0),
  ordering('lt', 'Less than the value', (order) => order < 0),
  ordering('lte', 'Less than or equal to the value', (order) => order <= 0),
  core('in', 'Equals one of the values (an array)', (actual, expected) => !missing(actual) && isIn(actual, expected)),
  core('nin', 'Equals none of the values (an array), or the field is absent', (actual, expected) => missing(actual) || !isIn(actual, expected)),
  core('exists', 'The field is present (value true, the default) or absent (false)', (actual, expected) => (expected ?? true) === !missing(actual)),
  core('contains', 'The text contains the value, or the list holds it', (actual, expected) => {
    if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
    return Array.isArray(actual) && actual.some((v) => equals(v, expected));
  }),
]);
