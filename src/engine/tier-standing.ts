/**
 * Tier qualification periods, reviews and downgrades (contract §17), pure: a customer's tier as the policy gives it for
 * their credits, reversals and tier outcomes by `occurred_at`, as of `now`, whatever order they arrived in.
 *
 * - `lifetime` (the default, §5): the highest tier the customer's points have reached at any time, never lowered.
 * - `period`: calendar periods of 1, 3, 6 or 12 months in the organization's time zone. Within a period a customer
 *   moves up at once when the period's qualifying points reach a higher tier's `minPoints` (a tier outcome counts as
 *   qualifying for its tier). Each period is reviewed `graceDays` after it ends: a customer whose ended period qualified
 *   for their tier or higher, or reached their tier's `retainPoints`, keeps it (or moves up); otherwise `one_level`
 *   moves them down one tier and `to_qualified` to what the ended period qualified for. A review never puts a customer
 *   below what the running period has qualified for so far. Reviews chain: every period up to now is reviewed.
 */
import { localParts, startOfLocalDay } from './time.js';
import type { RankedTier, TierChangeReason, TierFact, TierPolicy } from './types.js';

/** A period: from `start` (included) to `end` (excluded), epoch ms. */
export interface Period {
  start: number;
  end: number;
}

/** One move of the tier, and why: what the explanation and the tier's history say. */
export interface TierChange {
  at: number;
  fromTierId: number | null;
  toTierId: number | null;
  reason: TierChangeReason;
  /** The period whose qualifying points decided it (null under lifetime). */
  period: Period | null;
  /** The points it was decided on: the period's qualifying points, or the lifetime points. */
  points: number;
}

export interface TierInput {
  policy: TierPolicy;
  tiers: readonly RankedTier[];
  facts: readonly TierFact[];
  now: number;
  timeZone: string;
  /**
   * A policy change: the tier the customer had when it happened is kept at least until the first review effective
   * after `at` (a policy change never lowers a tier by itself).
   */
  floor?: { tierId: number | null; at: number };
}

export interface TierStanding {
  tierId: number | null;
  /** The running period (null under lifetime). */
  period: Period | null;
  /** The running period's qualifying points; lifetime points under lifetime. */
  qualifyingPoints: number;
  /** When the next review takes effect: the ended period's while its grace runs, else the running one's (null under lifetime). */
  reviewAt: number | null;
  /** The tier that review would give with the points so far (null under lifetime, or no tier). */
  tierAfterReview: number | null;
  /** Every move up to now, oldest first. */
  changes: TierChange[];
}

/**
 * Periods already found, by zone and length, ascending and contiguous as found: a customer's facts and reviews ask for
 * few, and a walk asks for the same ones again and again (a binary search here costs less than the zone's calendar).
 */
const calendars = new Map<string, Array<Period[] | undefined>>();
const PERIODS_MAX = 10_000;

/** The calendar period of `months` months holding the instant, in the zone (12: years from 1 January; 3: quarters). */
export function periodAt(ms: number, months: number, timeZone: string): Period {
  let zone = calendars.get(timeZone);
  if (!zone) calendars.set(timeZone, (zone = []));
  let known = zone[months];
  if (!known || known.length >= PERIODS_MAX) zone[months] = known = [];
  // The last period starting at or before the instant.
  let low = 0;
  let high = known.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (known[mid].start <= ms) low = mid + 1;
    else high = mid;
  }
  if (low > 0 && ms < known[low - 1].end) return known[low - 1];
  const p = localParts(ms, timeZone);
  const period = calendarPeriod(p.year, p.month, months, timeZone);
  known.splice(low, 0, period);
  return period;
}

/** The period of `months` months holding the local month; frozen, since periodAt hands the same one to every caller. */
function calendarPeriod(year: number, month: number, months: number, timeZone: string): Period {
  const first = Math.floor((month - 1) / months) * months + 1;
  const next = first + months;
  const end = next > 12 ? startOfLocalDay(year + 1, next - 12, 1, timeZone) : startOfLocalDay(year, next, 1, timeZone);
  return Object.freeze({ start: startOfLocalDay(year, first, 1, timeZone), end });
}

/** When a period's review takes effect: the start of the local day `graceDays` after it ends. */
export function reviewTime(period: Period, graceDays: number, timeZone: string): number {
  if (graceDays === 0) return period.end;
  const known = reviews.get(period);
  if (known?.graceDays === graceDays && known.timeZone === timeZone) return known.at;
  const p = localParts(period.end, timeZone);
  const at = startOfLocalDay(p.year, p.month, p.day + graceDays, timeZone);
  reviews.set(period, { graceDays, timeZone, at });
  return at;
}

