/**
 * An independent model of the soak's own rules (issue #31's books): what each customer's progress, completions and
 * points must be, and what a simulation must answer, worked out from the campaigns the soak creates (setup.ts) and
 * the events it sent, by a second implementation of the contract's rules written here. It imports nothing of the
 * service (src/), so that a bug in the engine cannot hide by being compared with itself (the replay in
 * books-replay.ts runs the engine; this does not).
 *
 * It covers the subset of the rule language the soak uses, and refuses any other (modelRules throws, naming what it
 * does not model, so a change of the soak's campaigns cannot be compared wrongly in silence):
 * - one goal group whose goals all count (`event_count`, listening to `internal_event_name` or their `name`, an
 *   instance counting 1), without criteria, throttles or goal data; a behavior completes when all its goals are
 *   complete (contract §7: `current_count += count`, capped at `event_count`);
 * - behavior `points` (and goal `points`), and `max_times_achievable` (a behavior at its cap takes no progress);
 * - on completion `achieved += 1`, the points credited, goal progress reset for the next cycle;
 * - a campaign completed for a customer when every behavior has a total cap and has reached it (§7), or by perform;
 * - perform (§12): every behavior not at a cap completed once, the campaign then completed for the customer (the
 *   service's documented reading, docs/perform.md: a second perform is 422 `failed_to_perform`);
 * - a reversal (§13): each completion the submission's events made taken back (`achieved -= 1`, its points off
 *   `lifetime_points`), goal progress not rewound;
 * - a campaign budget (§14): which completion the budget let through depends on every customer's events in the order
 *   the service took them, so the model does not decide it: it is told (the `granted` oracle: what the stored event
 *   says), and checks only that a granted completion is one the rules make; the budget-wide checks are the caller's.
 * No outcomes, tags, tiers, period or calendar caps, unique or consecutive goals, opt-in, targeting or divisions:
 * the soak's campaigns have none.
 */

/** A behavior as setup.ts sends it (the members of the `_batch` body the model reads). */
export interface BehaviorDefinition {
  name: string;
  points: number;
  data: Record<string, unknown>;
  goal_groups: Array<{ goal_count?: number; goals: Array<{ achievement: Record<string, unknown> }> }>;
  [other: string]: unknown;
}

export interface CampaignDefinition {
  name: string;
  behaviors: BehaviorDefinition[];
  budget?: { max_completions: number | null; max_points: number | null } | null;
}

export interface ModelGoal {
  name: string;
  event: string;
  need: number;
  points: number;
}

export interface ModelBehavior {
  name: string;
  campaign: string;
  /** The behavior's points and its goals' (what one completion credits). */
  points: number;
  maxTimes: number | null;
  goals: ModelGoal[];
  budgeted: boolean;
}

export interface ModelRules {
  behaviors: ModelBehavior[];
  campaigns: Map<string, { behaviors: ModelBehavior[]; budget: { maxCompletions: number | null; maxPoints: number | null } | null }>;
}

const BEHAVIOR_MEMBERS = new Set(['name', 'points', 'data', 'goal_groups']);
const BEHAVIOR_DATA = new Set(['max_times_achievable']);
const GOAL_MEMBERS = new Set(['name', 'internal_event_name', 'event_count', 'points', 'type']);

