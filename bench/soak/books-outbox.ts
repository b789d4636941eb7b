/** The soak's books (books.ts), invariants 7 and 8: webhook deliveries and simulations. */
import { canonical } from '../support/simulation-replay.js';
import * as sql from './books-sql.js';
import { INVARIANTS, IN_FLIGHT_MS, type Books, type Query, type SimulationPair } from './books-tally.js';
import type { WebhookReceiver } from './receiver.js';

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
export async function checkWebhooks(q: Query, receiver: WebhookReceiver, books: Books): Promise<void> {
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
export async function checkSimulations(q: Query, pairs: SimulationPair[], books: Books): Promise<void> {
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
