/**
 * The soak's books (books.ts), the last four invariants: the service against the soak's own model of its rules (model.ts), not
 * against a replay through the service's engine. Nothing of src/ is imported here or in model.ts.
 *
 * What the model is fed, and from where:
 * - **What happened** comes from the soak's own record: each event submission's instances (name, customer) as the
 *   traffic sent them, the welcome events the setup sent, each perform, reversal and debit with its answer. A request
 *   answered 2xx happened; one refused (any other 4xx) did not; one whose answer was lost (no answer, or 5xx) is
 *   uncertain, and the log decides it: it happened if what it would have stored is there (its marker for an event
 *   submission, its transaction id for a perform, a debit or a reversal; invariants 1-3 check that such a request
 *   stored all of it or nothing). A request answered 2xx whose rows are missing is still fed to the model, at its end:
 *   its effect is then missing from the service, and the comparison says so.
 * - **The order** comes from the log: the model needs it only where the rules are order-dependent (which visit was the
 *   fifth, a cap freed by a reversal, which completion the budget let through). A customer's events in the order they
 *   were evaluated (by `processed_at`; V1 sync and perform rows, evaluated under the customer's lock, in id order),
 *   each reversal where it was made (its `created_at`). Which purchase the budget let through depends on every
 *   customer's events in the order the service took them: the model is told (the stored result) and checks only that
 *   the rules would have completed it there, and, budget-wide, that completions kept stay within it, that a completion
 *   was refused only once as many had been let through, and that the campaign's `budget_used` says the same.
 * - **What is compared** is what the service answers, after the drain, through its API: per customer the retrieval
 *   (`GET .../users/:id/events`: each behavior's `achieved` and goal `current_count`) and the profile (`GET
 *   .../users/:id`: `lifetime_points`, `available_points`); and what it stored: the completions in the events' results
 *   and the ledger's credits, per customer and behavior; and each simulation's results.
 * - **Available points** depend on when debits, expiry and reversals met (a debit takes what expires soonest first, a
 *   reversal takes at most what is left): the model bounds them, lifetime_points less the debits accepted less what
 *   could have expired by now (credits of events that occurred more than `points_expire_after_days` ago) at the least,
 *   the credits made less the debits at the most; with no debit and nothing due, exactly lifetime_points.
 */
import * as sql from './books-sql.js';
import { answerOf, EVENT_KINDS, INVARIANTS, SETUP_MARKER, type Books, type Query } from './books-tally.js';
import { CustomerModel, modelRules, simulate, simulationDifferences, type ModelRules, type SimulatedEvent } from './model.js';
import type { Sent } from './record.js';
import { ORGANIZATION_TIME_ZONE, POINTS_EXPIRE_AFTER_DAYS, SetupApi, SOAK_CAMPAIGNS, type SoakTenant } from './setup.js';

const DAY_MS = 86_400_000;
/** Customers asked at once of the API. */
const API_CONCURRENCY = 4;

interface LogEvent {
  id: string;
  customer_id: string | null;
  marker: string | null;
  name: string;
  source: string;
  transaction_id: string | null;
  status: string;
  occurred_ms: number;
  processed_ms: number | null;
  created_ms: number;
  completed: number[];
}

/** One event or perform fed to the model: what the soak sent, placed where the log says the service took it. */
export interface ModelStep {
  /** The log row's id, or `missing-<n>` for one that happened (answered 2xx) and is not in the log. */
  key: string;
  kind: 'event' | 'perform';
  customerId: string;
  /** The event's name, as the soak sent it. */
  name: string;
  /** The log row's source (v1, v1_async, v2, perform), or the request's kind when missing. */
  source: string;
  transactionId: string | null;
  occurredMs: number;
  processedMs: number | null;
  createdMs: number | null;
  logId: number | null;
  /** The behaviors its stored result says it completed (ids). */
  completed: number[];
  /** What sent it, for the details. */
  via: string;
}

export interface ModelReversal {
  customerId: string;
  transactionId: string;
  atMs: number;
  /** The steps of the submission it reverses. */
  keys: string[];
}