/** The soak's campaigns as the model reads them; throws on anything it does not model (see the module's comment). */
export function modelRules(campaigns: CampaignDefinition[]): ModelRules {
  const rules: ModelRules = { behaviors: [], campaigns: new Map() };
  const names = new Set<string>();
  for (const c of campaigns) {
    const budget = c.budget ? { maxCompletions: c.budget.max_completions ?? null, maxPoints: c.budget.max_points ?? null } : null;
    const behaviors: ModelBehavior[] = [];
    for (const b of c.behaviors) {
      const where = `campaign ${c.name}, behavior ${b.name}`;
      const unknown = (what: string) => new Error(`the soak's model does not cover ${where}: ${what}`);
      for (const key of Object.keys(b)) if (!BEHAVIOR_MEMBERS.has(key)) throw unknown(`member ${key}`);
      for (const [key, value] of Object.entries(b.data ?? {})) if (!BEHAVIOR_DATA.has(key) && value !== null && value !== undefined) throw unknown(`data.${key}`);
      if (b.goal_groups.length !== 1) throw unknown(`${b.goal_groups.length} goal groups`);
      const [group] = b.goal_groups;
      if (group.goal_count !== undefined && group.goal_count !== group.goals.length) throw unknown('a goal_count below the goals');
      const goals = group.goals.map(({ achievement: a }) => {
        for (const key of Object.keys(a)) if (!GOAL_MEMBERS.has(key)) throw unknown(`goal member ${key}`);
        if (a.type !== undefined && a.type !== 'count') throw unknown(`a goal of type ${String(a.type)}`);
        const need = (a.event_count as number | undefined) ?? 1;
        if (!Number.isInteger(need) || need < 1) throw unknown(`event_count ${String(a.event_count)}`);
        return { name: String(a.name), event: String(a.internal_event_name ?? a.name), need, points: Number(a.points ?? 0) };
      });
      if (goals.length === 0) throw unknown('no goals');
      if (names.has(b.name)) throw unknown('a behavior name used twice (the service answers progress by name)');
      names.add(b.name);
      const maxTimes = b.data?.max_times_achievable;
      const behavior: ModelBehavior = {
        name: b.name,
        campaign: c.name,
        points: b.points + goals.reduce((sum, g) => sum + g.points, 0),
        maxTimes: typeof maxTimes === 'number' ? maxTimes : null,
        goals,
        budgeted: budget !== null,
      };
      behaviors.push(behavior);
      rules.behaviors.push(behavior);
    }
    rules.campaigns.set(c.name, { behaviors, budget });
  }
  return rules;
}

/** A behavior's state for one customer. */
export interface BehaviorState {
  /** Completions that stand (made less those a reversal took back): the service's `achieved`. */
  achieved: number;
  /** Completions made, reversed ones included: the completions in the stored events' results. */
  made: number;
  /** Points its completions credited, reversed ones included: the ledger's credits of the behavior. */
  credited: number;
  /** Points of its completions taken back by reversals (off lifetime_points). */
  reversed: number;
  /** Each goal's count in the current cycle (by goal name): the retrieval's goal `progress.current_count`. */
  goals: Record<string, number>;
}

/** What one event (or perform) did in the model. */
export interface StepOutcome {
  /** Behaviors it completed. */
  completions: string[];
  points: number;
  /** Budgeted behaviors it would have completed, that the budget did not let through (the oracle said so). */
  budgetRefused: string[];
  /** Budgeted behaviors the oracle said were granted, that the rules do not complete with this event: a mismatch. */
  grantedWithout: string[];
}

/**
 * One customer, as the model sees it: the state of every behavior of `rules`, fed events, performs and reversals in
 * the order the service took them (the caller's input).
 */
export class CustomerModel {
  readonly behaviors = new Map<string, BehaviorState>();
  readonly completedCampaigns = new Set<string>();
  /** What each step (by the caller's id) completed, for reversals. */
  private readonly made = new Map<string, string[]>();
  private readonly reversed = new Set<string>();
  /** Reversals waiting for steps the caller has not fed yet (a reversal placed before its event). */
  private readonly pendingReversal = new Set<string>();

  constructor(private readonly rules: ModelRules) {
    for (const b of rules.behaviors) this.behaviors.set(b.name, { achieved: 0, made: 0, credited: 0, reversed: 0, goals: Object.fromEntries(b.goals.map((g) => [g.name, 0])) });
  }

  /** Credits made (reversed ones included). */
  get credits(): number {
    return [...this.behaviors.values()].reduce((sum, b) => sum + b.credited, 0);
  }

  /** Credits not reversed: the service's `lifetime_points`. */
  get lifetime(): number {
    return [...this.behaviors.values()].reduce((sum, b) => sum + b.credited - b.reversed, 0);
  }

  /** Whether any behavior of `campaign` listens to `name` and every one that does is at its total cap (§7). */
  atCap(campaign: string, name: string): boolean {
    const listening = (this.rules.campaigns.get(campaign)?.behaviors ?? []).filter((b) => b.goals.some((g) => g.event === name));
    return listening.length > 0 && listening.every((b) => this.capped(b));
  }

