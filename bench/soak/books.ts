/**
 * The soak's books, checked once the traffic has stopped and the workers have drained (issue #31, item 3): for one
 * organization of the soak's own database, every invariant with how many items it checked and how many violated,
 * and the violations (at most MAX_DETAILS described per invariant). Nothing is written. The statements are in
 * books-sql.ts; what each invariant compares, and why, is said where it is checked.
 */
import pg from 'pg';
import type { Queryable } from '../../src/common/database/unit-of-work.js';
import {
  compileRules,
  CORE_EXTENSIONS,
  emptyBehaviorProgress,
  perform,
  undoCompletions,
  type CompiledRules,
  type CustomerSnapshot,
  type EvaluationResult,
  type EventInstance,
  type ProgressMap,
} from '../../src/engine/index.js';
import { toRuleSet } from '../../src/modules/campaigns/rules/rule-set.mapper.js';
import { RulesRepository } from '../../src/modules/campaigns/rules/rules.repository.js';
import { customerSnapshot, PROFILE_COLUMNS, storedInstance, type ProfileRow } from '../../src/modules/evaluation/evaluation.repository.js';
import { evaluateNext, type ReplayedCustomer } from '../../src/modules/evaluation/history-replay.js';
import { canonical } from '../support/simulation-replay.js';
import * as sql from './books-sql.js';
import type { WebhookReceiver } from './receiver.js';
import type { Sent } from './record.js';

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
} as const;

type Invariant = (typeof INVARIANTS)[keyof typeof INVARIANTS];

/** Violations described per invariant at most (all are counted). */
const MAX_DETAILS = 20;
const EVENT_KINDS = new Set(['v1', 'v1_hot', 'v1_async', 'v2']);
/** The marker of the setup's own events (back-dated credits): no request of the traffic carries it. */
const SETUP_MARKER = 'setup';
/** Events stored this long before a simulation's run may still have been uncommitted when its snapshot was taken. */
const IN_FLIGHT_MS = 30_000;

