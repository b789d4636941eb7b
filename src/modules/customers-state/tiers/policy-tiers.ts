import { periodAt, reviewTime, type RankedTier, type TierFact, type TierPolicy } from '../../../engine/index.js';
import { AMOUNT_OFFSET, MONTH_FACTOR, type MonthWindow, type PreviewCustomerRow } from './tier-policy-preview.repository.js';

/**
 * The tier policy preview's computation (contract §17), pure: the tier a policy gives each of a million customers from
 * their facts by month, as tierStanding gives it, with customers of equivalent facts sharing one computation
 * (PolicyTiers). Calling tierStanding for each customer cost 14 to 110 µs a customer (15 to 110 s for 1,000,000);
 * shared, a 12-month policy's preview of 1,000,000 customers takes about 14 s (docs/performance.md). The e2e spec
 * checks the shared answers against tierStanding's for random customers, policies, tiers and zones.
 */

/** A customer's qualification facts by month of the organization's zone: what the standings are computed from. */
export interface MonthFacts {
  /** Distinct months, ascending, each with its points (credits not reversed) and the tiers its outcomes named. */
  months: number[];
  points: number[];
  outcomes: ReadonlyArray<readonly number[]>;
}

/** Month numbers (`year * 12 + month - 1` of the zone) to the instant they start, as the preview's SQL found them. */
export class MonthCalendar {
  private readonly starts = new Map<number, number>();

  constructor(private readonly timeZone: string, window?: MonthWindow) {
    window?.starts.forEach((at, i) => this.starts.set(window.first + i, at.getTime()));
  }

  at(month: number): number {
    let at = this.starts.get(month);
    if (at === undefined) {
      // Outside the window: the local month holding the 15th at noon UTC (no zone is 12 days off).
      const year = Math.floor(month / 12);
      at = periodAt(Date.UTC(year, month - year * 12, 15, 12), 1, this.timeZone).start;
      this.starts.set(month, at);
    }
    return at;
  }
}

/** Where a month's facts go: the segment they can be summed into, and the period holding it. */
interface Segment {
  /** The first month of the segment: the facts of the segment are placed at its start. */
  rep: number;
  period: number;
}

/**
 * The tier a policy gives customers as of `now`, from their facts by month, as `tierStanding` does: each customer's
 * answer is `tierStanding` of their facts (the customers' tiers are not computed another way), but many customers share
 * one computation:
 * - The facts of a **segment** (the months of a period between its start and the reviews that take effect in it) are
 *   summed and placed at its first month: between two reviews each fact only raises the tier to what the period
 *   qualifies for so far, so the order of the segment's facts does not count, nor does where in it they lie
 *   (their period, hence the reviews walked, is the same).
 * - The tier depends on the points only through their comparisons with the tiers' `minPoints` and `retainPoints`:
 *   customers whose period sums after each segment fall between the same thresholds, with the same outcomes in the
 *   same segments (and the same floor), get the same tier. That is the memo's key.
 * - Reviews of periods without any fact end up giving one tier whatever the tier was (`to_qualified` at the first,
 *   `one_level` after as many as there are tiers): what came before such a run of reviews is left out of the key.
 * A month whose points are negative (not a credit's) takes the plain computation from the months. The e2e spec checks
 * the answers against tierStanding's for random customers, policies, tiers and zones.
 */
export class PolicyTiers {
  private readonly segments = new Map<number, Segment>();
  private readonly memo = new Map<string, number | null>();
  private readonly thresholds: number[];
  private readonly rank = new Map<number, number>();
  private readonly reviews = new Map<number, number>();
  /** Reviews of empty periods in a row after which the tier is the same whatever it was (Infinity: never). */
  private readonly emptyReviews: number;
  /** Memo entries kept at most (a monthly policy's keys are mostly distinct). */
  private static readonly MEMO_MAX = 200_000;

  constructor(
    tiers: readonly RankedTier[],
    private readonly policy: TierPolicy,
    private readonly calendar: MonthCalendar,
    private readonly timeZone: string,
    private readonly now: number,
    /** The standing's tier from the facts (with the customer's floor, when the policy has one). */
    private readonly compute: (facts: TierFact[], floorTierId: number | null) => number | null,
    /** Whether the customers' floor counts (the current policy, changed since the floors were set). */
    private readonly withFloor = false,
  ) {
    this.thresholds = [...new Set(tiers.flatMap((t) => [t.minPoints, t.retainPoints]))].sort((a, b) => a - b);
    tiers.forEach((t, i) => this.rank.set(t.id, i));
    this.emptyReviews = policy.basis === 'period' ? emptyReviewsToForget(tiers, policy) : Infinity;
  }