/** The steps of every request that happened (see the module's comment), and the reversals, from the record and the log. */
export function modelInputs(sent: Sent[], tenant: Pick<SoakTenant, 'welcomed'>, log: LogEvent[], storedReversals: Map<string, number>, books: Books): { steps: ModelStep[]; reversals: ModelReversal[] } {
  const steps: ModelStep[] = [];
  const byMarker = new Map<string, LogEvent[]>();
  const performRows = new Map<string, LogEvent[]>();
  for (const e of log) {
    if (e.marker !== null) byMarker.set(e.marker, [...(byMarker.get(e.marker) ?? []), e]);
    if (e.source === 'perform' && e.transaction_id !== null) performRows.set(e.transaction_id, [...(performRows.get(e.transaction_id) ?? []), e]);
  }
  let missing = 0;
  const fromRow = (r: LogEvent, kind: ModelStep['kind'], name: string, via: string): ModelStep => ({
    key: r.id,
    kind,
    customerId: r.customer_id ?? '',
    name,
    source: r.source,
    transactionId: r.transaction_id,
    occurredMs: r.occurred_ms,
    processedMs: r.processed_ms,
    createdMs: r.created_ms,
    logId: Number(r.id),
    completed: r.completed,
    via,
  });
  const fromRecord = (s: Pick<Sent, 'kind' | 'at' | 'transactionId'>, kind: ModelStep['kind'], customerId: string, name: string, via: string): ModelStep => ({
    key: `missing-${(missing += 1)}`,
    kind,
    customerId,
    name,
    source: s.kind,
    transactionId: s.transactionId ?? null,
    occurredMs: s.at,
    processedMs: null,
    createdMs: null,
    logId: null,
    completed: [],
    via,
  });
  /** A submission that happened: each instance sent matched to a stored row of the same customer and name. */
  const submission = (what: string, s: Pick<Sent, 'kind' | 'at' | 'transactionId'>, entries: Array<{ name: string; customerId: string }>, rows: LogEvent[]) => {
    const left = rows.slice();
    let unmatched = 0;
    for (const e of entries) {
      const i = left.findIndex((r) => r.customer_id === e.customerId && r.name === e.name);
      if (i < 0) {
        unmatched += 1;
        steps.push(fromRecord(s, 'event', e.customerId, e.name, what));
      } else {
        steps.push(fromRow(left.splice(i, 1)[0], 'event', e.name, what));
      }
    }
    if (rows.length > 0) {
      books.check(INVARIANTS.modelInput, unmatched === 0 && left.length === 0, () =>
        `${what}: ${entries.length} events sent, ${rows.length} stored; ${unmatched} sent without a stored row of its customer and name, ${left.length} stored that were not sent (${left
          .slice(0, 3)
          .map((r) => `${r.name} of ${r.customer_id}`)
          .join(', ')})`,
      );
    }
  };

  submission(`the setup's welcome events`, { kind: 'v2', at: 0 }, tenant.welcomed.map((c) => ({ name: 'welcome', customerId: c.id })), byMarker.get(SETUP_MARKER) ?? []);
  for (const s of sent) {
    if (EVENT_KINDS.has(s.kind) && s.marker !== undefined) {
      const rows = byMarker.get(s.marker) ?? [];
      const a = answerOf(s);
      if (a === 'refused' || (a === 'maybe' && rows.length === 0)) continue;
      submission(`${s.kind} submission ${s.marker} (answered ${s.status})`, s, s.events ?? [], rows);
    } else if (s.kind === 'perform' && s.transactionId !== undefined && s.customerId !== undefined) {
      const rows = performRows.get(s.transactionId) ?? [];
      const a = answerOf(s);
      if (a === 'refused' || (a === 'maybe' && rows.length === 0)) continue;
      const what = `perform ${s.transactionId} (answered ${s.status})`;
      if (rows.length === 0) steps.push(fromRecord(s, 'perform', s.customerId, 'complete_campaign', what));
      for (const r of rows) {
        books.check(INVARIANTS.modelInput, r.customer_id === s.customerId, () => `${what}: stored for customer ${r.customer_id}, sent for ${s.customerId}`);
        steps.push(fromRow(r, 'perform', r.name, what));
      }
    }
  }

  const byTransaction = new Map<string, string[]>();
  for (const step of steps) if (step.transactionId !== null) byTransaction.set(step.transactionId, [...(byTransaction.get(step.transactionId) ?? []), step.key]);
  const reversals: ModelReversal[] = [];
  for (const s of sent) {
    if (s.kind !== 'reversal' || s.transactionId === undefined || s.customerId === undefined) continue;
    const a = answerOf(s);
    const storedAt = storedReversals.get(s.transactionId);
    if (a === 'refused' || (a === 'maybe' && storedAt === undefined)) continue;
    reversals.push({ customerId: s.customerId, transactionId: s.transactionId, atMs: storedAt ?? s.at + s.ms, keys: byTransaction.get(s.transactionId) ?? [] });
  }
  return { steps, reversals };
}

