/**
 * The soak's books, checked once the traffic has stopped and the workers have drained (issue #31, item 3): for one
 * organization of the soak's own database, every invariant with how many items it checked and how many violated,
 * and the violations (at most MAX_DETAILS described per invariant). Nothing is written. The statements are in
 * books-sql.ts; what each invariant compares, and why, is said where it is checked.
 */
import type pg from 'pg';
import * as sql from './books-sql.js';
import { checkReplay, checkBudgets } from './books-replay.js';
import { checkSimulations, checkWebhooks } from './books-outbox.js';
import { checkModel } from './books-model.js';
import { answerOf, Books, EVENT_KINDS, INVARIANTS, SETUP_MARKER, type BooksExtra, type BooksReport, type Invariant, type Query } from './books-tally.js';
import type { WebhookReceiver } from './receiver.js';
import type { Sent } from './record.js';

export { INVARIANTS, type BooksExtra, type BooksReport, type SimulationPair, type Violation } from './books-tally.js';

/**
 * Checks the organization's books (see the module's comment). `sent` is every request the traffic made, `receiver`
 * the webhook receiver's record; `extra.simulationPairs` the reruns the lead started after the drain; `extra.model`
 * what the soak's model (books-model.ts) needs to ask the API (without it, its invariants check nothing). A section that
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
    // The service against the soak's own model of its rules (model.ts), not against its own engine.
    [INVARIANTS.modelProgress, async () => extra.model && checkModel(q, sent, extra.model, new Set((extra.simulationPairs ?? []).map((p) => p.rerun)), books)],
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

// ---------------------------------------------------------------------------------------------------------------
// 1 and 3: what each request stored (answerOf: 2xx happened, no answer or 5xx may have, any other 4xx must not have).

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
  const ok = g.first.filter((s) => answerOf(s) === 'ok');
  const maybe = g.first.filter((s) => answerOf(s) === 'maybe');
  const tell = (expected: string) => () => `${g.what} (answered ${statuses}): ${g.stored} stored, ${expected}${g.problem ? `; ${g.problem}` : ''}`;
  if (ok.length > 0) {
    books.check(INVARIANTS.storedOnce, ok.length === 1 && g.stored === g.want(ok[0]) && !g.problem, tell(`${g.want(ok[0])} expected${ok.length > 1 ? ', and 2xx answered more than once' : ''}`));
  } else if (maybe.length > 0) {
    const wants = [...new Set(maybe.map(g.want))];
    books.check(INVARIANTS.storedAtMostOnce, (g.stored === 0 || wants.includes(g.stored)) && !g.problem, tell(`0 or ${wants.join(' or ')} expected`));
  } else if (g.first.length > 0) {
    books.check(INVARIANTS.nothingOf4xx, g.stored === 0, tell('0 expected'));
  }
  for (const r of g.repeats) books.check(INVARIANTS.nothingOf4xx, answerOf(r) !== 'ok', () => `${g.what}: a repeat of a used key answered ${r.status}`);
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
    const asked = group.find((s) => answerOf(s) !== 'refused')?.points;
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
