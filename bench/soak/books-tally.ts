/** The soak's books (books.ts): the invariants, and the tally of what each checked and found violated. */
import type { SoakTenant } from './setup.js';

export interface Violation {
  invariant: string;
  detail: string;
}

export interface BooksReport {
  checked: Array<{ invariant: string; items: number; violations: number }>;
  violations: Violation[];
  /** What was not compared, and why (a simulation pair that did not read the same events, say): not violations. */
  notes: string[];
}

/** A simulation and its rerun on the same range after the drain. */
export interface SimulationPair {
  original: number;
  rerun: number;
}

export interface BooksExtra {
  simulationPairs?: SimulationPair[];
  /** How long past its expiry a credit with points left counts as missed by the expiry sweeper (default 30 s). */
  expirySlackSeconds?: number;
  /**
   * For the soak's model (books-model.ts): the organization as the setup built it, and an API process to ask each
   * customer's progress and points of. Without it the model's invariants check nothing.
   */
  model?: { tenant: SoakTenant; apiUrl: string };
}

/** The invariants, in the order the report lists them. */
export const INVARIANTS = {
  storedOnce: '2xx stored exactly once',
  storedAtMostOnce: 'no answer or 5xx: stored at most once',
  nothingOf4xx: '4xx or unasked: nothing stored',
  oneSubmissionPerKey: 'one submission per transaction id',
  processedOnce: 'events processed exactly once',
  eventCredits: "an event's credits = its points_earned",
  balance: 'ledger sum = available_points',
  lifetime: 'credits not reversed = lifetime_points',
  neverNegative: 'ledger never below zero',
  expiry: 'due credits expired, none beyond the balance',
  replayProgress: 'progress = replay',
  replayCompletions: 'completions, credits, campaigns = replay',
  budgets: 'budgets never passed, counters exact',
  deliveriesSettled: 'deliveries delivered or dead',
  deliveriesCommitted: 'deliveries only of committed changes',
  deliveriesReceived: 'delivered = received with a 2xx',
  outbox: 'every committed change has its deliveries',
  simulationsCompleted: 'simulations completed',
  simulationReruns: 'simulation = its rerun',
  modelInput: 'events stored as sent (name, customer)',
  modelProgress: "progress = the soak's model",
  modelPoints: "completions and points = the soak's model",
  simulationModel: "simulation = the soak's model",
} as const;

export type Invariant = (typeof INVARIANTS)[keyof typeof INVARIANTS];

/** How a request was answered: 2xx, it happened; no answer (0) or 5xx, it may have; any other 4xx, it must not have. */
export function answerOf(s: { status: number }): 'ok' | 'maybe' | 'refused' {
  if (s.status >= 200 && s.status < 300) return 'ok';
  return s.status === 0 || s.status >= 500 ? 'maybe' : 'refused';
}

/** Violations described per invariant at most (all are counted). */
const MAX_DETAILS = 20;
export const EVENT_KINDS = new Set(['v1', 'v1_hot', 'v1_async', 'v2']);
/** The marker of the setup's own events (back-dated credits): no request of the traffic carries it. */
export const SETUP_MARKER = 'setup';
/** Events stored this long before a simulation's run may still have been uncommitted when its snapshot was taken. */
export const IN_FLIGHT_MS = 30_000;

/** The tally of the checks: items and violations per invariant, the first MAX_DETAILS violations of each described. */
export class Books {
  private readonly counts = new Map<string, { items: number; violations: number }>(Object.values(INVARIANTS).map((name) => [name, { items: 0, violations: 0 }]));
  readonly violations: Violation[] = [];
  readonly notes: string[] = [];

  /** One item checked: a violation unless `ok`, described by `detail` (called only when it is kept). */
  check(invariant: Invariant, ok: boolean, detail: () => string): void {
    this.items(invariant, 1);
    if (!ok) this.fail(invariant, detail());
  }

  /** Items checked by a statement that answers only the violations. */
  items(invariant: Invariant, n: number): void {
    this.counts.get(invariant)!.items += n;
  }

  fail(invariant: Invariant, detail: string): void {
    const count = this.counts.get(invariant)!;
    count.violations += 1;
    if (count.violations <= MAX_DETAILS) this.violations.push({ invariant, detail });
  }

  report(): BooksReport {
    return { checked: [...this.counts].map(([invariant, c]) => ({ invariant, ...c })), violations: this.violations, notes: this.notes };
  }
}

/** A statement of books-sql.ts over the organization ($1), with its further parameters ($2...). */
export type Query = <T>(text: string, ...more: unknown[]) => Promise<T[]>;
