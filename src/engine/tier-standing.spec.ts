import fc from 'fast-check';
import { nextReviewAfter, periodAt, reviewTime, tierStanding, type TierInput } from './tier-standing.js';
import type { RankedTier, TierFact, TierPolicy } from './types.js';

const NY = 'America/New_York';
const TIERS: RankedTier[] = [
  { id: 1, name: 'Silver', minPoints: 100, retainPoints: 50 },
  { id: 2, name: 'Gold', minPoints: 500, retainPoints: 300 },
  { id: 3, name: 'Platinum', minPoints: 1000, retainPoints: 1000 },
];
/** Local New York time as epoch ms (EST -5 in winter, EDT -4 from the second Sunday of March). */
const ny = (y: number, m: number, d: number, h = 12) => {
  const guess = Date.UTC(y, m - 1, d, h);
  const offset = new Date(guess).toLocaleString('en-US', { timeZone: NY, timeZoneName: 'shortOffset' }).endsWith('GMT-4') ? 4 : 5;
  return Date.UTC(y, m - 1, d, h + offset);
};
const yearly = (downgrade: 'one_level' | 'to_qualified' = 'one_level', graceDays = 0): TierPolicy => ({ basis: 'period', periodMonths: 12, downgrade, graceDays });
const standing = (policy: TierPolicy, facts: TierFact[], now: number, extra: Partial<TierInput> = {}) => tierStanding({ policy, tiers: TIERS, facts, now, timeZone: NY, ...extra });
const credit = (at: number, points: number): TierFact => ({ at, points });

describe('tier periods in the organization time zone', () => {
  it('are calendar years, quarters, halves and months starting at local midnight, across DST and year ends', () => {
    // 23:30 on 31 December in New York is already 1 January in UTC: still the local year 2026.
    expect(periodAt(Date.UTC(2027, 0, 1, 4, 30), 12, NY)).toEqual({ start: Date.UTC(2026, 0, 1, 5), end: Date.UTC(2027, 0, 1, 5) });
    // The second quarter starts on 1 April, under daylight saving time (UTC-4), and ends on 1 July.
    expect(periodAt(ny(2026, 5, 15), 3, NY)).toEqual({ start: Date.UTC(2026, 3, 1, 4), end: Date.UTC(2026, 6, 1, 4) });
    expect(periodAt(ny(2026, 11, 20), 6, NY)).toEqual({ start: Date.UTC(2026, 6, 1, 4), end: Date.UTC(2027, 0, 1, 5) });
    // March holds the switch to daylight saving time: the month is one hour shorter, and still starts at midnight.
    const march = periodAt(ny(2026, 3, 20), 1, NY);
    expect(march).toEqual({ start: Date.UTC(2026, 2, 1, 5), end: Date.UTC(2026, 3, 1, 4) });
    expect(periodAt(Date.UTC(2026, 5, 1), 12, 'Asia/Tokyo').start).toBe(Date.UTC(2025, 11, 31, 15));
  });

  it('hold the instant, start on the local first of their month and follow one another, whatever order they are asked in', () => {
    const zones = [NY, 'Europe/Paris', 'Asia/Tokyo', 'Australia/Lord_Howe', 'America/Santiago', 'UTC'];
    const localDay = (ms: number, timeZone: string) => {
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric', hourCycle: 'h23' }).formatToParts(ms).map((p) => [p.type, Number(p.value)]),
      );
      return { month: parts.month, day: parts.day };
    };
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: Date.UTC(2015, 0, 1), max: Date.UTC(2035, 0, 1) }), fc.constantFrom(1, 3, 6, 12), fc.constantFrom(...zones)), { minLength: 1, maxLength: 30 }),
        (asks) => {
          for (const [ms, months, zone] of asks) {
            const period = periodAt(ms, months, zone);
            expect(period.start <= ms && ms < period.end).toBe(true);
            const first = localDay(period.start, zone);
            expect([first.day, (first.month - 1) % months]).toEqual([1, 0]);
            expect(localDay(period.start - 1, zone).day).not.toBe(1);
            expect(periodAt(period.end, months, zone).start).toBe(period.end);
            expect(periodAt(period.end - 1, months, zone)).toBe(period);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('are reviewed the grace days after they end, at the start of that local day', () => {
    const year = periodAt(ny(2026, 6, 1), 12, NY);
    expect(reviewTime(year, 0, NY)).toBe(year.end);
    expect(reviewTime(year, 30, NY)).toBe(Date.UTC(2027, 0, 31, 5));
    expect(reviewTime(periodAt(ny(2026, 2, 10), 1, NY), 20, NY)).toBe(Date.UTC(2026, 2, 21, 4)); // after the DST switch
  });
});

