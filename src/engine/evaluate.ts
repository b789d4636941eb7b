import { failureRecords, NONE_SKIPPED, skippedDetail, stampFailure, withBulkheads, withBulkheadsStepwise, type Skipped } from './bulkheads.js';
import { capReached, pruneCompletions, windowIndex } from './caps.js';
import { campaignReach, campaignState, campaignSeesEvent, StateContext, tierName } from './campaign-state.js';
import { campaignsListeningTo, MAX_EVENT_DEPTH } from './compile.js';
import type { CompiledBehavior, CompiledCampaign, CompiledGoal, CompiledOutcome, CompiledRules } from './compiled.js';
import type { RewardContext } from './definitions.js';
import type { BehaviorExplanation, CampaignExplanation, CampaignState, EventExplanation } from './explanation.js';
import { budgetRefusal, completionPoints, spend, type BudgetLeft } from './budget.js';
import { behaviorApplies, experimentGroup, groupAddition, metricValue } from './experiments.js';
import { applyToGoal } from './goals.js';
import { cloneProgress, emptyBehaviorProgress, goalsCounted, groupCounts, hasCycleProgress, requiredGoalCount, resetCycle } from './progress.js';
import { iso } from './time.js';
import { tierStanding } from './tier-standing.js';
import { customerTierStanding, liftTier, moveTier, newSteps, periodDecision, periodMove, tierInput } from './tier-moves.js';
import type { CreditReason, EvaluationResult, PointsCredit } from './result.js';
import type { BehaviorProgress, CustomerSnapshot, EventInstance, ProgressMap } from './types.js';

export interface EvaluateInput {
  rules: CompiledRules;
  customer: CustomerSnapshot;
  /** Progress of the behaviors involved (see behaviorsInvolved); a missing entry means no progress yet. */
  progress: ProgressMap;
  events: EventInstance[];
  now: number;
  multiOrgEnabled: boolean;
  /** Only this campaign's rules run (a V1 path naming a campaign). */
  campaignId?: number | null;
  /** Body `qualify: true`: opt-in campaigns qualify the customer first. */
  qualify?: boolean;
  /**
   * What is left of each budgeted campaign's budget (contract §14). A budgeted campaign missing here is not known yet:
   * its completions happen and are counted in `budgetUse`, for the caller to check against the exact figures (and
   * evaluate again with them when they do not fit).
   */
  budgets?: Record<number, BudgetLeft>;
  /**
   * Whether the result carries the explanation (default true). Without it `explanation` is empty and no time is spent
   * formatting it: callers that do not keep it (V1 without `explain`, the events worker, a simulation) say false.
   */
  explain?: boolean;
}

/** States in which a campaign did not evaluate an instance: it was not live at the time, or did not target the customer. */
const NOT_EVALUATED: ReadonlySet<CampaignState> = new Set(['campaign_not_started', 'campaign_over', 'not_targeted_to_campaign']);

const NO_BEHAVIORS: ReadonlyMap<CompiledBehavior, CompiledGoal[]> = new Map();

/**
 * Evaluates event instances for one customer against compiled campaign rules (contract §7). Pure: the same input
 * always gives the same result, and nothing outside the result is changed.
 */
export function evaluate(input: EvaluateInput): EvaluationResult {
  return withBulkheads((skipped) => new Evaluation(input, skipped).run());
}

/**
 * The same evaluation, one submitted instance at a time: the generator yields after each instance (raised events
 * included), so that its caller may let other work run between them, and returns what evaluate() returns for the
 * same input, however it is driven.
 */
export function evaluateStepwise(input: EvaluateInput): Generator<void, EvaluationResult, void> {
  return withBulkheadsStepwise((skipped) => new Evaluation(input, skipped).steps());
}

/**
 * One evaluation's working state. Exported for the engine's other entry points (perform.ts); not part of the index.
 */
