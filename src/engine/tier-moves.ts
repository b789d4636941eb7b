/**
 * How an evaluation moves the customer's tier (contract §5, §17): up under lifetime, up and down under a period policy
 * (tierStanding), with the reason and the explanation's words for it.
 */
import type { CompiledRules } from './compiled.js';
import type { EvaluationResult, TierMove, TierStep } from './result.js';
import { iso } from './time.js';
import { tierStanding, type TierChange, type TierInput, type TierStanding } from './tier-standing.js';
import type { CustomerSnapshot, TierChangeReason, TierFact, TierPolicy } from './types.js';

/** Moves the customer up to this tier if it ranks higher; never down (lifetime). */
export function liftTier(rules: CompiledRules, customer: CustomerSnapshot, result: EvaluationResult, tierId: number, reason: TierChangeReason, at: number): void {
  if (tierRank(rules, tierId) > tierRank(rules, customer.tierId)) moveTier(rules, customer, result, tierId, reason, at);
}

/**
 * Moves the customer to this tier; the result's change runs from the tier stored before the evaluation, along `path`
 * (the moves the rules imply, oldest first; its first move then starts from the stored tier) when it ends on this
 * tier, else along the evaluation's earlier moves and then one step from the tier it had (each lift of a request under
 * lifetime, say).
 */
export function moveTier(
  rules: CompiledRules,
  customer: CustomerSnapshot,
  result: EvaluationResult,
  tierId: number | null,
  reason: TierMove['reason'],
  at: number,
  path: TierStep[] = [],
): void {
  const from = result.tierChange ? result.tierChange.fromTierId : customer.tierId;
  const move = { fromTierId: customer.tierId, toTierId: tierId, reason, at };
  const rank = tierRank(rules, tierId);
  customer.tierId = tierId;
  // Moves that land on the stored tier first are no moves from it.
  const start = path.findIndex((step) => step.toTierId !== from);
  const rebased = start < 0 ? [] : [{ ...path[start], fromTierId: from }, ...path.slice(start + 1)];
  const steps = rebased.at(-1)?.toTierId === tierId ? rebased : [...(result.tierChange?.steps ?? []), move];
  result.tierChange = from === tierId ? null : { fromTierId: from, toTierId: tierId, toTierName: rank < 0 ? null : rules.tiers[rank].name, direction: tierDirection(rules, from, tierId), reason, at, steps };
}

/**
 * The moves of `standing` not written yet: from where it parts from the stored facts' standing (`stored`) on (a
 * back-dated credit may part from it years back), or from the first of the stored standing's reviews effective at or
 * after `reviewAt` (the customer's next review as stored: one due but not yet written by the workers), whichever
 * comes first.
 */
export function newSteps(stored: TierStanding, standing: TierStanding, reviewAt: number | null = null): TierStep[] {
  const same = (a: TierChange, b: TierChange | undefined) => b !== undefined && a.at === b.at && a.fromTierId === b.fromTierId && a.toTierId === b.toTierId && a.reason === b.reason;
  const written = (b: TierChange) => b.reason !== 'review' || reviewAt === null || b.at < reviewAt;
  let parted = 0;
  while (parted < standing.changes.length && same(standing.changes[parted], stored.changes[parted]) && written(stored.changes[parted])) parted += 1;
  return standing.changes.slice(parted).map(({ fromTierId, toTierId, reason, at }) => ({ fromTierId, toTierId, reason, at }));
}

/** Up when `to` ranks above `from` (no tier, or a deleted one, ranks below every tier). */
export function tierDirection(rules: CompiledRules, from: number | null, to: number | null): TierMove['direction'] {
  return tierRank(rules, to) > tierRank(rules, from) ? 'up' : 'down';
}

/**
 * Why, and when, a period policy's standing moves a customer off the tier `from` (an evaluation's and a review's move
 * alike): a deleted tier's customer moves for that reason; otherwise the standing's last move says why (`otherwise`
 * when it has none). A review's move takes effect at its time, any other now.
 */
export function periodMove(
  rules: CompiledRules,
  from: number | null,
  standing: TierStanding,
  now: number,
  otherwise: TierChangeReason,
): { reason: TierMove['reason']; at: number; change: TierChange | undefined } {
  const change = standing.changes.at(-1);
  const reason = from !== null && tierRank(rules, from) < 0 ? 'tier_deleted' : (change?.reason ?? otherwise);
  return { reason, at: reason === 'review' && change ? change.at : now, change };
}

/** Why a period policy moved the tier: the rule, the period and its qualifying points. */
export function periodDecision(rules: CompiledRules, reason: TierMove['reason'], change: TierChange | undefined): string {
  const policy = rules.tierRules.policy as Extract<TierPolicy, { basis: 'period' }>;
  const rule = `period policy of ${policy.periodMonths} month(s), ${policy.downgrade}, ${policy.graceDays} grace day(s)`;
  if (reason === 'tier_deleted') return `the tier no longer exists; the qualifying points give this one (${rule})`;
  if (!change?.period) return `the tier held at the policy change is kept until the first review after it (${rule})`;
  const period = `the period ${iso(change.period.start)} to ${iso(change.period.end)}`;
  const what = reason === 'review' ? `review of ${period}, ${change.points} qualifying point(s)` : reason === 'outcome' ? `a tier outcome in ${period}` : `${change.points} qualifying point(s) in ${period}`;
  return `${what} (${rule})`;
}

/** What the tier standing is asked: the customer's stored facts and `more`, the policy-change floor, the rules' policy. */
function customerTierInput(rules: CompiledRules, stored: Pick<CustomerSnapshot, 'tierFacts' | 'tierFloorId'>, now: number, more: TierFact[] = []): TierInput {
  const { policy, timeZone, policyChangedAt } = rules.tierRules;
  const input: TierInput = { policy, tiers: rules.rankedTiers, facts: [...(stored.tierFacts ?? []), ...more], now, timeZone };
  if (policyChangedAt !== null) input.floor = { tierId: stored.tierFloorId ?? null, at: policyChangedAt };
  return input;
}

/** A customer's tier standing as of `now` under the rules' policy, from their stored facts (what reads answer, §17). */
export function customerTierStanding(rules: CompiledRules, stored: Pick<CustomerSnapshot, 'tierFacts' | 'tierFloorId'>, now: number): TierStanding {
  return tierStanding(customerTierInput(rules, stored, now));
}

/** The standing's input during an evaluation: the stored facts with the evaluation's credits and tier outcomes. */
export function tierInput(rules: CompiledRules, stored: CustomerSnapshot, result: EvaluationResult, now: number): TierInput {
  const facts: TierFact[] = [];
  for (const credit of result.credits) facts.push({ at: credit.at, points: credit.amount });
  for (const outcome of result.tierOutcomes) facts.push({ at: outcome.at, tierId: outcome.tierId });
  return customerTierInput(rules, stored, now, facts);
}

export function tierRank(rules: CompiledRules, tierId: number | null): number {
  return tierId === null ? -1 : rules.tiers.findIndex((t) => t.id === tierId);
}