/** The last review time found for a period (periodAt hands out the same period objects; a policy has one grace). */
const reviews = new WeakMap<Period, { graceDays: number; timeZone: string; at: number }>();

/** The first review effective after `at` (the ended period's while its grace runs, else the running one's); null under lifetime. */
export function nextReviewAfter(policy: TierPolicy, at: number, timeZone: string): number | null {
  if (policy.basis === 'lifetime') return null;
  const running = periodAt(at, policy.periodMonths, timeZone);
  const ended = reviewTime(periodAt(running.start - 1, policy.periodMonths, timeZone), policy.graceDays, timeZone);
  return ended > at ? ended : reviewTime(running, policy.graceDays, timeZone);
}

/** The customer's tier under the policy as of `input.now`, with the period, the next review and every move. */
export function tierStanding(input: TierInput): TierStanding {
  return input.policy.basis === 'lifetime' ? lifetimeStanding(input) : new PeriodWalk(input, input.policy).run();
}

/** Index of the highest tier whose `minPoints` the points reach; -1 for none. */
function rankFor(tiers: readonly RankedTier[], points: number): number {
  let rank = -1;
  tiers.forEach((tier, i) => {
    if (tier.minPoints <= points) rank = i;
  });
  return rank;
}

const idAt = (tiers: readonly RankedTier[], rank: number): number | null => (rank < 0 ? null : tiers[rank].id);
const rankOf = (tiers: readonly RankedTier[], tierId: number | null): number => (tierId === null ? -1 : tiers.findIndex((t) => t.id === tierId));

/** The facts up to `now` in `occurred_at` order, those of one instant together (their order of arrival does not count). */
function moments(facts: readonly TierFact[], now: number): Array<{ at: number; points: number; outcomeTierIds: number[] }> {
  const byAt = new Map<number, { at: number; points: number; outcomeTierIds: number[] }>();
  for (const fact of facts) {
    if (fact.at > now) continue;
    const moment = byAt.get(fact.at) ?? { at: fact.at, points: 0, outcomeTierIds: [] };
    if ('points' in fact) moment.points += fact.points;
    else moment.outcomeTierIds.push(fact.tierId);
    byAt.set(fact.at, moment);
  }
  return [...byAt.values()].sort((a, b) => a.at - b.at);
}

function lifetimeStanding({ tiers, facts, now, floor }: TierInput): TierStanding {
  const changes: TierChange[] = [];
  let rank = -1;
  let points = 0;
  const move = (to: number, at: number, reason: TierChangeReason) => {
    if (to <= rank) return;
    changes.push({ at, fromTierId: idAt(tiers, rank), toTierId: idAt(tiers, to), reason, period: null, points });
    rank = to;
  };
  for (const moment of moments(facts, now)) {
    if (floor && floor.at <= moment.at) move(rankOf(tiers, floor.tierId), floor.at, 'policy');
    points += moment.points;
    move(rankFor(tiers, points), moment.at, 'points');
    for (const tierId of moment.outcomeTierIds) move(rankOf(tiers, tierId), moment.at, 'outcome');
  }
  if (floor && floor.at <= now) move(rankOf(tiers, floor.tierId), floor.at, 'policy');
  return { tierId: idAt(tiers, rank), period: null, qualifyingPoints: points, reviewAt: null, tierAfterReview: null, changes };
}

/** The period policy, walked through time: the facts' moments and the reviews, in order. */
class PeriodWalk {
  private rank = -1;
  private readonly changes: TierChange[] = [];
  /** Per period (by its start): qualifying points, and the highest tier an outcome of it named. */
  private readonly periods = new Map<number, { period: Period; points: number; outcomeRank: number }>();
  private floorPending: { rank: number; at: number } | null;
  /** The start of the first period walked: reviews chain from it. */
  private walkStart = 0;

  constructor(
    private readonly input: TierInput,
    private readonly policy: Extract<TierPolicy, { basis: 'period' }>,
  ) {
    this.floorPending = input.floor ? { rank: rankOf(input.tiers, input.floor.tierId), at: input.floor.at } : null;
  }

