/**
 * Ceilings that cannot lie: every workload and every ceiling or baseline of a benchmark counts its errors and the
 * rows it stored. A ceiling (or baseline) that errors, or stores fewer rows than it should (nothing at all, most
 * often), is a broken benchmark: the phase ends with `FAILED` (a thrown BenchFailed), never a ratio. A workload's
 * errors and rows are printed; its targets are NOT met when it errors.
 */

/** What a workload, ceiling or baseline did: requests answered in error, and rows stored against the rows expected. */
export interface Tally {
  name: string;
  /** `ceiling` and `baseline` fail the run when they error or store less than expected; `workload` is reported. */
  role: 'workload' | 'ceiling' | 'baseline';
  errors: number;
  /** Rows found in the database afterwards (for a ceiling that stores nothing by design, its count of work done). */
  stored: number;
  /** What it should have stored (e.g. its successful requests × rows each); at least 1. */
  expected: number;
  /** What `stored` counts, for the printed line ("events", "ledger debits", "events replayed"...). */
  unit?: string;
}

export class BenchFailed extends Error {
  constructor(readonly problems: string[]) {
    super(`FAILED: ${problems.join('; ')}`);
    this.name = 'BenchFailed';
  }
}

/** Why this tally breaks its phase, or null: a ceiling or baseline that errors, or stores nothing or less than expected. */
export function problem(t: Tally): string | null {
  if (t.role === 'workload') return null;
  const why: string[] = [];
  if (t.errors > 0) why.push(`${t.errors} errors`);
  if (t.stored === 0) why.push(`nothing stored (expected ${t.expected} ${t.unit ?? 'rows'})`);
  else if (t.stored < t.expected) why.push(`${t.stored} ${t.unit ?? 'rows'} stored, ${t.expected} expected`);
  if (t.expected <= 0) why.push('no successful request to store anything');
  return why.length ? `${t.role} "${t.name}": ${why.join(', ')}` : null;
}

/** One line per tally: errors and rows stored against expected. */
export function tallyLines(tallies: Tally[]): string {
  return tallies
    .map((t) => {
      const verdict = problem(t) ? 'FAILED' : t.errors > 0 || t.stored < t.expected ? 'errors' : 'ok';
      const unit = t.unit ?? 'rows';
      // Read-only workloads count their answers, not rows.
      const stored = unit.startsWith('answers') ? unit : `${unit} stored`;
      return `${t.role} ${t.name}: ${t.errors} errors, ${t.stored.toLocaleString('en-US')} ${stored} of ${t.expected.toLocaleString('en-US')} expected (${verdict})\n`;
    })
    .join('');
}

/** Throws BenchFailed (naming each) when a ceiling or baseline errored or stored less than it should. */
export function checkTallies(tallies: Tally[]): void {
  const problems = tallies.map(problem).filter((p): p is string => p !== null);
  if (problems.length) throw new BenchFailed(problems);
}

/** Whether a workload's figure may count: no errors, and every row it should have stored. */
export const clean = (t: Tally): boolean => t.errors === 0 && t.stored >= t.expected && t.expected > 0;

/**
 * Runs a benchmark entry point: prints what it answers, or `FAILED: <why>` on stdout and exit code 1 when a phase
 * throws (a ceiling that lies, a backlog not processed, anything else).
 */
export async function runBench(run: () => Promise<string>): Promise<void> {
  try {
    process.stdout.write(await run());
  } catch (error) {
    process.exitCode = 1;
    const text = error instanceof BenchFailed ? error.message : `FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    process.stdout.write(`${text}\n`);
  }
}