export class Evaluation {
  protected readonly customer: CustomerSnapshot;
  protected readonly progress: ProgressMap;
  protected readonly changed = new Set<number>();
  protected readonly ctx: StateContext;
  protected readonly result: EvaluationResult;
  protected readonly firstFailure: { state: CampaignState | null } = { state: null };
  protected anyQualified = false;
  /** The submitted instance being evaluated (raised events belong to it). */
  protected eventIndex = 0;
  /** What is left of the budgets as completions use them (a copy of the input's). */
  protected readonly budgetLeft: Record<number, BudgetLeft>;
  private readonly explains: boolean;
  /** A tier decision made before any event was explained (a review found due): it goes on the first event. */
  private pendingTierNote: string | null = null;
  /** The credits and tier outcomes the last tier standing counted (period policies): -1 before the first. */
  private tierFactsCounted = -1;
  /** Campaigns whose experiment assignment of the customer this evaluation made or measured. */
  private readonly assignmentsChanged = new Set<number>();

  constructor(
    protected readonly input: EvaluateInput,
    /** Campaigns an extension's failure made this evaluation skip (withBulkheads). */
    protected readonly skipped: Skipped = NONE_SKIPPED,
  ) {
    const c = input.customer;
    this.customer = {
      ...c,
      tags: [...c.tags],
      qualifiedCampaignIds: [...c.qualifiedCampaignIds],
      completedCampaignIds: [...c.completedCampaignIds],
      ...(c.experiments ? { experiments: { ...c.experiments } } : {}),
    };
    this.progress = { ...input.progress };
    this.ctx = {
      rules: input.rules,
      customer: this.customer,
      progress: this.progress,
      now: input.now,
      multiOrgEnabled: input.multiOrgEnabled,
      qualify: input.qualify ?? false,
    };
    this.result = {
      state: 'events_not_qualified',
      campaignStates: {},
      customer: this.customer,
      progress: {},
      behaviorDeltas: {},
      goalDeltas: {},
      credits: [],
      tagsAdded: [],
      tierChange: null,
      offersIssued: [],
      notifications: [],
      completions: [],
      qualifiedCampaignIds: [],
      completedCampaignIds: [],
      explanation: [],
      budgetUse: {},
      budgetRefused: [],
      effects: [],
      tierOutcomes: [],
      evaluated: [],
      goalsAdvanced: [],
      experiments: [],
      extensionFailures: failureRecords(skipped),
    };
    this.budgetLeft = {};
    for (const [id, left] of Object.entries(input.budgets ?? {})) this.budgetLeft[Number(id)] = { ...left };
    this.explains = input.explain ?? true;
  }

  run(): EvaluationResult {
    const steps = this.steps();
    for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
  }

  /** Evaluates the submitted instances in order, yielding after each; returns the result. */
  *steps(): Generator<void, EvaluationResult, void> {
    // The tier follows lifetime points even when a tier was created or lowered after the customer earned them.
    this.recomputeTier();
    for (const [index, instance] of this.input.events.entries()) {
      this.eventIndex = index;
      this.process(instance, 0);
      yield;
    }
    return this.finish();
  }

  /** The result: the request's state, and the progress of every behavior that changed. */
  protected finish(): EvaluationResult {
    // A campaign an extension failed is not hidden behind another campaign's failure.
    const failed = this.result.extensionFailures.length > 0 ? 'extension_failed' : null;
    this.result.state = this.anyQualified ? 'qualified' : (failed ?? this.firstFailure.state ?? 'events_not_qualified');
    for (const id of this.changed) this.result.progress[id] = this.progress[id];
    const move = this.result.tierChange;
    if (move && move.reason !== 'review') move.at = this.input.now;
    if (this.input.rules.experiments.length) this.experimentOutcomes();
    const first = this.result.explanation[0];
    if (this.pendingTierNote && first) first.detail = first.detail ? `${this.pendingTierNote}; ${first.detail}` : this.pendingTierNote;
    return this.result;
  }

