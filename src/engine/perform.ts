import { ExtensionFailure, skippedDetail, stampFailure, withBulkheads, type Skipped } from './bulkheads.js';
import { capReached } from './caps.js';
import { campaignState, type StateCheck, type StateContext } from './campaign-state.js';
import { behaviorsInvolved, compiledFrom } from './compile.js';
import type { CompiledBehavior, CompiledCampaign, CompiledRules } from './compiled.js';
import { Evaluation, type EvaluateInput } from './evaluate.js';
import type { BehaviorExplanation, CampaignExplanation, EventExplanation } from './explanation.js';
import { behaviorApplies, experimentGroup, HOLDOUT } from './experiments.js';
import { cloneProgress, completedGoalCount, emptyBehaviorProgress, goalProgress } from './progress.js';
import { iso } from './time.js';
import type { PerformFailureReason, PerformResult } from './result.js';
import type { CustomerSnapshot, EventInstance, ProgressMap, RulesView } from './types.js';

export interface PerformInput {
  rules: CompiledRules;
  customer: CustomerSnapshot;
  /** Progress of the behaviors performBehaviorsInvolved() names; a missing entry means no progress yet. */
  progress: ProgressMap;
  campaignId: number;
  now: number;
  multiOrgEnabled: boolean;
  /** What is left of the budgeted campaigns' budgets (EvaluateInput.budgets). */
  budgets?: EvaluateInput['budgets'];
  /**
   * The event the perform stores (name, attributes and context as the caller stores them), so that the event evaluated
   * is the one stored; default `complete_campaign` in the customer's own division.
   */
  instance?: EventInstance;
}

/**
 * The behaviors whose progress perform reads or writes: every behavior of the campaign, and those the events raised
 * by their outcomes may reach. `rules`: those compileRules made.
 */
export function performBehaviorsInvolved(rules: RulesView, campaignId: number): number[] {
  const campaign = compiledFrom(rules).campaigns.get(campaignId);
  if (!campaign) return [];
  const ids = new Set(campaign.behaviors.map((b) => b.rule.id));
  const raised = campaign.behaviors.flatMap((b) => b.raises);
  for (const id of behaviorsInvolved(rules, raised)) ids.add(id);
  return [...ids].sort((a, b) => a - b);
}

/**
 * Whether each behavior of the campaign can still take progress for the customer at `now` (no cap reached): the
 * `eligible` / `ineligible` filters of perform's behaviors section.
 */
export function behaviorEligibility(rules: CompiledRules, campaignId: number, progress: ProgressMap, customer: CustomerSnapshot, now: number): Record<number, boolean> {
  const out: Record<number, boolean> = {};
  for (const behavior of rules.campaigns.get(campaignId)?.behaviors ?? []) {
    out[behavior.rule.id] = capReached(behavior, progress[behavior.rule.id] ?? emptyBehaviorProgress(), now, customer.timeZone) === null;
  }
  return out;
}

/**
 * Perform `complete_campaign` (contract §12): completes every behavior of the campaign once for the customer, as if
 * the customer had earned every goal of it at `now`. Each completion is the engine's own (points of the behavior and
 * of every goal, offers, tags, tier, triggered notifications, raised events, at most MAX_EVENT_DEPTH deep), so the
 * result is what evaluate() answers and the same write stores it. A behavior at a cap (total, period, month, year)
 * is left as it is. The campaign is then completed for the customer, and an opt-in campaign has the customer
 * qualified. Pure, like evaluate().
 */
export function perform(input: PerformInput): PerformResult {
  return withBulkheads((skipped) => new Performance(input, skipped).perform());
}

/** The event a perform stores and evaluates by default: complete_campaign, in the customer's own division (perform acts in its place). */
export function performInstance(customer: CustomerSnapshot, now: number, multiOrgEnabled: boolean): EventInstance {
  return { name: 'complete_campaign', count: 1, attributes: {}, context: multiOrgEnabled ? { division_id: customer.divisionId } : {}, occurredAt: now, day: null };
}

/** The performed campaign opts the customer in: its conditions are judged as with `qualify: true`. */
function performState(ctx: StateContext, campaign: CompiledCampaign, instance: EventInstance): StateCheck {
  return campaignState({ ...ctx, qualify: true }, campaign, instance);
}

/**
 * Whether the customer meets the campaign's conditions (targeting, division, prerequisites; opt-in counts as met) for a
 * perform's event: what perform answers as `qualified`, whatever the domain action did.
 */
export function performQualified(input: Omit<PerformInput, 'progress' | 'budgets'> & { instance: EventInstance }): boolean {
  const campaign = input.rules.campaigns.get(input.campaignId);
  if (!campaign) return false;
  const ctx: StateContext = { rules: input.rules, customer: input.customer, progress: {}, now: input.now, multiOrgEnabled: input.multiOrgEnabled, qualify: true };
  try {
    return performState(ctx, campaign, input.instance).state === 'qualified';
  } catch (error) {
    // Its targeting's extension threw: the conditions are not known to be met.
    if (error instanceof ExtensionFailure) return false;
    throw error;
  }
}

class Performance extends Evaluation {
  private readonly campaignId: number;
  private readonly instance: EventInstance | undefined;

  constructor(input: PerformInput, skipped: Skipped) {
    // qualify false: events raised by outcomes must not opt the customer into other opt-in campaigns (contract §7);
    // the performed campaign itself is qualified explicitly below.
    const engineInput = { rules: input.rules, customer: input.customer, progress: input.progress, events: [], now: input.now, multiOrgEnabled: input.multiOrgEnabled, qualify: false, budgets: input.budgets };
    super(engineInput, skipped);
    this.campaignId = input.campaignId;
    this.instance = input.instance;
  }