/**
 * A customer's steps in the order the service evaluated them: by `processed_at`, then as a worker's batch takes them
 * (occurred_at, id); the places of V1 sync and perform rows (inserted under the customer's lock, so their ids are the
 * lock's order, which `processed_at`, taken before the lock was waited for, may not be) filled with them in id order.
 * Steps missing from the log come last, in the order sent.
 */
export function evaluationOrder(steps: ModelStep[]): ModelStep[] {
  const inf = (n: number | null) => n ?? Number.POSITIVE_INFINITY;
  const logged = steps
    .filter((s) => s.logId !== null)
    .sort((a, b) => inf(a.processedMs) - inf(b.processedMs) || a.occurredMs - b.occurredMs || a.logId! - b.logId!);
  const locked = (s: ModelStep) => s.source === 'v1' || s.source === 'perform';
  const places = logged.flatMap((s, i) => (locked(s) ? [i] : []));
  const inIdOrder = places.map((i) => logged[i]).sort((a, b) => a.logId! - b.logId!);
  places.forEach((place, k) => (logged[place] = inIdOrder[k]));
  return [...logged, ...steps.filter((s) => s.logId === null)];
}

/** What the model made of one customer. */
export interface ModelledCustomer {
  model: CustomerModel;
  /** Points each step credited (by key). */
  credited: Map<string, number>;
  /** Budgeted completions the model made (granted by the oracle), and those it would have made that were refused. */
  grants: string[];
  refused: number;
}

/**
 * Feeds one customer's steps (in evaluation order) and reversals to a model; a perform the model refuses, or a budgeted
 * completion the stored result grants where the rules make none, is a violation (modelPoints).
 */
export function modelCustomer(rules: ModelRules, behaviorNames: Map<number, string>, campaignOf: (step: ModelStep) => string, ordered: ModelStep[], reversals: ModelReversal[], books: Books, who: string): ModelledCustomer {
  const model = new CustomerModel(rules);
  const out: ModelledCustomer = { model, credited: new Map(), grants: [], refused: 0 };
  const budgeted = new Set(rules.behaviors.filter((b) => b.budgeted).map((b) => b.name));
  const revs = reversals.slice().sort((a, b) => a.atMs - b.atMs);
  let next = 0;
  for (const step of ordered) {
    const at = step.processedMs ?? Number.POSITIVE_INFINITY;
    while (next < revs.length && revs[next].atMs < at) model.reverse(revs[next++].keys);
    const granted = new Set(step.completed.map((id) => behaviorNames.get(id) ?? '').filter((name) => budgeted.has(name)));
    if (step.kind === 'perform') {
      const done = model.perform(step.key, campaignOf(step), granted);
      books.check(INVARIANTS.modelPoints, done !== null, () => `${who}: ${step.via} happened; the model refuses it (the campaign was already completed for the customer)`);
      if (done) record(step, done);
    } else {
      record(step, model.event(step.key, step.name, granted));
    }
  }
  while (next < revs.length) model.reverse(revs[next++].keys);
  return out;

  function record(step: ModelStep, done: ReturnType<CustomerModel['event']>) {
    out.credited.set(step.key, done.points);
    out.grants.push(...done.completions.filter((name) => budgeted.has(name)).map(() => step.key));
    out.refused += done.budgetRefused.length;
    for (const name of done.grantedWithout) books.fail(INVARIANTS.modelPoints, `${who}: ${step.via} (event ${step.key}, ${step.name}) completed ${name} as stored; the model's rules do not complete it there`);
  }
}