  protected process(instance: EventInstance, depth: number): void {
    const occurredAt = this.explains ? iso(instance.occurredAt) : '';
    const entry: EventExplanation = { event_index: this.eventIndex, event: instance.name, occurred_at: occurredAt, depth, detail: '', campaigns: [] };
    if (this.explains) this.result.explanation.push(entry);
    if (depth === 0 && this.input.rules.experiments.length) this.experimentsSee(instance);
    const listening = campaignsListeningTo(this.input.rules, instance.name, this.input.campaignId ?? null);
    if (listening.length === 0) entry.detail = 'no live campaign has a goal listening to this event name';

    for (const campaign of listening) {
      if (campaign.rule.status !== 'live' || !campaignSeesEvent(this.ctx, campaign, instance)) continue;
      const id = campaign.rule.id;
      if (this.skipped.has(id)) {
        entry.campaigns.push(this.skippedCampaign(campaign, depth));
        continue;
      }
      try {
        entry.campaigns.push(this.processCampaign(campaign, campaign.listening.get(instance.name) ?? NO_BEHAVIORS, instance, depth));
      } catch (error) {
        throw stampFailure(error, id, this.eventIndex);
      }
    }
    if (entry.campaigns.length === 0 && listening.length > 0) entry.detail = "no listening campaign is live in the event's division";
  }

  /** A campaign an extension's failure made the evaluation skip: it calls nothing, and says why. */
  private skippedCampaign(campaign: CompiledCampaign, depth: number): CampaignExplanation {
    const id = campaign.rule.id;
    if (depth === 0) this.recordState(id, 'extension_failed');
    const detail = skippedDetail(this.skipped.get(id)!);
    return { campaign_id: id, campaign_name: campaign.rule.name, state: 'extension_failed', detail, behaviors: [], skipped: true, reason: 'extension_failed' };
  }

  private processCampaign(
    campaign: CompiledCampaign,
    behaviors: ReadonlyMap<CompiledBehavior, CompiledGoal[]>,
    instance: EventInstance,
    depth: number,
  ): CampaignExplanation {
    const check = campaignState(this.ctx, campaign, instance);
    const id = campaign.rule.id;
    const explanation: CampaignExplanation = { campaign_id: id, campaign_name: campaign.rule.name, state: check.state, detail: check.detail, behaviors: [] };
    if (check.holdout) {
      // As if the campaign did not target the customer, absent from the answer; the explanation says why (§20).
      if (depth === 0) this.firstFailure.state ??= check.state;
      return { ...explanation, skipped: true, reason: 'holdout' };
    }
    if (depth === 0) this.recordState(id, check.state);
    if (!NOT_EVALUATED.has(check.state)) this.evaluatedBy(id, instance);
    if (check.qualifiedNow) {
      this.customer.qualifiedCampaignIds.push(id);
      this.result.qualifiedCampaignIds.push(id);
    }
    if (check.state !== 'qualified' && check.state !== 'reached_frequency_period_cap' && check.state !== 'reached_frequency_cap') {
      return explanation;
    }
    const group = experimentGroup(campaign.rule, this.customer);
    for (const [behavior, goals] of behaviors) {
      if (behaviorApplies(behavior.rule, group)) explanation.behaviors.push(this.processBehavior(behavior, goals, instance, depth));
    }
    return explanation;
  }

  /**
   * The experiments of the campaigns the instance reaches (§20): a customer not yet assigned is assigned, at the
   * instance's time; an assigned customer's metric event (at or after the assignment) adds to their x. `scope`: the
   * campaign the instance is for (a scoped V1 event, perform), the only one that may assign.
   */
  protected experimentsSee(instance: EventInstance, scope: number | null = this.input.campaignId ?? null): void {
    for (const campaign of this.input.rules.experiments) {
      if (this.skipped.has(campaign.rule.id)) continue;
      try {
        this.experimentSees(campaign, instance, scope);
      } catch (error) {
        throw stampFailure(error, campaign.rule.id, this.eventIndex);
      }
    }
  }