  /**
   * One event instance (count 1) named `name`: every behavior (of `campaign` only, when given) with a goal listening
   * to it progresses. `granted` names the budgeted behaviors whose completion the budget let through.
   */
  event(id: string, name: string, granted: ReadonlySet<string> = new Set(), campaign?: string): StepOutcome {
    const out: StepOutcome = { completions: [], points: 0, budgetRefused: [], grantedWithout: [] };
    for (const b of this.rules.behaviors) {
      if (campaign !== undefined && b.campaign !== campaign) continue;
      const listening = b.goals.filter((g) => g.event === name);
      if (listening.length === 0 || this.capped(b)) continue;
      const state = this.behaviors.get(b.name)!;
      const before = { ...state.goals };
      for (const g of listening) state.goals[g.name] = Math.min(state.goals[g.name] + 1, g.need);
      if (!b.goals.every((g) => state.goals[g.name] >= g.need)) continue;
      if (b.budgeted && !granted.has(b.name)) {
        state.goals = before; // refused by the budget: the behavior stays as it was before the event (§14)
        out.budgetRefused.push(b.name);
        continue;
      }
      this.complete(b, out);
    }
    for (const name of granted) if (!out.completions.includes(name)) out.grantedWithout.push(name);
    this.record(id, out);
    return out;
  }

  /**
   * Perform complete_campaign (§12): refused (null) when the customer has completed the campaign, or every behavior of
   * it is at a cap; else every behavior not at a cap completed once, and the campaign completed for the customer.
   */
  perform(id: string, campaign: string, granted: ReadonlySet<string> = new Set()): StepOutcome | null {
    const c = this.rules.campaigns.get(campaign);
    if (!c || this.completedCampaigns.has(campaign)) return null;
    const out: StepOutcome = { completions: [], points: 0, budgetRefused: [], grantedWithout: [] };
    for (const b of c.behaviors) {
      if (this.capped(b)) continue;
      if (b.budgeted && !granted.has(b.name)) {
        out.budgetRefused.push(b.name);
        continue;
      }
      this.complete(b, out);
    }
    if (out.completions.length === 0) return null;
    this.completedCampaigns.add(campaign);
    this.record(id, out);
    return out;
  }

  /**
   * A reversal of the submission whose events are `ids` (§13): each completion they made taken back once. Steps not
   * fed yet are taken back when they are. Answers the points and completions taken back now.
   */
  reverse(ids: string[]): { points: number; completions: string[] } {
    const out = { points: 0, completions: [] as string[] };
    for (const id of ids) {
      if (this.reversed.has(id)) continue;
      const made = this.made.get(id);
      if (!made) {
        this.pendingReversal.add(id);
        continue;
      }
      this.reversed.add(id);
      for (const name of made) {
        const b = this.rules.behaviors.find((x) => x.name === name)!;
        const state = this.behaviors.get(name)!;
        state.achieved = Math.max(0, state.achieved - 1);
        state.reversed += b.points;
        out.points += b.points;
        out.completions.push(name);
      }
    }
    return out;
  }

  /** Whether the step was taken back by a reversal. */
  isReversed(id: string): boolean {
    return this.reversed.has(id);
  }

  private capped(b: ModelBehavior): boolean {
    return b.maxTimes !== null && this.behaviors.get(b.name)!.achieved >= b.maxTimes;
  }

  private complete(b: ModelBehavior, out: StepOutcome): void {
    const state = this.behaviors.get(b.name)!;
    state.achieved += 1;
    state.made += 1;
    state.credited += b.points;
    for (const g of b.goals) state.goals[g.name] = 0; // progress resets for the next cycle
    out.completions.push(b.name);
    out.points += b.points;
    // §7: completed when every behavior of the campaign has a total cap and has reached it.
    const campaign = this.rules.campaigns.get(b.campaign)!;
    if (campaign.behaviors.every((x) => this.capped(x))) this.completedCampaigns.add(b.campaign);
  }

  private record(id: string, out: StepOutcome): void {
    this.made.set(id, out.completions);
    if (this.pendingReversal.delete(id)) this.reverse([id]);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Simulations (§15).

export interface SimulatedEvent {
  customerId: string;
  name: string;
  occurredMs: number;
  /** Ties of occurred_at are taken in this order (the service: the order stored, by id). */
  order: number;
}

/** The members of a simulation's answer the model gives (contract §15). */
export interface SimulationExpectation {
  customers: number;
  events_replayed: number;
  points: number;
  achievements: number;
  customers_achieved: number;
  behaviors: Record<string, { achievements: number; customers_achieved: number; points: number }>;
  by_day: Array<{ day: string; achievements: number; points: number }>;
  states: Record<string, number>;
}

/** `YYYY-MM-DD` of `ms` in `timeZone`. */
export function dayIn(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));
}