describe('the first review after an instant', () => {
  it("is the ended period's while its grace runs, else the running period's; none under lifetime", () => {
    expect(nextReviewAfter(yearly('one_level', 30), ny(2027, 1, 10), NY)).toBe(Date.UTC(2027, 0, 31, 5));
    expect(nextReviewAfter(yearly('one_level', 30), ny(2027, 2, 10), NY)).toBe(Date.UTC(2028, 0, 31, 5));
    expect(nextReviewAfter(yearly(), ny(2026, 12, 31, 23), NY)).toBe(Date.UTC(2027, 0, 1, 5));
    expect(nextReviewAfter({ basis: 'lifetime' }, ny(2026, 5, 1), NY)).toBeNull();
  });
});

describe('tierStanding under a period policy', () => {
  it('moves a customer up at once when the period qualifies them, and says why', () => {
    const s = standing(yearly(), [credit(ny(2026, 2, 1), 80), credit(ny(2026, 3, 1), 40), credit(ny(2026, 4, 1), 400)], ny(2026, 6, 1));
    expect(s.tierId).toBe(2);
    expect(s.qualifyingPoints).toBe(520);
    expect(s.changes.map((c) => [c.toTierId, c.reason, c.points, c.at])).toEqual([
      [1, 'points', 120, ny(2026, 3, 1)],
      [2, 'points', 520, ny(2026, 4, 1)],
    ]);
    expect(s.period).toEqual(periodAt(ny(2026, 6, 1), 12, NY));
    expect(s.reviewAt).toBe(Date.UTC(2027, 0, 1, 5));
    expect(s.tierAfterReview).toBe(2);
  });

  it('counts only the running period: points of last year do not qualify this year', () => {
    const s = standing(yearly(), [credit(ny(2025, 11, 1), 90), credit(ny(2026, 1, 15), 90)], ny(2026, 2, 1));
    expect([s.tierId, s.qualifyingPoints]).toEqual([null, 90]);
  });

  it('keeps a tier at review on its retain points, and moves one level down below them', () => {
    const gold = [credit(ny(2026, 3, 1), 600)];
    // Kept at the 2026 review (600); 2027 brought 299, under Gold's retain 300: one level down at the 2027 review.
    expect(standing(yearly(), [...gold, credit(ny(2027, 5, 1), 299)], ny(2028, 1, 2)).changes.map((c) => [c.toTierId, c.reason])).toEqual([
      [2, 'points'],
      [1, 'review'],
    ]);
    expect(standing(yearly(), [...gold, credit(ny(2027, 5, 1), 300)], ny(2028, 1, 2)).tierId).toBe(2);
    const kept = standing(yearly(), [...gold, credit(ny(2027, 5, 1), 300)], ny(2027, 12, 1));
    expect([kept.tierId, kept.tierAfterReview]).toEqual([2, 2]);
    const short = standing(yearly(), [...gold, credit(ny(2027, 5, 1), 299)], ny(2027, 12, 1));
    expect([short.tierId, short.tierAfterReview]).toEqual([2, 1]);
  });

  it('chains the reviews: three years without activity under one_level drop a level at each', () => {
    const s = standing(yearly(), [credit(ny(2026, 3, 1), 1200)], ny(2030, 6, 1));
    expect(s.changes.map((c) => [c.toTierId, c.reason, c.at])).toEqual([
      [3, 'points', ny(2026, 3, 1)],
      [2, 'review', Date.UTC(2028, 0, 1, 5)], // the 2026 review kept Platinum (1,200 ≥ 1,000); 2027 brought nothing
      [1, 'review', Date.UTC(2029, 0, 1, 5)],
      [null, 'review', Date.UTC(2030, 0, 1, 5)],
    ]);
  });

  it('to_qualified moves a customer to what the ended period qualified for, possibly no tier', () => {
    const facts = [credit(ny(2026, 3, 1), 1200), credit(ny(2027, 3, 1), 150)];
    expect(standing(yearly('to_qualified'), facts, ny(2028, 2, 1)).tierId).toBe(1);
    expect(standing(yearly('to_qualified'), facts.slice(0, 1), ny(2028, 2, 1)).tierId).toBe(null);
  });

  it('holds the tier through the grace days, then reviews; points of the new period move up at once meanwhile', () => {
    const policy = yearly('one_level', 30);
    const facts = [credit(ny(2026, 3, 1), 600)];
    const inGrace = standing(policy, facts, ny(2027, 1, 20));
    expect([inGrace.tierId, inGrace.reviewAt, inGrace.tierAfterReview]).toEqual([2, Date.UTC(2027, 0, 31, 5), 2]);
    // The 2026 review (600 ≥ 300) keeps Gold; with nothing in 2027, its review a year later lowers it.
    expect(standing(policy, facts, ny(2028, 2, 15)).tierId).toBe(1);
    // 2027's points during 2027's grace would qualify for Gold again: the review of 2027 cannot go below that.
    expect(standing(policy, [...facts, credit(ny(2028, 1, 10), 500)], ny(2028, 2, 15)).tierId).toBe(2);
  });

  it('a tier outcome qualifies for its tier in its period, reviews included', () => {
    const s = standing(yearly(), [{ at: ny(2026, 5, 1), tierId: 2 }], ny(2027, 3, 1));
    expect(s.changes.map((c) => [c.toTierId, c.reason])).toEqual([[2, 'outcome']]);
    expect(s.tierId).toBe(2); // kept at the 2026 review: the outcome qualified 2026 for Gold
  });

  it('a reversal takes back the qualifying points of its event: what they alone earned is not kept', () => {
    const at = ny(2026, 4, 1);
    const s = standing(yearly(), [credit(ny(2026, 2, 1), 100), credit(at, 450), credit(at, -450)], ny(2026, 6, 1));
    expect([s.tierId, s.qualifyingPoints]).toEqual([1, 100]);
  });

  it('a policy change keeps the tier the customer had until the first review after it', () => {
    const floor = { tierId: 3, at: ny(2026, 6, 1) };
    const before = standing(yearly(), [credit(ny(2026, 2, 1), 120)], ny(2026, 9, 1), { floor });
    expect(before.tierId).toBe(3);
    expect(before.changes.at(-1)).toEqual(expect.objectContaining({ toTierId: 3, reason: 'policy' }));
    expect(standing(yearly(), [credit(ny(2026, 2, 1), 120)], ny(2027, 2, 1), { floor }).tierId).toBe(2); // reviewed: one level down
  });
});

