import { criteriaProblem, MAX_LIST_VALUES } from './criteria.js';

describe('criteriaProblem', () => {
  const list = (n: number) => Array.from({ length: n }, (_v, i) => `store-${i}`);

  it.each(['in', 'nin'])(`accepts an %s list of ${MAX_LIST_VALUES} values`, (op) => {
    expect(criteriaProblem([{ field: 'context.store', op, value: list(MAX_LIST_VALUES) }], 'goal')).toBeNull();
  });

  it.each(['in', 'nin'])(`refuses an %s list of more than ${MAX_LIST_VALUES} values, naming the criterion`, (op) => {
    const problem = criteriaProblem([{ field: 'user.lifetime_points', op: 'gte', value: 1 }, { field: 'user.tags', op, value: list(MAX_LIST_VALUES + 1) }], 'targeting');
    expect(problem).toBe(`[1].value may hold at most ${MAX_LIST_VALUES} values`);
  });
});