  perform(): PerformResult {
    const now = this.input.now;
    const campaign = this.input.rules.campaigns.get(this.campaignId);
    const fail = this.fail.bind(this);
    if (!campaign || campaign.rule.status !== 'live') return fail('campaign_not_live', 'the campaign is not live');
    const c = campaign.rule;
    if (c.startsAt > now) return fail('campaign_not_started', `the campaign starts at ${iso(c.startsAt)}`);
    if (c.endsAt < now) return fail('campaign_over', `the campaign ended at ${iso(c.endsAt)}`);
    if (this.customer.completedCampaignIds.includes(c.id)) return fail('already_completed', 'the customer has already completed the campaign');
    if (campaign.behaviors.length === 0) return fail('nothing_to_complete', 'the campaign has no behaviors');
    const failure = this.skipped.get(c.id);
    // An extension the campaign's rules or rewards call threw: nothing of the campaign is completed.
    if (failure) return fail('extension_failed', skippedDetail(failure));
    try {
      return this.completeCampaign(campaign);
    } catch (error) {
      throw stampFailure(error, c.id, 0);
    }
  }

  private completeCampaign(campaign: CompiledCampaign): PerformResult {
    const now = this.input.now;
    const c = campaign.rule;
    const fail = this.fail.bind(this);
    this.recomputeTier();
    const instance = this.instance ?? performInstance(this.customer, now, this.input.multiOrgEnabled);
    if (this.input.rules.experiments.length) this.experimentsSee(instance, c.id);
    const group = experimentGroup(c, this.customer);
    if (group === HOLDOUT) return fail('holdout', "the customer is in the holdout of the campaign's experiment");
    const state = performState(this.ctx, campaign, instance);
    const entry: EventExplanation = { event_index: 0, event: instance.name, occurred_at: iso(now), depth: 0, detail: 'perform complete_campaign', campaigns: [] };
    const explanation: CampaignExplanation = { campaign_id: c.id, campaign_name: c.name, state: 'qualified', detail: `forced through by perform; conditions: ${state.detail}`, behaviors: [] };
    entry.campaigns.push(explanation);
    this.result.explanation.push(entry);

    const raised: EventInstance[] = [];
    let completed = 0;
    for (const behavior of campaign.behaviors) {
      if (!behaviorApplies(behavior.rule, group)) continue;
      const step = this.completeOnce(behavior, instance, raised);
      if (step.verdict === 'completed') completed += 1;
      explanation.behaviors.push(step);
    }
    if (completed === 0) return fail('nothing_to_complete', this.result.budgetRefused.length ? 'the campaign budget is used up' : 'every behavior of the campaign is at a cap');

    if (c.optInRequired && !this.customer.qualifiedCampaignIds.includes(c.id)) {
      this.customer.qualifiedCampaignIds.push(c.id);
      this.result.qualifiedCampaignIds.push(c.id);
    }
    if (!this.customer.completedCampaignIds.includes(c.id)) {
      this.customer.completedCampaignIds.push(c.id);
      this.result.completedCampaignIds.push(c.id);
    }
    this.recordState(c.id, 'qualified');
    this.evaluatedBy(c.id, instance);
    // Raised after every behavior is complete: an event outcome cannot complete a behavior of this campaign twice.
    for (const event of raised) this.process(event, 1);
    return { ...this.finish(), failure: null, qualified: state.state === 'qualified' };
  }

  private fail(reason: PerformFailureReason, detail: string): PerformResult {
    return { ...this.finish(), failure: { reason, detail }, qualified: false };
  }

  /** Earns every goal of the behavior and records the completion, unless the behavior is at a cap. */
  private completeOnce(behavior: CompiledBehavior, instance: EventInstance, raised: EventInstance[]): BehaviorExplanation {
    const rule = behavior.rule;
    const out: BehaviorExplanation = { behavior_id: rule.id, behavior_name: rule.name, verdict: 'completed', detail: '', goals: [] };
    const cap = capReached(behavior, this.progress[rule.id] ?? emptyBehaviorProgress(), instance.occurredAt, this.customer.timeZone);
    if (cap) {
      out.verdict = 'cap_reached';
      out.detail = cap.kind === 'total' ? `reached its total cap of ${cap.limit}; left as it is` : `reached its ${cap.kind} cap of ${cap.limit}; left as it is`;
      return out;
    }
    const p = this.writable(behavior);
    const before = cloneProgress(p);
    const countBefore = completedGoalCount(behavior, p);
    const changes: number[] = [];
    for (const goal of behavior.goals) {
      const g = goalProgress(p, goal.key);
      changes.push(goal.rule.eventCount - g.count);
      g.count = goal.rule.eventCount;
      g.completed = true;
      out.goals.push({ goal_id: goal.rule.id, goal_name: goal.rule.name, verdict: 'counted', detail: `earned by perform: ${g.count}/${goal.rule.eventCount}, goal complete` });
    }
    if (!this.budgetAllows(behavior, p, out)) {
      Object.assign(p, before);
      return out;
    }
    behavior.goals.forEach((goal, i) => this.goalDelta(goal, changes[i], null));
    for (const goal of behavior.goals) this.goalAdvanced(goal, true);
    const achievedBefore = p.achieved;
    const notes = [`behavior completed by perform (achieved ${achievedBefore} → ${p.achieved}); goal progress reset for the next cycle`];
    raised.push(...this.complete(behavior, p, instance, notes));
    this.behaviorDelta(rule.id, completedGoalCount(behavior, p) - countBefore, 1);
    out.detail = notes.join('; ');
    return out;
  }
}