/** The tally of the checks: items and violations per invariant, the first MAX_DETAILS violations of each described. */
class Books {
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

/**
 * Checks the organization's books (see the module's comment). `sent` is every request the traffic made, `receiver`
 * the webhook receiver's record; `extra.simulationPairs` the reruns the lead started after the drain. A section that
 * cannot run (a statement failing) is one violation of its first invariant, naming the error; the others still run.
 */
export async function checkBooks(db: pg.Pool, organizationId: number, sent: Sent[], receiver: WebhookReceiver, extra: BooksExtra = {}): Promise<BooksReport> {
  const books = new Books();
  const q: Query = async <T>(text: string, ...more: unknown[]): Promise<T[]> => (await db.query(text, [organizationId, ...more])).rows as T[];
  const sections: Array<[Invariant, () => Promise<unknown>]> = [
    [INVARIANTS.storedOnce, () => checkSubmissions(q, sent, books)],
    [INVARIANTS.processedOnce, () => checkEvents(q, books)],
    [INVARIANTS.balance, () => checkLedger(q, books, extra.expirySlackSeconds ?? 30)],
    [INVARIANTS.replayProgress, () => checkReplay(db, organizationId, q, books)],
    [INVARIANTS.deliveriesSettled, () => checkWebhooks(q, receiver, books)],
    [INVARIANTS.simulationsCompleted, () => checkSimulations(q, extra.simulationPairs ?? [], books)],
  ];
  let replayed: Map<number, number> | null = null;
  for (const [first, run] of sections) {
    try {
      const out = await run();
      if (first === INVARIANTS.replayProgress) replayed = out as Map<number, number>;
    } catch (error) {
      books.fail(first, `the check could not run: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  try {
    await checkBudgets(q, replayed, books);
  } catch (error) {
    books.fail(INVARIANTS.budgets, `the check could not run: ${error instanceof Error ? error.message : String(error)}`);
  }
  return books.report();
}

/** A statement of books-sql.ts over the organization ($1), with its further parameters ($2...). */
type Query = <T>(text: string, ...more: unknown[]) => Promise<T[]>;

// ---------------------------------------------------------------------------------------------------------------
// 1 and 3: what each request stored.

type Answer = 'ok' | 'maybe' | 'refused';

/** 2xx: it happened; no answer (0) or 5xx: it may have; any other 4xx: it must not have. */
function answer(s: Sent): Answer {
  if (s.status >= 200 && s.status < 300) return 'ok';
  return s.status === 0 || s.status >= 500 ? 'maybe' : 'refused';
}

/** Requests that name the same thing (a marker, a transaction id), and what the database holds under it. */
interface Group {
  what: string;
  /** The requests that asked for it; `repeats`: those sent as repeats of a key already answered 2xx (a 409 expected). */
  first: Sent[];
  repeats: Sent[];
  /** Rows found under it. */
  stored: number;
  /** Rows one request of the group should have stored. */
  want: (s: Sent) => number;
  /** What is wrong with the stored rows themselves (a debit of another amount), or null. */
  problem?: string | null;
}

/**
 * One group judged: with a request answered 2xx, exactly what it asked for is stored (and only one request of the
 * group was answered 2xx); else, with one unanswered or answered 5xx, nothing or exactly what one of those asked for
 * (never twice); else nothing. A repeat answered 2xx is a violation of its own: the key was accepted twice.
 */
function judge(books: Books, g: Group): void {
  const statuses = [...g.first, ...g.repeats].map((s) => s.status).join(',');
  const ok = g.first.filter((s) => answer(s) === 'ok');
  const maybe = g.first.filter((s) => answer(s) === 'maybe');
  const tell = (expected: string) => () => `${g.what} (answered ${statuses}): ${g.stored} stored, ${expected}${g.problem ? `; ${g.problem}` : ''}`;
  if (ok.length > 0) {
    books.check(INVARIANTS.storedOnce, ok.length === 1 && g.stored === g.want(ok[0]) && !g.problem, tell(`${g.want(ok[0])} expected${ok.length > 1 ? ', and 2xx answered more than once' : ''}`));
  } else if (maybe.length > 0) {
    const wants = [...new Set(maybe.map(g.want))];
    books.check(INVARIANTS.storedAtMostOnce, (g.stored === 0 || wants.includes(g.stored)) && !g.problem, tell(`0 or ${wants.join(' or ')} expected`));
  } else if (g.first.length > 0) {
    books.check(INVARIANTS.nothingOf4xx, g.stored === 0, tell('0 expected'));
  }
  for (const r of g.repeats) books.check(INVARIANTS.nothingOf4xx, answer(r) !== 'ok', () => `${g.what}: a repeat of a used key answered ${r.status}`);
}

/** The requests by a key, in the order sent. */
function groupBy(sent: Sent[], key: (s: Sent) => string | undefined): Map<string, Sent[]> {
  const groups = new Map<string, Sent[]>();
  for (const s of sent) {
    const k = key(s);
    if (k !== undefined) groups.set(k, [...(groups.get(k) ?? []), s]);
  }
  return groups;
}

/**
 * Invariants 1 and 3, request by request:
 * - an event submission (V1 sync, hot, async; V2) by its marker: `instances` rows (its instances share the marker);
 * - the event transaction ids (V1 and perform share them under an api key): the rows under the id are those of the
 *   one submission answered 2xx (a refused repeat adds none), perform's being one `perform` row;
 * - a debit by its transaction id: one `debit` entry of minus the points asked;
 * - a reversal by the transaction id it reversed: one `event_reversals` row, whose ledger entry (named by
 *   `source.transaction_id`; none when it took 0 points) is minus its points; a repeat (409 already_reversed) adds none;
 * - anything stored that no request carried (a marker, a debit's or reversal's id): a violation too.
 * Then, over the database alone: every event transaction id holds one submission (one request id) and is claimed in
 * event_transactions, and no claimed id is without its events.
 */
async function checkSubmissions(q: Query, sent: Sent[], books: Books): Promise<void> {
  const [markers, eventKeys, debits, reversals, unclaimedKeys] = await Promise.all([
    q<{ marker: string | null; n: number }>(sql.MARKERS),
    q<{ api_key_id: number; transaction_id: string; n: number; submissions: number; performs: number; claimed: boolean }>(sql.EVENT_TRANSACTIONS),
    q<{ transaction_id: string; n: number; amount: string }>(sql.DEBITS),
    q<{ transaction_id: string; customer_id: string; points: number; entries: number; amount: string }>(sql.REVERSALS),
    q<{ api_key_id: number; transaction_id: string }>(sql.CLAIMED_WITHOUT_EVENTS),
  ]);
  const byMarker = new Map(markers.map((m) => [m.marker, m.n]));
  const byEventKey = new Map<string, { n: number; performs: number }>();
  for (const k of eventKeys) {
    const seen = byEventKey.get(k.transaction_id) ?? { n: 0, performs: 0 };
    byEventKey.set(k.transaction_id, { n: seen.n + k.n, performs: seen.performs + k.performs });
  }
  const byDebit = new Map(debits.map((d) => [d.transaction_id, d]));
  const byReversal = new Map(reversals.map((r) => [r.transaction_id, r]));

  const events = sent.filter((s) => EVENT_KINDS.has(s.kind));
  for (const [marker, group] of groupBy(events, (s) => s.marker)) {
    judge(books, { what: `${group[0].kind} submission ${marker}`, first: group, repeats: [], stored: byMarker.get(marker) ?? 0, want: (s) => s.instances ?? 1 });
  }
  const keyed = sent.filter((s) => (EVENT_KINDS.has(s.kind) || s.kind === 'perform') && s.transactionId !== undefined);
  for (const [tx, group] of groupBy(keyed, (s) => s.transactionId)) {
    const rows = byEventKey.get(tx) ?? { n: 0, performs: 0 };
    const performs = group.some((s) => s.kind === 'perform');
    judge(books, {
      what: `${group[0].kind} transaction ${tx}`,
      first: group.filter((s) => !s.repeat),
      repeats: group.filter((s) => s.repeat),
      stored: rows.n,
      want: (s) => (s.kind === 'perform' ? 1 : (s.instances ?? 1)),
      problem: performs && rows.performs !== rows.n ? `${rows.n - rows.performs} of its rows are not perform's` : null,
    });
  }
  for (const [tx, group] of groupBy(sent.filter((s) => s.kind === 'debit'), (s) => s.transactionId)) {
    const row = byDebit.get(tx);
    const asked = group.find((s) => answer(s) !== 'refused')?.points;
    judge(books, {
      what: `debit ${tx}`,
      first: group,
      repeats: [],
      stored: row?.n ?? 0,
      want: () => 1,
      problem: row && asked !== undefined && Number(row.amount) !== -asked ? `its entry is ${row.amount}, ${-asked} asked` : null,
    });
  }
  for (const [tx, group] of groupBy(sent.filter((s) => s.kind === 'reversal'), (s) => s.transactionId)) {
    const row = byReversal.get(tx);
    const entries = row ? (row.points > 0 ? 1 : 0) : 0;
    judge(books, {
      what: `reversal of ${tx}`,
      first: group.filter((s) => !s.repeat),
      repeats: group.filter((s) => s.repeat),
      stored: row ? 1 : 0,
      want: () => 1,
      problem: row && (row.entries !== entries || Number(row.amount) !== -row.points) ? `${row.entries} ledger entries of ${row.amount} for a reversal of ${row.points} points` : null,
    });
  }
  // Stored, yet asked by no request.
  const asked = (kind: (s: Sent) => boolean, key: (s: Sent) => string | undefined) => new Set(sent.filter(kind).map(key));
  const markersAsked = asked((s) => EVENT_KINDS.has(s.kind), (s) => s.marker);
  for (const m of markers) {
    if (m.marker === SETUP_MARKER || m.marker === null) continue;
    books.check(INVARIANTS.nothingOf4xx, markersAsked.has(m.marker), () => `${m.n} events stored under marker ${m.marker}, which no request carried`);
  }
  const debitsAsked = asked((s) => s.kind === 'debit', (s) => s.transactionId);
  for (const d of debits) books.check(INVARIANTS.nothingOf4xx, debitsAsked.has(d.transaction_id), () => `debit ${d.transaction_id} stored, which no request asked for`);
  const reversalsAsked = asked((s) => s.kind === 'reversal', (s) => s.transactionId);
  for (const r of reversals) books.check(INVARIANTS.nothingOf4xx, reversalsAsked.has(r.transaction_id), () => `reversal of ${r.transaction_id} stored, which no request asked for`);

  for (const k of eventKeys) {
    books.check(INVARIANTS.oneSubmissionPerKey, k.submissions <= 1 && k.claimed, () =>
      `transaction ${k.transaction_id} (api key ${k.api_key_id}): ${k.n} events of ${k.submissions} submissions${k.claimed ? '' : ', the key not claimed in event_transactions'}`,
    );
  }
  books.items(INVARIANTS.oneSubmissionPerKey, unclaimedKeys.length);
  for (const k of unclaimedKeys) books.fail(INVARIANTS.oneSubmissionPerKey, `transaction ${k.transaction_id} (api key ${k.api_key_id}) claimed, no event stored under it`);
}

// ---------------------------------------------------------------------------------------------------------------
// 2: every event processed exactly once.

/**
 * Invariant 2: no event is left pending, failed (its job out of attempts), rejected (the soak names only existing
 * customers) or processed without a time, and none was marked twice (`attempts` > 1: the worker marks an event only
 * while it is pending, once; V1 sync and perform rows are inserted processed, attempts 0); and every event's ledger
 * credits sum to its `points_earned` (a credit written twice, or lost, shows).
 */
async function checkEvents(q: Query, books: Books): Promise<void> {
  const [statuses, unsettled, unbalanced] = await Promise.all([
    q<{ status: string; n: number }>(sql.EVENT_STATUSES),
    q<{ id: string; status: string; reason: string | null; source: string; attempts: number; processed_at: Date | null; created_at: Date; marker: string | null }>(sql.UNSETTLED_EVENTS),
    q<{ id: string; earned: string; credited: string }>(sql.UNBALANCED_EVENTS),
  ]);
  const total = statuses.reduce((sum, s) => sum + s.n, 0);
  books.items(INVARIANTS.processedOnce, total);
  for (const e of unsettled) {
    books.fail(
      INVARIANTS.processedOnce,
      `event ${e.id} (${e.source}, marker ${e.marker}, stored ${e.created_at.toISOString()}): ${e.status}${e.reason ? ` (${e.reason})` : ''}, attempts ${e.attempts}, processed_at ${e.processed_at?.toISOString() ?? 'null'}`,
    );
  }
  if (unsettled.length === 1000) books.notes.push('events processed exactly once: at least 1,000 violations (only the first 1,000 read)');
  books.items(INVARIANTS.eventCredits, total);
  for (const e of unbalanced) books.fail(INVARIANTS.eventCredits, `event ${e.id}: points_earned ${e.earned}, its ledger credits ${e.credited}`);
  if (unbalanced.length === 1000) books.notes.push("an event's credits = its points_earned: at least 1,000 violations (only the first 1,000 read)");
}

// ---------------------------------------------------------------------------------------------------------------
// 4: each customer's ledger.

/**
 * Invariant 4, per customer:
 * - the ledger sums to `available_points`;
 * - `lifetime_points` = the credits not reversed (`reversed_at` null). Not "credits minus reversal entries": a reversal
 *   takes the submission's whole credits off lifetime_points, but off the balance only as far as it goes (its entry
 *   is minus min(credited, available): docs/points.md, reversal.repository.ts), so the entries can be smaller;
 * - the running sum of the ledger in id order never goes below zero (ids are taken under the customer's lock, so id
 *   order is the order the entries were made in);
 * - what is left to expire (`remaining`) never exceeds the balance (a later expiry would take more than is there), and
 *   no credit is still unexpired more than `slackSeconds` after its expiry (the sweeper runs every 5 s).
 */
async function checkLedger(q: Query, books: Books, slackSeconds: number): Promise<void> {
  const [customers, overdue, [expiring]] = await Promise.all([
    q<{ id: string; external_id: string; available: string; lifetime: string; ledger: string; unreversed: string; credits: string; reversals: string; expiring: string; lowest: string }>(
      sql.CUSTOMER_BOOKS,
    ),
    q<{ id: string; customer_id: string; remaining: number; expires_at: Date }>(sql.OVERDUE_CREDITS, slackSeconds),
    q<{ n: number }>(sql.EXPIRING_CREDITS),
  ]);
  for (const c of customers) {
    const who = `customer ${c.external_id} (${c.id})`;
    books.check(INVARIANTS.balance, Number(c.ledger) === Number(c.available), () => `${who}: available_points ${c.available}, ledger sum ${c.ledger}`);
    books.check(INVARIANTS.lifetime, Number(c.unreversed) === Number(c.lifetime), () => `${who}: lifetime_points ${c.lifetime}, credits not reversed ${c.unreversed} (all credits ${c.credits}, reversal entries ${c.reversals})`);
    books.check(INVARIANTS.neverNegative, Number(c.lowest) >= 0, () => `${who}: the ledger's running sum reaches ${c.lowest}`);
    books.check(INVARIANTS.expiry, Number(c.expiring) <= Number(c.available), () => `${who}: ${c.expiring} points left to expire, ${c.available} available`);
  }
  books.items(INVARIANTS.expiry, expiring.n);
  for (const l of overdue) books.fail(INVARIANTS.expiry, `credit ${l.id} of customer ${l.customer_id}: ${l.remaining} points left, due ${l.expires_at.toISOString()}`);
}

// ---------------------------------------------------------------------------------------------------------------
// 5: progress and achievements replayed through the engine.

interface EventRow {
  id: string;
  customer_id: string;
  api_key_id: number;
  transaction_id: string | null;
  source: string;
  name: string;
  count: string;
  attributes: Record<string, unknown>;
  context: EventInstance['context'];
  occurred_ms: number;
  processed_ms: number | null;
  campaign_id: number | null;
  qualify: boolean;
  reason: string | null;
  result: { completions?: Array<{ campaign_id: number; behavior_id: number }> } | null;
  multi_org_enabled: boolean;
}

interface ReversalRow {
  customer_id: string;
  api_key_id: number;
  transaction_id: string;
  at_ms: number;
}

/** What the replay of one customer gave. */
interface Replayed extends ReplayedCustomer {
  completions: Map<number, number>;
  credits: Map<number, number>;
  /** Perform rows the engine refused on replay (the live one succeeded). */
  refused: string[];
}

/**
 * The customer as the soak created it, before any of its events: its profile now (time zone, division, tags and
 * attributes: the soak's rules change none of them), with no points, no tier and no campaign qualified or completed.
 */
function startOf(now: CustomerSnapshot): CustomerSnapshot {
  return { ...now, availablePoints: 0, lifetimePoints: 0, tierId: null, tierFloorId: null, tierReviewAt: null, tierFacts: undefined, qualifiedCampaignIds: [], completedCampaignIds: [] };
}

/** Event ids (bigint text) in numeric order. */
const byId = (a: { id: string }, b: { id: string }) => (a.id.length - b.id.length) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A customer's events in the order they were evaluated live. Rows come by `processed_at` (the evaluating
 * transaction's start), then as a worker's batch takes them; V1 sync and perform rows are inserted under the customer's lock, so among themselves their
 * ids are the lock's order, which `processed_at` (taken before the lock was waited for) may not be: their places in
 * the list are kept and filled with them in id order. Events the workers evaluated keep `processed_at` order.
 */
function liveOrder(events: EventRow[]): EventRow[] {
  const locked = (e: EventRow) => e.source === 'v1' || e.source === 'perform';
  const places = events.flatMap((e, i) => (locked(e) ? [i] : []));
  const inIdOrder = places.map((i) => events[i]).sort(byId);
  const out = events.slice();
  places.forEach((place, k) => (out[place] = inIdOrder[k]));
  return out;
}

/**
 * Replays one customer: each event through the engine as the events worker evaluates it (evaluateNext, the step
 * HistoryReplay and the worker share), at the time it was evaluated live and with no budget (a budget is judged
 * apart, below); perform's rows through the engine's perform(), as PerformUseCase does; each reversal where it
 * happened (by its time), undoing the completions its submission's events made in this replay (undoCompletions, as
 * ReversalUseCase does: `achieved` goes down, goal progress stays). Debits and expiry change no progress, and the
 * soak's rules read no balance, so they are not replayed.
 */
function replayCustomer(rules: CompiledRules, start: CustomerSnapshot, events: EventRow[], reversals: ReversalRow[]): Replayed {
  const state: Replayed = { snapshot: start, progress: {}, completions: new Map(), credits: new Map(), refused: [] };
  const made = new Map<string, Array<{ behaviorId: number; at: number }>>();
  const record = (e: EventRow, result: Pick<EvaluationResult, 'customer' | 'progress' | 'completions' | 'credits'>) => {
    state.snapshot = result.customer;
    Object.assign(state.progress, result.progress);
    made.set(e.id, result.completions.map((c) => ({ behaviorId: c.behaviorId, at: e.occurred_ms })));
    for (const c of result.completions) state.completions.set(c.behaviorId, (state.completions.get(c.behaviorId) ?? 0) + 1);
    for (const c of result.credits) state.credits.set(c.behaviorId, (state.credits.get(c.behaviorId) ?? 0) + c.amount);
  };
  const reverse = (r: ReversalRow) => {
    const undone = events.filter((e) => e.api_key_id === r.api_key_id && e.transaction_id === r.transaction_id).flatMap((e) => made.get(e.id) ?? []);
    Object.assign(state.progress, undoCompletions(state.progress, undone).progress);
  };
  let next = 0;
  for (const e of liveOrder(events)) {
    const at = e.processed_ms ?? e.occurred_ms;
    while (next < reversals.length && reversals[next].at_ms < at) reverse(reversals[next++]);
    const instance = storedInstance(e, e.occurred_ms);
    if (e.source === 'perform') {
      const result = perform({ rules, customer: state.snapshot, progress: state.progress, campaignId: e.campaign_id ?? 0, now: e.occurred_ms, multiOrgEnabled: e.multi_org_enabled, budgets: {}, instance });
      if (result.failure) state.refused.push(`perform event ${e.id}: ${result.failure.detail}`);
      else record(e, result);
      continue;
    }
    // A stored event scoped to a campaign no longer live: the worker evaluates nothing (No_active_campaign_found).
    if (e.campaign_id !== null && !rules.campaigns.has(e.campaign_id)) continue;
    const result = evaluateNext(rules, state, { instance, qualify: e.qualify, campaignId: e.campaign_id }, { now: at, multiOrgEnabled: e.multi_org_enabled, budgets: {}, explain: false });
    record(e, result);
  }
  while (next < reversals.length) reverse(reversals[next++]);
  return state;
}

/** A progress value as JSON compares it (jsonb drops nothing, orders keys: canonical() sorts them). */
const asStored = (value: unknown) => canonical(JSON.parse(JSON.stringify(value ?? emptyBehaviorProgress())));

/**
 * Invariant 5: the organization's processed events (and perform's rows, and the reversals) replayed through the
 * engine with the current rules (RulesRepository.load + compileRules, as live evaluation compiles them; the soak's rule
 * changes only add and remove behaviors on an event nobody sends, so the current rules give what the live ones gave),
 * customer by customer from the customer as created (startOf), compared with the stored rows:
 * - per customer and behavior, the progress row (`state`, compared as JSON whole: goal counts, `achieved`, kept
 *   completion times, window) and its `achieved` column against the replay's, after the reversals' undoing;
 * - per customer and behavior, the completions in the stored events' results and the ledger credits of the behavior
 *   against those the replay made (reversals take neither back: the results and credits stay, only `achieved` and
 *   `reversed_at` change);
 * - per customer, `completed_campaign_ids` against the replay's.
 * A behavior of a campaign with a budget may have been refused completions live that the replay (no budget) makes: for
 * it the stored `achieved`, completions and credits must be at most the replay's (its progress state is not compared:
 * a refused completion leaves the behavior as it was before the event), and its campaign completed live only if in the
 * replay too. Answers the replay's completions per campaign, for the budgets' check.
 */
async function checkReplay(db: pg.Pool, organizationId: number, q: Query, books: Books): Promise<Map<number, number>> {
  const queryable: Queryable = { query: async (text, values) => (await db.query(text, values)).rows };
  const rules = compileRules(toRuleSet(await new RulesRepository().load(queryable, organizationId)), CORE_EXTENSIONS);
  const [profiles, events, reversals, progressRows, creditRows] = await Promise.all([
    q<ProfileRow>(`SELECT ${PROFILE_COLUMNS} FROM customers c WHERE c.organization_id = $1 ORDER BY c.id`),
    q<EventRow>(sql.REPLAYED_EVENTS),
    q<ReversalRow>(sql.REPLAYED_REVERSALS),
    q<{ customer_id: string; behavior_id: number; state: unknown; achieved: number }>(sql.PROGRESS_ROWS),
    q<{ customer_id: string; behavior_id: number | null; points: string }>(sql.CREDITS_BY_BEHAVIOR),
  ]);
  const perCustomer = <T extends { customer_id: string }>(rows: T[]) => {
    const out = new Map<string, T[]>();
    for (const r of rows) out.set(r.customer_id, [...(out.get(r.customer_id) ?? []), r]);
    return out;
  };
  const [eventsOf, reversalsOf, progressOf, creditsOf] = [perCustomer(events), perCustomer(reversals), perCustomer(progressRows), perCustomer(creditRows)];
  const budgeted = (behaviorId: number) => rules.behaviors.get(behaviorId)?.campaign.rule.budget != null;
  const replayedByCampaign = new Map<number, number>();
  let foreign = 0;

  for (const profile of profiles) {
    const now = customerSnapshot(profile);
    const who = `customer ${profile.external_id}`;
    const replay = replayCustomer(rules, startOf(now), eventsOf.get(profile.id) ?? [], reversalsOf.get(profile.id) ?? []);
    for (const refused of replay.refused) books.fail(INVARIANTS.replayCompletions, `${who}: ${refused}, which succeeded live`);

    const stored = new Map((progressOf.get(profile.id) ?? []).map((p) => [p.behavior_id, p]));
    const storedCompletions = new Map<number, number>();
    for (const e of eventsOf.get(profile.id) ?? []) {
      for (const c of e.result?.completions ?? []) storedCompletions.set(c.behavior_id, (storedCompletions.get(c.behavior_id) ?? 0) + 1);
    }
    const storedCredits = new Map((creditsOf.get(profile.id) ?? []).map((c) => [c.behavior_id ?? 0, Number(c.points)]));
    const behaviors = new Set([...stored.keys(), ...Object.keys(replay.progress).map(Number), ...storedCompletions.keys(), ...replay.completions.keys(), ...storedCredits.keys()]);
    for (const id of behaviors) {
      if (!rules.behaviors.has(id)) {
        foreign += 1;
        continue;
      }
      const name = `${who}, behavior ${rules.behaviors.get(id)!.rule.name} (${id})`;
      const row = stored.get(id);
      const mine = replay.progress[id] as ProgressMap[number] | undefined;
      const [liveAchieved, replayedAchieved] = [row?.achieved ?? 0, mine?.achieved ?? 0];
      if (row || mine) {
        if (budgeted(id)) {
          books.check(INVARIANTS.replayProgress, liveAchieved <= replayedAchieved && liveAchieved === ((row?.state as { achieved?: number } | undefined)?.achieved ?? 0), () =>
            `${name} (budgeted): achieved ${liveAchieved} stored, ${replayedAchieved} replayed (at most that expected)`,
          );
        } else {
          const [a, b] = [asStored(row?.state), asStored(mine)];
          books.check(INVARIANTS.replayProgress, a === b && liveAchieved === replayedAchieved, () => `${name}: stored achieved ${liveAchieved} ${a}, replayed achieved ${replayedAchieved} ${b}`);
        }
      }
      const [lc, rc] = [storedCompletions.get(id) ?? 0, replay.completions.get(id) ?? 0];
      const [lp, rp] = [storedCredits.get(id) ?? 0, replay.credits.get(id) ?? 0];
      if (lc || rc || lp || rp) {
        const fits = budgeted(id) ? lc <= rc && lp <= rp : lc === rc && lp === rp;
        books.check(INVARIANTS.replayCompletions, fits, () => `${name}${budgeted(id) ? ' (budgeted: at most the replay)' : ''}: ${lc} completions and ${lp} points stored, ${rc} and ${rp} replayed`);
      }
      const campaignId = rules.behaviors.get(id)!.campaign.rule.id;
      replayedByCampaign.set(campaignId, (replayedByCampaign.get(campaignId) ?? 0) + rc);
    }
    const [live, replayed] = [new Set(now.completedCampaignIds), new Set(replay.snapshot.completedCampaignIds)];
    if (live.size || replayed.size) {
      const budgetCampaign = (id: number) => rules.campaigns.get(id)?.rule.budget != null;
      const fits = [...live].every((id) => replayed.has(id)) && [...replayed].every((id) => live.has(id) || budgetCampaign(id));
      books.check(INVARIANTS.replayCompletions, fits, () => `${who}: campaigns completed ${[...live].join(',') || 'none'} stored, ${[...replayed].join(',') || 'none'} replayed`);
    }
  }
  if (foreign > 0) books.notes.push(`progress replay: ${foreign} (customer, behavior) pairs of behaviors no longer in the rules were not compared`);
  return replayedByCampaign;
}

// ---------------------------------------------------------------------------------------------------------------
// 6: budgets.

/**
 * Invariant 6, per campaign with a budget, from the stored rows rather than only its counters: the completions in the
 * events' results of submissions not reversed at most `max_completions`, and its credits not reversed at most
 * `max_points` (a reversal gives both back, so those it took back do not count); the counters `budget_completions`
 * and `budget_points` equal to those figures; and, when the budget was never exhausted (nothing could be refused),
 * as many completions live as the replay made (with one, at most as many; the per-customer check is invariant 5).
 * The rows are the state at the end: a passing that a later reversal took back is not seen.
 */
async function checkBudgets(q: Query, replayed: Map<number, number> | null, books: Books): Promise<void> {
  const rows = await q<{
    id: number;
    name: string;
    budget_max_completions: number | null;
    budget_max_points: string | null;
    budget_completions: number;
    budget_points: string;
    budget_exhausted_at: Date | null;
    completions: number;
    completions_kept: number;
    points: string;
    points_kept: string;
  }>(sql.BUDGETS);
  for (const c of rows) {
    const name = `campaign ${c.name} (${c.id})`;
    const maxPoints = c.budget_max_points === null ? null : Number(c.budget_max_points);
    books.check(INVARIANTS.budgets, c.budget_max_completions === null || c.completions_kept <= c.budget_max_completions, () =>
      `${name}: ${c.completions_kept} completions kept (${c.completions} in all), budget ${c.budget_max_completions}`,
    );
    books.check(INVARIANTS.budgets, maxPoints === null || Number(c.points_kept) <= maxPoints, () => `${name}: ${c.points_kept} points kept (${c.points} in all), budget ${maxPoints}`);
    books.check(INVARIANTS.budgets, c.budget_completions === c.completions_kept && Number(c.budget_points) === Number(c.points_kept), () =>
      `${name}: budget_used ${c.budget_completions} completions and ${c.budget_points} points, the rows say ${c.completions_kept} and ${c.points_kept}`,
    );
    const replay = replayed?.get(c.id);
    if (replay !== undefined) {
      const fits = c.budget_exhausted_at === null ? c.completions === replay : c.completions <= replay;
      books.check(INVARIANTS.budgets, fits, () =>
        `${name}: ${c.completions} completions live, ${replay} replayed without a budget (${c.budget_exhausted_at ? `exhausted ${c.budget_exhausted_at.toISOString()}: at most` : 'never exhausted: as many'} expected)`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 7: webhooks.

interface HookRow {
  id: number;
  event_types: string[];
  created_at: Date;
  deleted_at: Date | null;
}

/** How many of the webhooks took deliveries of `type` at `at` (subscribed, created before, not yet deleted). */
function hooksAt(hooks: HookRow[], type: string, at: Date | null): number {
  const t = at?.getTime() ?? Number.POSITIVE_INFINITY;
  return hooks.filter((h) => h.event_types.includes(type) && h.created_at.getTime() <= t && (h.deleted_at === null || h.deleted_at.getTime() > t)).length;
}

/**
 * Invariant 7:
 * - every delivery ends `delivered` or `failed` (dead, out of attempts), with its attempts recorded; `cancelled` only
 *   for a deleted webhook; none left pending or retrying after the drain;
 * - every delivery's event (`event_id`, when set) exists, and every delivery the receiver got is a row of the table:
 *   nothing was sent for a change that was rolled back;
 * - every delivery the receiver answered with a 2xx is `delivered`, and every `delivered` one was answered a 2xx by
 *   the receiver at least once (the x-webhook-delivery header names the row);
 * - the outbox is complete: per event, one `behavior.completed` per completion in its result, one `points.credited`
 *   when it earned points, one `notification.created` per notification; per customer, one `points.debited` per debit
 *   entry and one `points.expired` per expiry entry; one `points.reversed` per reversal; one
 *   `campaign.budget_exhausted` per exhausted campaign, none for another: each times the webhooks subscribed then.
 */
async function checkWebhooks(q: Query, receiver: WebhookReceiver, books: Books): Promise<void> {
  const [hooks, deliveries, events, others] = await Promise.all([
    q<HookRow>(sql.WEBHOOKS),
    q<{ id: string; webhook_id: number; event_id: string | null; type: string; status: string; attempts: number; updated_at: Date; event_exists: boolean; recorded_attempts: number }>(sql.DELIVERIES),
    q<{ id: string; processed_at: Date | null; completions: number; points: string; notifications: number; deliveries: Record<string, number> }>(sql.EVENT_OUTBOX),
    q<{ type: string; subject: string; first_at: Date | null; changes: number; deliveries: number }>(sql.OTHER_OUTBOX),
  ]);
  const deleted = new Set(hooks.filter((h) => h.deleted_at !== null).map((h) => h.id));
  const received = new Map<string, number[]>();
  for (const r of receiver.received()) received.set(r.deliveryId, [...(received.get(r.deliveryId) ?? []), r.answered]);
  const answered2xx = (id: string) => (received.get(id) ?? []).some((code) => code >= 200 && code < 300);

  const rows = new Map(deliveries.map((d) => [d.id, d]));
  for (const d of deliveries) {
    const name = `delivery ${d.id} (${d.type}, webhook ${d.webhook_id})`;
    const settled = (d.status === 'delivered' || d.status === 'failed') ? d.recorded_attempts > 0 : d.status === 'cancelled' && deleted.has(d.webhook_id);
    books.check(INVARIANTS.deliveriesSettled, settled, () => `${name}: ${d.status} after ${d.attempts} attempts (${d.recorded_attempts} recorded), last changed ${d.updated_at.toISOString()}`);
    if (d.event_id !== null) books.check(INVARIANTS.deliveriesCommitted, d.event_exists, () => `${name}: its event ${d.event_id} does not exist`);
    if (d.status === 'delivered' || answered2xx(d.id)) {
      books.check(INVARIANTS.deliveriesReceived, d.status === 'delivered' && answered2xx(d.id), () =>
        `${name}: ${d.status} in the table; the receiver answered ${(received.get(d.id) ?? []).join(',') || 'nothing (never received)'}`,
      );
    }
  }
  for (const [id, codes] of received) books.check(INVARIANTS.deliveriesCommitted, rows.has(id), () => `delivery ${id} received (answered ${codes.join(',')}), no such row`);

  for (const e of events) {
    const want: Record<string, number> = {
      'behavior.completed': e.completions * hooksAt(hooks, 'behavior.completed', e.processed_at),
      'points.credited': (Number(e.points) > 0 ? 1 : 0) * hooksAt(hooks, 'points.credited', e.processed_at),
      'notification.created': e.notifications * hooksAt(hooks, 'notification.created', e.processed_at),
    };
    const wrong = Object.entries(want).filter(([type, n]) => (e.deliveries[type] ?? 0) !== n);
    books.check(INVARIANTS.outbox, wrong.length === 0, () => `event ${e.id}: ${wrong.map(([type, n]) => `${e.deliveries[type] ?? 0} ${type} deliveries, ${n} expected`).join('; ')}`);
  }
  for (const o of others) {
    const want = o.changes * hooksAt(hooks, o.type, o.first_at);
    books.check(INVARIANTS.outbox, o.deliveries === want, () => `${o.type} of ${o.subject}: ${o.changes} changes, ${o.deliveries} deliveries, ${want} expected`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 8: simulations.

interface SimulationRow {
  id: number;
  campaign_id: number;
  status: string;
  error: string | null;
  attempt: number;
  range_from: Date;
  range_to: Date;
  customer_ids: string[] | null;
  customers: number;
  events_replayed: string;
  results: unknown;
  started_at: Date | null;
}

/**
 * Invariant 8: every simulation of the organization (the traffic's and the reruns) is `completed`; and each pair's
 * results (and its counts of customers and events replayed) equal, as JSON with keys sorted. The results hold no ids
 * or times but the days of `by_day`, which the same range gives alike. A rerun reads the database after the drain:
 * events of the range committed after the original's snapshot (its last claim, `started_at`) are then replayed by the
 * rerun only. When the rerun replayed more events than the original, and no more than the range holds events stored
 * from IN_FLIGHT_MS before the original's claim on, the pair did not read the same events: it is a note, not a
 * violation. Any other difference is a violation.
 */
async function checkSimulations(q: Query, pairs: SimulationPair[], books: Books): Promise<void> {
  const rows = await q<SimulationRow>(sql.SIMULATIONS);
  const byIdOf = new Map(rows.map((s) => [s.id, s]));
  for (const s of rows) {
    books.check(INVARIANTS.simulationsCompleted, s.status === 'completed', () => `simulation ${s.id}: ${s.status} after ${s.attempt} runs${s.error ? ` (${s.error})` : ''}`);
  }
  const summary = (s: SimulationRow) => canonical(compared(s));
  for (const pair of pairs) {
    const [a, b] = [byIdOf.get(pair.original), byIdOf.get(pair.rerun)];
    const name = `simulation ${pair.original} and its rerun ${pair.rerun}`;
    if (!a || !b || a.status !== 'completed' || b.status !== 'completed') {
      books.check(INVARIANTS.simulationReruns, false, () => `${name}: ${a?.status ?? 'missing'} and ${b?.status ?? 'missing'}, both completed expected`);
      continue;
    }
    if (summary(a) === summary(b)) {
      books.check(INVARIANTS.simulationReruns, true, () => '');
      continue;
    }
    const more = Number(b.events_replayed) - Number(a.events_replayed);
    const since = new Date((a.started_at?.getTime() ?? 0) - IN_FLIGHT_MS);
    const [late] = await q<{ n: number }>(sql.LATE_EVENTS, a.range_from, a.range_to, a.customer_ids, since);
    if (more > 0 && more <= late.n) {
      books.notes.push(`${name}: not compared, the rerun replayed ${more} more events, of ${late.n} stored from ${since.toISOString()} on (after the original's snapshot)`);
      continue;
    }
    books.check(INVARIANTS.simulationReruns, false, () => `${name}: ${differences(compared(a), compared(b))}`);
  }
}

/** What a simulation and its rerun must agree on: its counts, and each member of its results. */
function compared(s: SimulationRow): Record<string, unknown> {
  return { customers: s.customers, events_replayed: Number(s.events_replayed), ...(s.results as Record<string, unknown> | null) };
}

/** The members that differ, each as `member <first> against <second>` (long values cut). */
function differences(a: Record<string, unknown>, b: Record<string, unknown>): string {
  const show = (value: unknown) => {
    if (value === undefined) return 'absent';
    const text = canonical(value);
    return text.length > 160 ? `${text.slice(0, 160)}...` : text;
  };
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .sort()
    .filter((key) => canonical(a[key]) !== canonical(b[key]))
    .map((key) => `${key} ${show(a[key])} against ${show(b[key])}`)
    .join('; ');
}