  private experimentSees(campaign: CompiledCampaign, instance: EventInstance, scope: number | null): void {
    const { id, experiment } = campaign.rule;
    const stored = this.customer.experiments?.[id];
    // An event scoped to another campaign is not evaluated by this one: it assigns nobody here (it still measures).
    const scoped = scope !== null && scope !== id;
    if (!stored && (scoped || campaign.rule.status !== 'live' || !campaignSeesEvent(this.ctx, campaign, instance) || campaignReach(this.ctx, campaign, instance))) return;
    const measured = experiment!.metric.event === instance.name && instance.occurredAt >= (stored?.assignedAt ?? instance.occurredAt);
    if (stored && !measured) return;
    const assignment = stored ? { ...stored } : { group: experimentGroup(campaign.rule, this.customer)!, assignedAt: instance.occurredAt, metricSum: 0, metricEvents: 0 };
    if (measured) {
      assignment.metricSum += metricValue(experiment!, instance);
      assignment.metricEvents += 1;
    }
    (this.customer.experiments ??= {})[id] = assignment;
    this.assignmentsChanged.add(id);
  }

  /** Each running experiment's outcome for the customer: their assignment, and what it adds to their group's sums. */
  private experimentOutcomes(): void {
    for (const campaign of this.input.rules.experiments) {
      const id = campaign.rule.id;
      const assignment = this.customer.experiments?.[id];
      if (!assignment) continue;
      const achievements = this.result.completions.filter((c) => c.campaignId === id).length;
      const points = this.result.credits.reduce((sum, c) => sum + (c.campaignId === id ? c.amount : 0), 0);
      const stored = this.assignmentsChanged.has(id);
      if (!stored && achievements === 0 && points === 0) continue;
      const added = groupAddition(this.input.customer.experiments?.[id], assignment, achievements, points);
      this.result.experiments.push({ campaignId: id, assignment, stored, added });
    }
  }

  protected recordState(campaignId: number, state: CampaignState): void {
    const previous = this.result.campaignStates[campaignId];
    if (previous === 'budget_exhausted') return;
    if (previous === undefined || (previous !== 'qualified' && state === 'qualified')) this.result.campaignStates[campaignId] = state;
    if (state === 'qualified') this.anyQualified = true;
    else this.firstFailure.state ??= state;
  }

  /**
   * Whether the campaign's budget lets a completion of the behavior with progress `p` happen; when it does, the
   * completion is counted against it. When it does not, the campaign's state for the request is budget_exhausted.
   */
  protected budgetAllows(behavior: CompiledBehavior, p: BehaviorProgress, explanation: BehaviorExplanation): boolean {
    const campaign = behavior.campaign.rule;
    if (!campaign.budget) return true;
    const left = (this.budgetLeft[campaign.id] ??= { completions: null, points: null });
    const points = completionPoints(this.input.rules, behavior, p);
    const refusal = budgetRefusal(campaign.budget, left, points);
    if (refusal) {
      explanation.verdict = 'budget_exhausted';
      explanation.detail = refusal;
      this.result.campaignStates[campaign.id] = 'budget_exhausted';
      if (!this.result.budgetRefused.includes(campaign.id)) this.result.budgetRefused.push(campaign.id);
      this.anyQualified = Object.values(this.result.campaignStates).includes('qualified');
      this.firstFailure.state ??= 'budget_exhausted';
      return false;
    }
    spend(left, points);
    const use = (this.result.budgetUse[campaign.id] ??= { completions: 0, points: 0 });
    use.completions += 1;
    use.points += points;
    return true;
  }

  protected writable(behavior: CompiledBehavior): BehaviorProgress {
    const id = behavior.rule.id;
    if (!this.changed.has(id)) {
      this.progress[id] = this.progress[id] ? cloneProgress(this.progress[id]) : emptyBehaviorProgress();
      this.changed.add(id);
    }
    return this.progress[id];
  }