  tierOf(facts: MonthFacts, floorTierId: number | null = null): number | null {
    const { months, points, outcomes } = facts;
    // Facts after now do not count yet (tierStanding leaves them out): they would not once placed in their segment.
    let n = months.length;
    while (n > 0 && this.calendar.at(months[n - 1]) > this.now) n -= 1;
    let key = this.withFloor ? `${floorTierId ?? '-'}|` : '';
    const merged: TierFact[] = [];
    if (this.policy.basis === 'lifetime') {
      let total = 0;
      let best = -2;
      for (let i = 0; i < n; i += 1) {
        if (points[i] < 0) return this.plain(facts, n, floorTierId);
        total += points[i];
        for (const tierId of outcomes[i]) best = Math.max(best, this.rank.get(tierId) ?? -1);
      }
      if (n > 0) {
        const at = this.calendar.at(months[0]);
        merged.push({ at, points: total });
        for (let i = 0; i < n; i += 1) for (const tierId of outcomes[i]) merged.push({ at, tierId });
        key += `${this.classOf(total)}:${best}`;
      }
    } else {
      const periodMonths = this.policy.periodMonths;
      const pieces: string[] = [];
      const reps: number[] = [];
      const instants: number[] = [];
      let rep = NaN;
      let period = NaN;
      let cum = 0;
      let sum = 0;
      let best = -2;
      let ids: number[] = [];
      const flush = () => {
        cum += sum;
        const at = this.calendar.at(rep);
        merged.push({ at, points: sum });
        for (const tierId of ids) merged.push({ at, tierId });
        pieces.push(`${rep}:${this.classOf(cum)}:${best}`);
        reps.push(rep);
        instants.push(at);
      };
      for (let i = 0; i < n; i += 1) {
        if (points[i] < 0) return this.plain(facts, n, floorTierId);
        const segment = this.segment(months[i]);
        if (segment.rep !== rep) {
          if (!Number.isNaN(rep)) flush();
          if (segment.period !== period) cum = 0;
          rep = segment.rep;
          period = segment.period;
          sum = 0;
          best = -2;
          ids = [];
        }
        sum += points[i];
        for (const tierId of outcomes[i]) {
          best = Math.max(best, this.rank.get(tierId) ?? -1);
          ids.push(tierId);
        }
      }
      if (!Number.isNaN(rep)) flush();
      // What came before the last run of empty periods whose reviews leave every tier the same does not count: the
      // runs are found from the periods after each segment's, reviewed before the next segment (and now). A floor in the
      // run does not change it: reviews and floors are monotone in the tier, so the run's outcome is a max of a constant
      // and what the floor's tier would give (the same for every customer with that floor).
      let from = 0;
      for (let j = pieces.length - 1; j >= 0 && this.emptyReviews !== Infinity; j -= 1) {
        if (this.review(Math.floor(reps[j] / periodMonths) + this.emptyReviews) <= Math.min(instants[j + 1] ?? Infinity, this.now)) {
          from = j + 1;
          break;
        }
      }
      key += from > 0 ? `R|${pieces.slice(from).join(';')}` : pieces.join(';');
    }
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const tierId = this.compute(merged, floorTierId);
    if (this.memo.size >= PolicyTiers.MEMO_MAX) this.memo.clear();
    this.memo.set(key, tierId);
    return tierId;
  }

  /** The standing from the months as they are, without the memo. */
  private plain({ months, points, outcomes }: MonthFacts, n: number, floorTierId: number | null): number | null {
    const facts: TierFact[] = [];
    for (let i = 0; i < n; i += 1) {
      const at = this.calendar.at(months[i]);
      facts.push({ at, points: points[i] });
      for (const tierId of outcomes[i]) facts.push({ at, tierId });
    }
    return this.compute(facts, floorTierId);
  }

  /** When the review of period `k` (periods numbered from year 0: month `k * periodMonths`) takes effect. */
  private review(k: number): number {
    let review = this.reviews.get(k);
    if (review === undefined) {
      const policy = this.policy as Extract<TierPolicy, { basis: 'period' }>;
      const month = k * policy.periodMonths;
      const year = Math.floor(month / 12);
      review = reviewTime(periodAt(Date.UTC(year, month - year * 12, 15, 12), policy.periodMonths, this.timeZone), policy.graceDays, this.timeZone);
      this.reviews.set(k, review);
    }
    return review;
  }

