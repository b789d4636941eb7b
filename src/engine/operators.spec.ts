import { CRITERION_OPS } from './criteria.js';
import type { OperatorDefinition } from './definitions.js';
import { CORE_OPERATORS, criteriaOperators } from './operators.js';
import { behavior, campaign, event, goal, group, rules, Session } from './spec-fixtures.js';
import type { Criterion, EvaluationResult } from './index.js';

/** A team's operator: the attribute starts with the value (case-insensitive). */
const startsWith: OperatorDefinition = {
  name: 'starts_with',
  source: 'store-codes',
  description: 'The value starts with the given text, in any case',
  test: (actual, expected) => typeof actual === 'string' && typeof expected === 'string' && actual.toLowerCase().startsWith(expected.toLowerCase()),
};
const withStartsWith = criteriaOperators([...CORE_OPERATORS.values(), startsWith]);
// A criterion naming an operator outside the built-in names (a stored criterion is plain data).
const criterion = (op: string, value: unknown): Criterion => ({ field: 'store', op, value }) as unknown as Criterion;

function session(criteria: Criterion[], operators = withStartsWith) {
  const g = goal({ criteria, eventCount: 100 });
  const b = behavior({ groups: [group([g])] });
  const s = new Session(rules({ campaigns: [campaign({ behaviors: [b] })] }, { operators }));
  const verdict = (result: EvaluationResult) => result.explanation[0].campaigns[0].behaviors[0].goals[0];
  return { send: (store: string) => verdict(s.send(event('visit', { attributes: { store } }))), count: () => s.goalCount(b.id, g.id) };
}

describe('criteria operators as a registry', () => {
  it('holds the built-ins, defined by core, in the order the API documents', () => {
    expect([...CORE_OPERATORS.keys()]).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists', 'contains']);
    expect(CRITERION_OPS).toEqual([...CORE_OPERATORS.keys()]);
    expect([...CORE_OPERATORS.values()].every((op) => op.source === 'core')).toBe(true);
  });

  it('refuses two operators of one name, naming who defined each', () => {
    expect(() => criteriaOperators([...CORE_OPERATORS.values(), { ...startsWith, name: 'contains' }])).toThrow(
      'criteria operator "contains" is defined twice: by core and by store-codes',
    );
  });

  it('a registered operator decides a goal, and the explanation names the extension that defined it', () => {
    const { send, count } = session([criterion('starts_with', 'PAR')]);
    expect(send('paris-01').verdict).toBe('counted');
    const failed = send('lyon-02');
    expect(failed.verdict).toBe('criteria_failed');
    expect(failed.detail).toBe('criteria not met: store starts_with "PAR" failed (actual: "lyon-02", operator of store-codes)');
    expect(count()).toBe(1);
  });

  it('a criterion whose operator is not registered never holds, and says so', () => {
    const { send, count } = session([criterion('starts_with', 'PAR')], CORE_OPERATORS);
    const failed = send('paris-01');
    expect(failed.detail).toBe('criteria not met: store starts_with "PAR" failed (operator starts_with is not registered; actual: "paris-01")');
    expect(count()).toBe(0);
  });
});