  private processBehavior(behavior: CompiledBehavior, goals: CompiledGoal[], instance: EventInstance, depth: number): BehaviorExplanation {
    const rule = behavior.rule;
    const explanation: BehaviorExplanation = { behavior_id: rule.id, behavior_name: rule.name, verdict: 'no_progress', detail: '', goals: [] };
    const tz = this.customer.timeZone;
    const current = this.progress[rule.id] ?? emptyBehaviorProgress();
    const cap = capReached(behavior, current, instance.occurredAt, tz);
    if (cap) {
      explanation.verdict = 'cap_reached';
      if (this.explains) {
        explanation.detail =
          cap.kind === 'total'
            ? `reached its total cap of ${cap.limit} completion(s); takes no more progress`
            : `reached its ${cap.kind} cap of ${cap.limit} completion(s); takes progress again from ${iso(cap.until!)}`;
      }
      return explanation;
    }

    const p = this.writable(behavior);
    // A budgeted campaign's behavior may have to stay as it was before this event (contract §14).
    const before = behavior.campaign.rule.budget ? cloneProgress(p) : null;
    const notes: string[] = [];
    let reset = false;
    if (rule.useSamePeriod) {
      const window = windowIndex(behavior, instance.occurredAt);
      if (window !== null && p.window !== null && p.window !== window && hasCycleProgress(p)) {
        resetCycle(p);
        reset = true;
        notes.push('progress from an earlier period was dropped (use_same_period)');
      }
      if (window !== null && (p.window === null || !hasCycleProgress(p))) p.window = window;
    }

    const achievedBefore = p.achieved;
    const countBefore = goalsCounted(groupCounts(behavior, p));
    const deltas: Array<[CompiledGoal, number, string | null]> = [];
    const advanced: Array<[CompiledGoal, boolean]> = [];
    for (const goal of goals) {
      const step = applyToGoal(goal, p, instance, tz);
      explanation.goals.push(step.explanation);
      // News for the funnel: the goal's first progress in this cycle, or its completion.
      if (step.completedNow || (step.countChange > 0 && p.goals[goal.key].count === step.countChange)) advanced.push([goal, step.completedNow]);
      if (step.countChange !== 0 || step.newPivot !== null || step.explanation.verdict === 'streak_restarted') {
        deltas.push([goal, step.countChange, step.newPivot]);
      }
    }

    const counts = groupCounts(behavior, p);
    const completed = counts.every((g) => g.complete);
    if (completed && before && !this.budgetAllows(behavior, p, explanation)) {
      Object.assign(p, before);
      return explanation;
    }
    const progressed = deltas.length > 0;
    for (const [goal, change, pivot] of deltas) this.goalDelta(goal, change, pivot);
    for (const [goal, completedNow] of advanced) this.goalAdvanced(goal, completedNow);
    if (reset) this.markReset(rule.id);
    const goalsDone = goalsCounted(counts);
    const rewardNotes: string[] = [];
    const raised = completed ? this.complete(behavior, p, instance, rewardNotes) : [];
    // A completion starts the next cycle with no goal complete.
    this.behaviorDelta(rule.id, (completed ? 0 : goalsDone) - countBefore, completed ? 1 : 0);
    if (completed) {
      this.markReset(rule.id);
      explanation.verdict = 'completed';
    } else if (progressed) {
      explanation.verdict = 'progressed';
    }
    if (this.explains) {
      if (completed) notes.push(`behavior completed (achieved ${achievedBefore} → ${p.achieved}); goal progress reset for the next cycle`, ...rewardNotes);
      else if (progressed) notes.push(`${goalsDone} of ${requiredGoalCount(behavior)} required goal(s) complete in this cycle`);
      else notes.push('no goal progressed');
    }
    for (const event of raised) {
      if (depth + 1 > MAX_EVENT_DEPTH) {
        notes.push(`event outcome "${event.name}" not raised: outcome events nest at most ${MAX_EVENT_DEPTH} deep`);
        continue;
      }
      notes.push(`raised event "${event.name}" (depth ${depth + 1})`);
      this.process(event, depth + 1);
    }
    explanation.detail = notes.join('; ');
    return explanation;
  }

