/** The soak's books (books.ts), invariants 5 and 6: progress, completions and budgets against a replay through the engine. */
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
import { INVARIANTS, type Books, type Query } from './books-tally.js';

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
export async function checkReplay(db: pg.Pool, organizationId: number, q: Query, books: Books): Promise<Map<number, number>> {
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
export async function checkBudgets(q: Query, replayed: Map<number, number> | null, books: Books): Promise<void> {
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
