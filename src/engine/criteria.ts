import { guardOperator } from './bulkheads.js';
import type { CriterionFailure, Predicate } from './compiled.js';
import type { CriteriaOperators } from './definitions.js';
import { CORE_OPERATORS } from './operators.js';
import type { Criterion, CriterionOp } from './types.js';

export const CRITERION_OPS = [...CORE_OPERATORS.keys()] as readonly CriterionOp[];

/**
 * Compiles criteria once into a predicate over a subject, given how to read a dotted field from it, each criterion
 * bound to its operator in `operators`. A criterion whose operator is not registered (an extension no longer loaded)
 * never holds. `at` names the rule (`goal 12`): an extension operator's throw is an ExtensionFailure naming it.
 */
export function compileCriteria<T>(
  criteria: Criterion[],
  read: (subject: T, field: string) => unknown,
  operators: CriteriaOperators = CORE_OPERATORS,
  at = 'criteria',
): Predicate<T> {
  if (criteria.length === 0) return () => null;
  const checks = criteria.map((criterion) => {
    const registered = operators.get(criterion.op);
    const operator = registered && guardOperator(registered, at);
    return (subject: T): CriterionFailure | null => {
      const actual = read(subject, criterion.field);
      if (!operator) return { criterion, actual, unregistered: true };
      return operator.test(actual, criterion.value) ? null : { criterion, actual, operator };
    };
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
  const actual = `actual: ${failure.actual === undefined ? 'absent' : JSON.stringify(failure.actual)}`;
  if (failure.unregistered) return `${field} ${op} ${shown} failed (operator ${op} is not registered; ${actual})`;
  const source = failure.operator && failure.operator.source !== 'core' ? `, operator of ${failure.operator.source}` : '';
  return `${field} ${op} ${shown} failed (${actual}${source})`;
}

/**
 * What criteria that held owe the explanation: the extension operators that decided (`location within_km held,
 * operator of StoreRadiusModule`), null when only built-ins did. Built once per compiled rule.
 */
export function extensionsHeld(criteria: Criterion[], operators: CriteriaOperators): string | null {
  const named = criteria.flatMap(({ field, op }) => {
    const source = operators.get(op)?.source;
    return source && source !== 'core' ? [`${field} ${op} held, operator of ${source}`] : [];
  });
  return named.length ? named.join('; ') : null;
}