  /** The campaign evaluated the instance (counted in its analytics' events). */
  protected evaluatedBy(campaignId: number, instance: EventInstance): void {
    this.result.evaluated.push({ eventIndex: this.eventIndex, campaignId, at: instance.occurredAt });
  }

  protected goalAdvanced(goal: CompiledGoal, completed: boolean): void {
    this.result.goalsAdvanced.push({ goalId: goal.rule.id, completed });
  }

  protected goalDelta(goal: CompiledGoal, countChange: number, pivot: string | null): void {
    const d = (this.result.goalDeltas[goal.rule.id] ??= { currentCount: 0, pivots: [] });
    d.currentCount += countChange;
    if (pivot !== null) d.pivots.push(pivot);
  }

  protected behaviorDelta(behaviorId: number, currentCount: number, achieved: number): void {
    const d = (this.result.behaviorDeltas[behaviorId] ??= { currentCount: 0, achieved: 0 });
    d.currentCount += currentCount;
    d.achieved += achieved;
  }

  protected markReset(behaviorId: number): void {
    (this.result.behaviorDeltas[behaviorId] ??= { currentCount: 0, achieved: 0 }).reset = true;
  }

  /**
   * Records a completion and its rewards; answers the events its rewards raise, for the caller to evaluate. What the
   * rewards have to say goes into `notes` (the behavior's explanation).
   */
  protected complete(behavior: CompiledBehavior, p: BehaviorProgress, instance: EventInstance, notes: string[]): EventInstance[] {
    const rule = behavior.rule;
    const campaignId = behavior.campaign.rule.id;
    const at = instance.occurredAt;
    const completedGoals = behavior.goals.filter((g) => p.goals[g.key]?.completed);
    p.achieved += 1;
    p.completions.push(at);
    pruneCompletions(behavior, p);
    this.result.completions.push({ eventIndex: this.eventIndex, campaignId, behaviorId: rule.id, achieved: p.achieved, at });

    const award = new Award(this.input.rules, this.customer, this.result, { eventIndex: this.eventIndex, campaignId, behaviorId: rule.id, at }, instance, this.explains ? notes : null);
    award.creditFor(rule.points, 'behavior');
    for (const goal of completedGoals) award.creditFor(goal.rule.points, 'goal', goal.rule.id);

    for (const tag of rule.tags) {
      if (!this.customer.tags.includes(tag)) {
        this.customer.tags.push(tag);
        this.result.tagsAdded.push(tag);
      }
    }
    for (const outcome of behavior.outcomes) award.apply(outcome);
    this.recomputeTier();
    this.notify(behavior);
    resetCycle(p);
    this.checkCampaignCompleted(behavior.campaign);
    return award.raised;
  }

  private notify(behavior: CompiledBehavior): void {
    const subject = { customer: this.customer, tierName: tierName(this.input.rules, this.customer.tierId) };
    for (const creative of behavior.creatives) {
      const c = creative.rule;
      if (behavior.campaign.rule.status !== 'live' || !c.statuses.every((s) => s === 'live') || creative.targets(subject)) continue;
      this.result.notifications.push({
        eventIndex: this.eventIndex,
        creativeId: c.id,
        campaignId: c.campaignId,
        behaviorId: behavior.rule.id,
        behaviorName: behavior.rule.name,
        type: c.adType,
        data: { action_type: c.actionType, url: c.url, message: c.message, payload: c.payload },
      });
    }
  }