describe('tierStanding under lifetime', () => {
  it('ranks by the points ever reached, never lowered, without periods or reviews', () => {
    const s = standing({ basis: 'lifetime' }, [credit(ny(2020, 1, 1), 600), credit(ny(2021, 1, 1), -400)], ny(2030, 1, 1));
    expect(s).toEqual(expect.objectContaining({ tierId: 2, period: null, reviewAt: null, tierAfterReview: null, qualifyingPoints: 200 }));
  });
});

describe('tierStanding, whatever the order events arrive in', () => {
  const day = 86_400_000;
  const start = ny(2025, 1, 1);
  const fact = fc.oneof(
    fc.record({ at: fc.integer({ min: 0, max: 1500 }).map((d) => start + d * day), points: fc.integer({ min: -300, max: 700 }) }),
    fc.record({ at: fc.integer({ min: 0, max: 1500 }).map((d) => start + d * day), tierId: fc.constantFrom(1, 2, 3) }),
  );
  const policy = fc.oneof(
    fc.constant<TierPolicy>({ basis: 'lifetime' }),
    fc.record({ basis: fc.constant('period' as const), periodMonths: fc.constantFrom(1, 3, 6, 12) as fc.Arbitrary<1 | 3 | 6 | 12>, downgrade: fc.constantFrom('one_level', 'to_qualified') as fc.Arbitrary<'one_level' | 'to_qualified'>, graceDays: fc.integer({ min: 0, max: 60 }) }),
  );

  it('gives the same tier, history and review as the events in occurred_at order', () => {
    fc.assert(
      fc.property(policy, fc.array(fact, { maxLength: 30 }).chain((facts) => fc.tuple(fc.constant(facts), fc.shuffledSubarray(facts, { minLength: facts.length, maxLength: facts.length }))), fc.integer({ min: 0, max: 1600 }), (p, [facts, shuffled], nowDay) => {
        const now = start + nowDay * day;
        const inOrder = [...facts].sort((a, b) => a.at - b.at);
        expect(standing(p, shuffled, now)).toEqual(standing(p, inOrder, now));
      }),
      { numRuns: 300, seed: 29 },
    );
  });

  it('never answers a tier the policy does not know, and under a period policy the running period holds now', () => {
    fc.assert(
      fc.property(policy, fc.array(fact, { maxLength: 30 }), fc.integer({ min: 0, max: 1600 }), (p, facts, nowDay) => {
        const now = start + nowDay * day;
        const s = standing(p, facts, now);
        expect([null, ...TIERS.map((t) => t.id)]).toContain(s.tierId);
        if (s.period) expect(s.period.start <= now && now < s.period.end).toBe(true);
        // The history ends on the tier answered.
        expect(s.changes.at(-1)?.toTierId ?? null).toBe(s.tierId);
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it('gives the same tier and review from credits summed per local month (what the service reads) as from each credit', () => {
    const positive = fc.oneof(
      fc.record({ at: fc.integer({ min: 0, max: 1500 }).map((d) => start + d * day + 3_600_000 * (d % 24)), points: fc.integer({ min: 1, max: 700 }) }),
      fc.record({ at: fc.integer({ min: 0, max: 1500 }).map((d) => start + d * day), tierId: fc.constantFrom(1, 2, 3) }),
    );
    const floor = fc.option(fc.record({ tierId: fc.constantFrom(null, 1, 2, 3), at: fc.integer({ min: 0, max: 1600 }).map((d) => start + d * day) }), { nil: undefined });
    fc.assert(
      fc.property(policy, fc.array(positive, { maxLength: 40 }), fc.integer({ min: 0, max: 1600 }), floor, (p, facts, nowDay, f) => {
        const now = start + nowDay * day;
        const monthly = new Map<string, TierFact>();
        for (const fact of facts.filter((x) => x.at <= now)) {
          const month = periodAt(fact.at, 1, NY).start;
          if ('tierId' in fact) monthly.set(`${month}:t${fact.tierId}`, { at: month, tierId: fact.tierId });
          else monthly.set(`${month}`, { at: month, points: fact.points + ((monthly.get(`${month}`) as { points?: number } | undefined)?.points ?? 0) });
        }
        const extra = f && f.at <= now ? { floor: f } : {};
        const exact = standing(p, facts, now, extra);
        const summed = standing(p, [...monthly.values()], now, extra);
        expect([summed.tierId, summed.qualifyingPoints, summed.reviewAt, summed.tierAfterReview]).toEqual([exact.tierId, exact.qualifyingPoints, exact.reviewAt, exact.tierAfterReview]);
      }),
      { numRuns: 500, seed: 30 },
    );
  });
});