  run(): TierStanding {
    const { now, timeZone } = this.input;
    const months = this.policy.periodMonths;
    const steps = moments(this.input.facts, now);
    const first = Math.min(steps[0]?.at ?? now, this.input.floor?.at ?? now, now);
    // Every review effective up to now, from the period of the first fact (or of the policy change) on.
    const reviews: Array<{ at: number; period: Period }> = [];
    this.walkStart = periodAt(first, months, timeZone).start;
    for (let period = periodAt(first, months, timeZone); period.start <= now; period = periodAt(period.end, months, timeZone)) {
      const at = reviewTime(period, this.policy.graceDays, timeZone);
      if (at <= now) reviews.push({ at, period });
    }
    let next = 0;
    for (const step of steps) {
      // A review effective at the instant of a fact comes first: the fact then counts in the running period.
      while (next < reviews.length && reviews[next].at <= step.at) this.review(reviews[next++]);
      this.applyFloor(step.at);
      this.fact(step);
    }
    while (next < reviews.length) this.review(reviews[next++]);
    this.applyFloor(now);
    return this.standing();
  }

  private entry(period: Period) {
    let entry = this.periods.get(period.start);
    if (!entry) this.periods.set(period.start, (entry = { period, points: 0, outcomeRank: -1 }));
    return entry;
  }

  private qualified(entry: { points: number; outcomeRank: number }): number {
    return Math.max(rankFor(this.input.tiers, entry.points), entry.outcomeRank);
  }

  private move(to: number, at: number, reason: TierChangeReason, period: Period | null, points: number): void {
    if (to === this.rank) return;
    this.changes.push({ at, fromTierId: idAt(this.input.tiers, this.rank), toTierId: idAt(this.input.tiers, to), reason, period, points });
    this.rank = to;
  }

  /** The tier at the policy change, kept (raised to) from its time on, until the first review after it. */
  private applyFloor(at: number): void {
    const floor = this.floorPending;
    if (!floor || floor.at > at) return;
    if (floor.rank > this.rank) this.move(floor.rank, floor.at, 'policy', null, 0);
  }

  private fact(step: { at: number; points: number; outcomeTierIds: number[] }): void {
    const entry = this.entry(periodAt(step.at, this.policy.periodMonths, this.input.timeZone));
    entry.points += step.points;
    const byPoints = rankFor(this.input.tiers, entry.points);
    if (byPoints > this.rank) this.move(byPoints, step.at, 'points', entry.period, entry.points);
    for (const tierId of step.outcomeTierIds) {
      const rank = rankOf(this.input.tiers, tierId);
      entry.outcomeRank = Math.max(entry.outcomeRank, rank);
      if (rank > this.rank) this.move(rank, step.at, 'outcome', entry.period, entry.points);
    }
  }

  private review({ at, period }: { at: number; period: Period }): void {
    this.applyFloor(at);
    // The first review effective after the policy change may lower the tier kept until it.
    if (this.floorPending && this.floorPending.at < at) this.floorPending = null;
    const ended = this.entry(period);
    const running = this.entry(periodAt(period.end, this.policy.periodMonths, this.input.timeZone));
    this.move(this.reviewed(ended, running), at, 'review', period, ended.points);
  }

  /** What a review of `ended` gives a customer on the current tier, with `running` qualified for so far. */
  private reviewed(ended: { points: number; outcomeRank: number }, running: { points: number; outcomeRank: number }): number {
    const qualified = this.qualified(ended);
    const kept = qualified >= this.rank || ended.points >= this.input.tiers[this.rank].retainPoints;
    const to = kept ? Math.max(this.rank, qualified) : this.policy.downgrade === 'one_level' ? this.rank - 1 : qualified;
    return Math.max(to, this.qualified(running));
  }

  private standing(): TierStanding {
    const { now, timeZone, tiers } = this.input;
    const months = this.policy.periodMonths;
    const current = this.entry(periodAt(now, months, timeZone));
    // While the ended period's grace runs, its review is the next one.
    const previous = periodAt(current.period.start - 1, months, timeZone);
    const pending = previous.start >= this.walkStart && reviewTime(previous, this.policy.graceDays, timeZone) > now ? this.entry(previous) : null;
    const reviewed = pending ?? current;
    const after = this.reviewed(reviewed, pending ? current : { points: 0, outcomeRank: -1 });
    return {
      tierId: idAt(tiers, this.rank),
      period: current.period,
      qualifyingPoints: current.points,
      reviewAt: reviewTime(reviewed.period, this.policy.graceDays, timeZone),
      tierAfterReview: idAt(tiers, after),
      changes: this.changes,
    };
  }
}