  /** How many thresholds the points reach: the points' class. */
  private classOf(points: number): number {
    let c = 0;
    while (c < this.thresholds.length && this.thresholds[c] <= points) c += 1;
    return c;
  }

  /** The segment of a month under the period policy: its period, and the last boundary (period start or review) before it. */
  private segment(month: number): Segment {
    let segment = this.segments.get(month);
    if (segment) return segment;
    const policy = this.policy as Extract<TierPolicy, { basis: 'period' }>;
    const at = this.calendar.at(month);
    const period = periodAt(at, policy.periodMonths, this.timeZone);
    let boundary = period.start;
    // The reviews of earlier periods that take effect within this one (grace days), up to the month's start.
    if (policy.graceDays > 0) {
      for (let q = periodAt(period.start - 1, policy.periodMonths, this.timeZone); ; q = periodAt(q.start - 1, policy.periodMonths, this.timeZone)) {
        const review = reviewTime(q, policy.graceDays, this.timeZone);
        if (review <= period.start) break;
        if (review <= at && review > boundary) boundary = review;
      }
    }
    let rep = month;
    while (this.calendar.at(rep - 1) >= boundary) rep -= 1;
    segment = { rep, period: period.start };
    this.segments.set(month, segment);
    return segment;
  }
}

/**
 * After how many reviews in a row of periods without any fact (none in them, none in the period after them when
 * reviewed) a customer's tier is the same whatever it was before: the review PeriodWalk makes of an empty period,
 * applied to every tier (and none) until they all give one. `to_qualified` forgets at once (unless a tier's
 * retain_points is 0: kept for nothing); `one_level` after as many reviews as tiers; Infinity when never.
 */
export function emptyReviewsToForget(tiers: readonly RankedTier[], policy: Extract<TierPolicy, { basis: 'period' }>): number {
  let empty = -1;
  tiers.forEach((t, i) => {
    if (t.minPoints <= 0) empty = i;
  });
  const review = (rank: number) => {
    const kept = empty >= rank || tiers[rank].retainPoints <= 0;
    const to = kept ? Math.max(rank, empty) : policy.downgrade === 'one_level' ? rank - 1 : empty;
    return Math.max(to, empty);
  };
  let ranks = Array.from({ length: tiers.length + 1 }, (_, i) => i - 1);
  for (let reviews = 1; reviews <= tiers.length + 1; reviews += 1) {
    ranks = ranks.map(review);
    if (ranks.every((r) => r === ranks[0])) return reviews;
  }
  return Infinity;
}

/** The outcomes of a month without any (shared: most months have none). */
const NO_OUTCOMES: readonly number[] = Object.freeze([]);

/**
 * A customer's credits and outcomes, as the repository encodes them, by month. Read character by character: a million
 * customers with twenty credits each are twenty million numbers.
 */
export function monthFacts(row: Pick<PreviewCustomerRow, 'credits' | 'outcomes'>): MonthFacts {
  const months: number[] = [];
  const points: number[] = [];
  const outcomes: Array<readonly number[]> = [];
  /** The index of the month, inserted in order if new (the credits come mostly in time order). */
  const at = (month: number): number => {
    let i = months.length;
    if (i === 0 || months[i - 1] < month) {
      months.push(month);
      points.push(0);
      outcomes.push(NO_OUTCOMES);
      return i;
    }
    while (i > 0 && months[i - 1] > month) i -= 1;
    if (i > 0 && months[i - 1] === month) return i - 1;
    months.splice(i, 0, month);
    points.splice(i, 0, 0);
    outcomes.splice(i, 0, NO_OUTCOMES);
    return i;
  };
  const text = row.credits;
  if (text) {
    let value = 0;
    let negative = false;
    for (let i = 0; i <= text.length; i += 1) {
      const c = i < text.length ? text.charCodeAt(i) : 44;
      if (c === 44) {
        const v = negative ? -value : value;
        const month = Math.floor(v / MONTH_FACTOR);
        points[at(month)] += v - month * MONTH_FACTOR - AMOUNT_OFFSET;
        value = 0;
        negative = false;
      } else if (c === 45) negative = true;
      else value = value * 10 + (c - 48);
    }
  }
  if (row.outcomes) {
    for (const item of row.outcomes.split(',')) {
      const colon = item.indexOf(':');
      const i = at(Number(item.slice(0, colon)));
      outcomes[i] = [...outcomes[i], Number(item.slice(colon + 1))];
    }
  }
  return { months, points, outcomes };
}