interface RetrievalAnswer {
  behaviors?: Record<string, { achieved?: number; goals?: Record<string, { progress?: { current_count?: number } }> }>;
}
interface UserAnswer {
  user?: { available_points?: number; lifetime_points?: number };
}

/** Runs `work` over `items`, `n` at a time. */
async function pooled<T, R>(items: T[], n: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]);
      }
    }),
  );
  return out;
}

/**
 * The model's invariants (see the module's comment): its inputs checked as stored (modelInput); per customer and behavior,
 * `achieved` and each goal's `current_count` as the API answers them (modelProgress); the completions in the stored
 * results and the ledger's credits per behavior, lifetime_points and available_points as answered, each perform that
 * happened one the model takes, and the budget (modelPoints); every completed simulation of the Everyday campaign
 * (simulationModel).
 */
export async function checkModel(q: Query, sent: Sent[], model: { tenant: SoakTenant; apiUrl: string }, rerunIds: Set<number>, books: Books): Promise<void> {
  const { tenant, apiUrl } = model;
  const rules = modelRules(SOAK_CAMPAIGNS);
  const [log, reversalRows, debitRows, creditRows, simulations] = await Promise.all([
    q<LogEvent>(sql.MODEL_EVENTS),
    q<{ customer_id: string; transaction_id: string; at_ms: number }>(sql.REPLAYED_REVERSALS),
    q<{ transaction_id: string }>(sql.DEBITS),
    q<{ customer_id: string; behavior_id: number | null; points: string }>(sql.CREDITS_BY_BEHAVIOR),
    q<{ id: number; campaign_id: number; status: string; range_from: Date; range_to: Date; customer_ids: string[] | null; customers: number; events_replayed: string; results: Record<string, unknown> | null; started_at: Date | null }>(sql.SIMULATIONS),
  ]);
  const behaviorNames = new Map(Object.entries(tenant.behaviorIds).map(([name, id]) => [id, name]));
  const { steps, reversals } = modelInputs(sent, tenant, log, new Map(reversalRows.map((r) => [r.transaction_id, r.at_ms])), books);

  const customers = [...tenant.hot, ...tenant.syncCustomers, ...tenant.queuedCustomers];
  const api = new SetupApi(apiUrl, '');
  const base = `/priv/v1/apps/${tenant.key}`;
  const answers = await pooled(customers, API_CONCURRENCY, async (c) => ({
    retrieval: (await api.call('GET', `${base}/users/${c.id}/events`, tenant.auth)) as RetrievalAnswer,
    user: (await api.call('GET', `${base}/users/${c.id}`, tenant.auth)) as UserAnswer,
  }));

  const perCustomer = <T>(items: T[], of: (item: T) => string) => {
    const out = new Map<string, T[]>();
    for (const item of items) out.set(of(item), [...(out.get(of(item)) ?? []), item]);
    return out;
  };
  const [stepsOf, reversalsOf, logOf, creditsOf] = [perCustomer(steps, (s) => s.customerId), perCustomer(reversals, (r) => r.customerId), perCustomer(log, (e) => e.customer_id ?? ''), perCustomer(creditRows, (c) => c.customer_id)];
  const debited = new Map<string, number>();
  const debitsStored = new Set(debitRows.map((d) => d.transaction_id));
  for (const s of sent) {
    if (s.kind !== 'debit' || s.customerId === undefined) continue;
    const a = answerOf(s);
    if (a === 'ok' || (a === 'maybe' && s.transactionId !== undefined && debitsStored.has(s.transactionId))) debited.set(s.customerId, (debited.get(s.customerId) ?? 0) + (s.points ?? 0));
  }
  const campaignOf = () => 'Perform'; // the traffic performs the Perform campaign only
  const dueBefore = Date.now() - POINTS_EXPIRE_AFTER_DAYS * DAY_MS;
  const budgetGrants: Array<{ model: CustomerModel; key: string }> = [];
  let budgetRefused = 0;

  customers.forEach((c, i) => {
    const who = `customer ${c.externalId} (${c.id})`;
    const own = stepsOf.get(c.id) ?? [];
    const m = modelCustomer(rules, behaviorNames, campaignOf, evaluationOrder(own), reversalsOf.get(c.id) ?? [], books, who);
    budgetGrants.push(...m.grants.map((key) => ({ model: m.model, key })));
    budgetRefused += m.refused;
    const { retrieval, user } = answers[i];

    // modelProgress: progress as the API answers it.
    const storedCompletions = new Map<number, number>();
    for (const e of logOf.get(c.id) ?? []) for (const id of e.completed) storedCompletions.set(id, (storedCompletions.get(id) ?? 0) + 1);
    const credits = new Map((creditsOf.get(c.id) ?? []).map((r) => [r.behavior_id ?? 0, Number(r.points)]));
    for (const b of rules.behaviors) {
      const id = tenant.behaviorIds[b.name];
      const want = m.model.behaviors.get(b.name)!;
      const got = retrieval.behaviors?.[b.name];
      const goals = b.goals.map((g) => `${g.name} ${got?.goals?.[g.name]?.progress?.current_count ?? 'absent'}`).join(', ');
      const wantGoals = b.goals.map((g) => `${g.name} ${want.goals[g.name]}`).join(', ');
      books.check(INVARIANTS.modelProgress, got !== undefined && (got.achieved ?? 0) === want.achieved && goals === wantGoals, () =>
        got === undefined ? `${who}, behavior ${b.name}: absent from the retrieval; the model has achieved ${want.achieved}, goals ${wantGoals}` : `${who}, behavior ${b.name}: achieved ${got.achieved}, goals ${goals} answered; the model has achieved ${want.achieved}, goals ${wantGoals}`,
      );
      // modelPoints: completions stored and credits, per behavior.
      const [sc, lc] = [storedCompletions.get(id) ?? 0, credits.get(id) ?? 0];
      storedCompletions.delete(id);
      credits.delete(id);
      if (sc || lc || want.made || want.credited) {
        books.check(INVARIANTS.modelPoints, sc === want.made && lc === want.credited, () => `${who}, behavior ${b.name}: ${sc} completions stored and ${lc} points credited; the model made ${want.made} completions of ${want.credited} points`);
      }
    }
    for (const [name, b] of Object.entries(retrieval.behaviors ?? {})) {
      if (rules.behaviors.some((r) => r.name === name)) continue;
      books.check(INVARIANTS.modelProgress, (b.achieved ?? 0) === 0, () => `${who}, behavior ${name} (not of the soak's campaigns: an event nobody sends): achieved ${b.achieved}`);
    }
    for (const [id, n] of storedCompletions) books.fail(INVARIANTS.modelPoints, `${who}: ${n} completions stored of behavior ${behaviorNames.get(id) ?? id}, which the model never makes`);
    for (const [id, points] of credits) if (points !== 0) books.fail(INVARIANTS.modelPoints, `${who}: ${points} points credited by behavior ${behaviorNames.get(id) ?? id}, which the model never credits`);

    // modelPoints: lifetime and available points.
    const lifetime = user.user?.lifetime_points;
    books.check(INVARIANTS.modelPoints, lifetime === m.model.lifetime, () => `${who}: lifetime_points ${lifetime} answered; the model has ${m.model.lifetime} (${m.model.credits} credited, less ${m.model.credits - m.model.lifetime} reversed)`);
    const debits = debited.get(c.id) ?? 0;
    const due = own.filter((s) => s.occurredMs <= dueBefore).reduce((sum, s) => sum + (m.credited.get(s.key) ?? 0), 0);
    const lo = Math.max(0, m.model.lifetime - debits - due);
    const hi = debits === 0 && due === 0 ? m.model.lifetime : m.model.credits - debits;
    const available = user.user?.available_points;
    books.check(INVARIANTS.modelPoints, available !== undefined && available >= lo && available <= hi, () =>
      `${who}: available_points ${available} answered; the model bounds it to ${lo}..${hi} (lifetime ${m.model.lifetime}, credited ${m.model.credits}, debits accepted ${debits}, credits due by now ${due})`,
    );

    // modelPoints: a perform refused (422) while the customer had not completed the campaign by any perform sent before its answer.
    const performed = sent.filter((s) => s.kind === 'perform' && s.customerId === c.id);
    const happened = new Set(own.filter((s) => s.kind === 'perform').map((s) => s.transactionId));
    for (const r of performed.filter((s) => s.status === 422)) {
      const before = performed.some((p) => p !== r && happened.has(p.transactionId ?? null) && p.at <= r.at + r.ms);
      books.check(INVARIANTS.modelPoints, before, () => `${who}: perform ${r.transactionId} answered 422 ${r.code ?? ''}; no perform of the customer that happened was sent before that answer`);
    }
  });

  // modelPoints: the budget, campaign-wide.
  const budget = rules.campaigns.get('Budget')!.budget!;
  const budgetBehavior = rules.campaigns.get('Budget')!.behaviors[0];
  const kept = budgetGrants.filter((g) => !g.model.isReversed(g.key)).length;
  const max = budget.maxCompletions ?? Number.POSITIVE_INFINITY;
  books.check(INVARIANTS.modelPoints, kept <= max, () => `campaign Budget: ${kept} completions kept, budget ${max}`);
  books.check(INVARIANTS.modelPoints, budgetRefused === 0 || budgetGrants.length >= max, () => `campaign Budget: ${budgetRefused} completions refused by the budget, after only ${budgetGrants.length} let through (budget ${max})`);
  const campaign = (await api.call('GET', `${base}/management/campaigns/${tenant.budgetId}`, tenant.auth)).campaign as { budget_used?: { completions: number; points: number } };
  const used = campaign.budget_used;
  books.check(INVARIANTS.modelPoints, used?.completions === kept && used.points === kept * budgetBehavior.points, () =>
    `campaign Budget: budget_used ${JSON.stringify(used)} answered; the model has ${kept} completions kept (${budgetGrants.length} let through, less those reversed) of ${kept * budgetBehavior.points} points`,
  );

  // simulationModel: the simulations of the Everyday campaign against the model.
  const events: Array<SimulatedEvent & { createdMs: number }> = steps
    .filter((s) => s.kind === 'event')
    .map((s) => ({ customerId: s.customerId, name: s.name, occurredMs: s.occurredMs, order: s.logId ?? Number.MAX_SAFE_INTEGER, createdMs: s.createdMs ?? Number.POSITIVE_INFINITY }));
  for (const sim of simulations) {
    if (sim.campaign_id !== tenant.everydayId || sim.status !== 'completed') continue;
    const name = `simulation ${sim.id}${rerunIds.has(sim.id) ? ' (a rerun after the drain)' : ''}`;
    const only = sim.customer_ids ? new Set(sim.customer_ids) : null;
    const [from, to] = [sim.range_from.getTime(), sim.range_to.getTime()];
    const range = events.filter((e) => e.occurredMs >= from && e.occurredMs <= to && (only === null || only.has(e.customerId)));
    const actual = { ...(sim.results ?? {}), customers: sim.customers, events_replayed: Number(sim.events_replayed) };
    const replayed = Number(sim.events_replayed);
    if (rerunIds.has(sim.id) || replayed === range.length) {
      // A rerun read the log after the drain; an original that replayed as many events as its range holds read them all.
      const diff = simulationDifferences(simulate(rules, 'Everyday', range, ORGANIZATION_TIME_ZONE), actual);
      books.check(INVARIANTS.simulationModel, diff.length === 0, () => `${name}: ${diff.join('; ')}`);
      continue;
    }
    // An original that ran while events were still coming: it saw those committed before its snapshot, taken as the
    // first `replayed` by the time they were stored. When that guess does not give its results, it is a note.
    const seen = range.slice().sort((a, b) => a.createdMs - b.createdMs).slice(0, replayed);
    const diff = simulationDifferences(simulate(rules, 'Everyday', seen, ORGANIZATION_TIME_ZONE), actual);
    if (diff.length === 0) books.check(INVARIANTS.simulationModel, true, () => '');
    else books.notes.push(`${name}: not compared with the model, it replayed ${replayed} of the ${range.length} events its range now holds (which ones is not known): ${diff.join('; ')}`);
  }
}
