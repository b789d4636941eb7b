import type { BooksReport } from './books-tally.js';
import { booksVerdicts, soakReport } from './report.js';

const books = (checked: Array<[string, number, number]>): BooksReport => ({
  checked: checked.map(([invariant, items, violations]) => ({ invariant, items, violations })),
  violations: checked.flatMap(([invariant, , violations]) => Array.from({ length: violations }, () => ({ invariant, detail: 'wrong' }))),
  notes: [],
});

describe("the soak's report: the books' verdicts", () => {
  it('is met when every invariant checked something and none was violated', () => {
    expect(booksVerdicts(books([['a', 3, 0], ['b', 1, 0]]))).toEqual([
      ['no invariant violated', true],
      ['every invariant checked something', true],
    ]);
  });

  it('an invariant that checked nothing is not met, and named', () => {
    expect(booksVerdicts(books([['a', 3, 0], ['b', 0, 0], ['c', 0, 0]]))).toEqual([
      ['no invariant violated', true],
      ['every invariant checked something (checked nothing: b; c)', false],
    ]);
  });

  it('a violation is not met, even one counted beyond the details kept', () => {
    const report = books([['a', 3, 0]]);
    report.checked[0].violations = 25;
    expect(booksVerdicts(report)[0]).toEqual(['no invariant violated', false]);
  });

  it('the report says "checked nothing" in the table and fails the run', () => {
    const memory = [0, 70_000, 130_000].map((at) => ({ at, kb: { 'api-0': 100_000 } }));
    const outcome = { seed: 1, minutes: 2, startedAt: 0, endedAt: 130_000, sent: [], skipped: 0, windows: [], memory, drainMs: 0 };
    const met = soakReport({ ...outcome, books: books([['a', 3, 0]]) });
    expect(met.met).toBe(true);
    const idle = soakReport({ ...outcome, books: books([['a', 3, 0], ['simulation = its rerun', 0, 0]]) });
    expect(idle.met).toBe(false);
    expect(idle.text).toContain('| simulation = its rerun | 0: checked nothing | 0 |');
    expect(idle.text).toContain('- every invariant checked something (checked nothing: simulation = its rerun): **NOT met**');
  });
});