  /**
   * The customer's tier as the organization's policy gives it. Under lifetime (§5): the highest tier the lifetime points
   * reach, never lowered. Under a period policy (§17): the tier standing of the stored facts with this evaluation's
   * credits and tier outcomes added, as of now: moves up at once, and down when a review is due.
   */
  protected recomputeTier(): void {
    const { rules } = this.input;
    const before = this.customer.tierId;
    if (rules.tierRules.policy.basis === 'lifetime') {
      const earned = rules.tiers.filter((t) => t.minPoints <= this.customer.lifetimePoints).at(-1);
      if (earned) liftTier(rules, this.customer, this.result, earned.id, 'points', this.input.now);
      if (this.customer.tierId !== before) this.explainTier(before, `${this.customer.lifetimePoints} lifetime points reach its min_points ${earned!.minPoints} (lifetime policy)`);
      return;
    }
    // Only new credits or tier outcomes can move the standing within an evaluation (its `now` is one).
    const counted = this.result.credits.length + this.result.tierOutcomes.length;
    if (counted === this.tierFactsCounted) return;
    this.tierFactsCounted = counted;
    const input = tierInput(rules, this.input.customer, this.result, this.input.now);
    const standing = tierStanding(input);
    if (standing.tierId !== before) {
      const { reason, at, change } = periodMove(rules, before, standing, this.input.now, 'points');
      // The path from the stored tier: the moves these facts add to what the stored facts gave (a back-dated event's
      // upgrade at its time, then each review since), and any review due but not written yet, with their own reasons
      // and times.
      const stored = this.input.customer;
      const path = reason === 'tier_deleted' ? [] : newSteps(customerTierStanding(rules, stored, this.input.now), standing, stored.tierReviewAt ?? null);
      moveTier(rules, this.customer, this.result, standing.tierId, reason, at, path);
      this.explainTier(before, periodDecision(rules, reason, change));
    }
    this.customer.tierReviewAt = standing.tierId === null ? null : standing.reviewAt;
    // The next evaluation of the customer (a batch's next event) starts from these facts.
    this.customer.tierFacts = input.facts;
  }

  /** The explanation names the tier decision, on the event being evaluated (the first one for a review found due). */
  private explainTier(from: number | null, why: string): void {
    if (!this.explains) return;
    const rules = this.input.rules;
    const note = `tier ${tierName(rules, from) ?? 'none'} → ${tierName(rules, this.customer.tierId) ?? 'none'}: ${why}`;
    const entry = this.result.explanation.at(-1);
    if (entry) entry.detail = entry.detail ? `${entry.detail}; ${note}` : note;
    else this.pendingTierNote = note;
  }

  protected checkCampaignCompleted(campaign: CompiledCampaign): void {
    const id = campaign.rule.id;
    const group = experimentGroup(campaign.rule, this.customer);
    const behaviors = group === null ? campaign.behaviors : campaign.behaviors.filter((b) => behaviorApplies(b.rule, group));
    if (this.customer.completedCampaignIds.includes(id) || behaviors.length === 0) return;
    const done = behaviors.every((b) => {
      const max = b.rule.maxTimesAchievable;
      return max !== null && (this.progress[b.rule.id]?.achieved ?? 0) >= max;
    });
    if (done) {
      this.customer.completedCampaignIds.push(id);
      this.result.completedCampaignIds.push(id);
    }
  }
}

/** Where a completion's credits and offers come from. */
interface Origin {
  eventIndex: number;
  campaignId: number;
  behaviorId: number;
  at: number;
}

/** One completion's rewards at work (the RewardContext they get): what they award goes into the evaluation's result. */
class Award implements RewardContext {
  /** The events the rewards raised, for the evaluation to process after the completion. */
  readonly raised: EventInstance[] = [];
  /** The reward at work, the points it may still credit and the events it may raise: what it declared. */
  private current: { kind: string; allowance: number; raises: readonly string[]; effects: boolean } | null = null;