/**
 * A simulation of `campaign` over `events` (those of its range and customers): per customer, from no progress, each
 * event in occurred_at order (ties by `order`), only that campaign's behaviors, its caps within the simulation. A
 * campaign with a budget is not modelled (the budget would be spent across customers in time order): it throws.
 * `states`: the campaign's state after each event, `qualified` unless every behavior listening is at its total cap.
 */
export function simulate(rules: ModelRules, campaign: string, events: SimulatedEvent[], timeZone: string): SimulationExpectation {
  const c = rules.campaigns.get(campaign);
  if (!c) throw new Error(`the soak's model has no campaign ${campaign}`);
  if (c.budget) throw new Error(`the soak's model does not simulate campaign ${campaign}: it has a budget`);
  const out: SimulationExpectation = { customers: 0, events_replayed: events.length, points: 0, achievements: 0, customers_achieved: 0, behaviors: {}, by_day: [], states: {} };
  const byCustomer = new Map<string, SimulatedEvent[]>();
  for (const e of events) byCustomer.set(e.customerId, [...(byCustomer.get(e.customerId) ?? []), e]);
  const days = new Map<string, { achievements: number; points: number }>();
  out.customers = byCustomer.size;
  for (const own of byCustomer.values()) {
    own.sort((a, b) => a.occurredMs - b.occurredMs || a.order - b.order);
    const model = new CustomerModel(rules);
    const achieved = new Set<string>();
    own.forEach((e, i) => {
      // The state is judged before the event's progress (§7), as the service's answer for it.
      const state = model.atCap(campaign, e.name) ? 'reached_frequency_cap' : 'qualified';
      const done = model.event(String(i), e.name, new Set(), campaign);
      out.states[state] = (out.states[state] ?? 0) + 1;
      for (const name of done.completions) {
        const points = c.behaviors.find((b) => b.name === name)!.points;
        const b = (out.behaviors[name] ??= { achievements: 0, customers_achieved: 0, points: 0 });
        b.achievements += 1;
        b.points += points;
        out.achievements += 1;
        out.points += points;
        const day = dayIn(e.occurredMs, timeZone);
        const d = days.get(day) ?? { achievements: 0, points: 0 };
        days.set(day, { achievements: d.achievements + 1, points: d.points + points });
        if (!achieved.has(name)) {
          if (achieved.size === 0) out.customers_achieved += 1;
          achieved.add(name);
          b.customers_achieved += 1;
        }
      }
    });
  }
  out.by_day = [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, d]) => ({ day, ...d }));
  return out;
}

/**
 * The members of `actual` (a simulation's stored results, with its `customers` and `events_replayed`) that differ
 * from `expected`: behaviors with no achievement count as absent on either side; members the model does not give
 * (effects, tiers) are not compared. Empty when they agree.
 */
export function simulationDifferences(expected: SimulationExpectation, actual: Record<string, unknown>): string[] {
  const behaviors = (value: unknown) =>
    Object.fromEntries(
      Object.entries((value ?? {}) as Record<string, { achievements: number; customers_achieved: number; points: number }>)
        .filter(([, b]) => b.achievements !== 0 || b.points !== 0 || b.customers_achieved !== 0)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, b]) => [name, { achievements: b.achievements, customers_achieved: b.customers_achieved, points: b.points }]),
    );
  const sorted = (value: unknown) => JSON.stringify(Object.fromEntries(Object.entries((value ?? {}) as Record<string, number>).sort(([a], [b]) => (a < b ? -1 : 1))));
  const show = (value: unknown) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return text.length > 200 ? `${text.slice(0, 200)}...` : text;
  };
  const out: string[] = [];
  for (const key of ['customers', 'events_replayed', 'points', 'achievements', 'customers_achieved'] as const) {
    if (Number(actual[key]) !== expected[key]) out.push(`${key} ${show(actual[key])}, model ${expected[key]}`);
  }
  const [eb, ab] = [JSON.stringify(behaviors(expected.behaviors)), JSON.stringify(behaviors(actual.behaviors))];
  if (eb !== ab) out.push(`behaviors ${show(ab)}, model ${show(eb)}`);
  const days = (value: unknown) => JSON.stringify(((value ?? []) as SimulationExpectation['by_day']).map((d) => ({ day: d.day, achievements: d.achievements, points: d.points })));
  const [ed, ad] = [days(expected.by_day), days(actual.by_day)];
  if (ed !== ad) out.push(`by_day ${show(ad)}, model ${show(ed)}`);
  const [es, as] = [sorted(expected.states), sorted(actual.states)];
  if (es !== as) out.push(`states ${as}, model ${es}`);
  return out;
}