  constructor(
    readonly rules: CompiledRules,
    readonly customer: CustomerSnapshot,
    private readonly result: EvaluationResult,
    private readonly origin: Origin,
    private readonly instance: EventInstance,
    /** Null when the evaluation keeps no explanation. */
    private readonly notes: string[] | null,
  ) {}

  get at(): number {
    return this.origin.at;
  }

  /**
   * Applies one outcome's reward. It may credit the points it declared (what the campaign budget counted before the
   * award) and raise the events it declared (whose behaviors were locked and loaded), no more: live evaluation and a
   * simulation could not agree otherwise.
   */
  apply(outcome: CompiledOutcome): void {
    const reward = outcome.reward;
    if (!reward) {
      this.note(`outcome "${outcome.kind}" not awarded: no reward kind of that name is registered`);
      return;
    }
    this.current = { kind: outcome.kind, allowance: reward.points?.(outcome.args, this.rules) ?? 0, raises: reward.raises?.(outcome.args) ?? [], effects: reward.effects === true };
    // The explanation names the extension that decided (the built-ins' notes say what they awarded).
    if (reward.source !== 'core') this.note(`reward "${outcome.kind}" of ${reward.source}`);
    reward.apply(this, outcome.args);
    this.current = null;
  }

  creditFor(amount: number, reason: CreditReason, goalId?: number, offerId?: number): void {
    if (this.current) {
      const allowed = Math.min(amount, this.current.allowance);
      if (allowed < amount) this.note(`reward "${this.current.kind}" credited ${Math.max(allowed, 0)} of ${amount} point(s): it declares no more`);
      amount = allowed;
      this.current.allowance -= Math.max(allowed, 0);
    }
    if (!(amount > 0)) return;
    const { eventIndex, campaignId, behaviorId, at } = this.origin;
    const credit: PointsCredit = { eventIndex, amount, reason, campaignId, behaviorId, at };
    if (goalId !== undefined) credit.goalId = goalId;
    if (offerId !== undefined) credit.offerId = offerId;
    this.result.credits.push(credit);
    this.customer.availablePoints += amount;
    this.customer.lifetimePoints += amount;
  }

  credit(amount: number): void {
    this.creditFor(amount, 'outcome');
  }

  issueOffer(offerId: number): boolean {
    const offer = this.rules.offers.get(offerId);
    if (!offer) return false;
    const { eventIndex, campaignId, behaviorId, at } = this.origin;
    this.result.offersIssued.push({ eventIndex, offerId, campaignId, behaviorId, at });
    this.creditFor(offer.points, 'offer', undefined, offerId);
    return true;
  }

  liftTier(name: string): boolean {
    const tier = this.rules.tiers.find((t) => t.name === name);
    if (!tier) return false;
    this.result.tierOutcomes.push({ eventIndex: this.origin.eventIndex, tierId: tier.id, at: this.origin.at });
    // Under a period policy the outcome qualifies in its period: the completion's recomputeTier() counts it.
    if (this.rules.tierRules.policy.basis === 'lifetime') liftTier(this.rules, this.customer, this.result, tier.id, 'outcome', this.origin.at);
    return true;
  }

  raise(name: string, count: number): void {
    if (this.current && !this.current.raises.includes(name)) {
      this.note(`reward "${this.current.kind}" raised "${name}", which it does not declare: not raised`);
      return;
    }
    const { context, day } = this.instance;
    this.raised.push({ name, count, attributes: {}, context, occurredAt: this.origin.at, day });
  }

  effect(payload: Record<string, unknown>): void {
    if (!this.current?.effects) {
      this.note(`reward "${this.current?.kind ?? 'unknown'}" asked for an after-commit effect, which it does not declare: none`);
      return;
    }
    const { eventIndex, campaignId, behaviorId } = this.origin;
    this.result.effects.push({ eventIndex, kind: this.current.kind, campaignId, behaviorId, payload: structuredClone(payload) });
    this.note(`reward "${this.current.kind}": after-commit effect asked for`);
  }

  note(text: string): void {
    this.notes?.push(text);
  }
}
