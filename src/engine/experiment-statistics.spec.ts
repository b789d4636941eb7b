import { describe, expect, it } from '@jest/globals';
import stdlibErfc from '@stdlib/math-base-special-erfc';
import gammainc from '@stdlib/math-base-special-gammainc';
import chiSquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import { chiSquareUpperTail, erfc, experimentResults, normalTwoSidedP, type GroupSums, type Stat } from './experiment-statistics.js';

/** Checks actual against expected to a relative tolerance (an expected 0 must come out 0). */
function expectRel(actual: number | null | undefined, expected: number, tolerance = 1e-9): void {
  expect(typeof actual).toBe('number');
  const error = Math.abs((actual as number) - expected);
  if (error > tolerance * Math.abs(expected)) throw new Error(`expected ${expected}, got ${actual} (relative error ${error / Math.abs(expected)})`);
}

/** The upper chi-square tail from stdlib's regularized upper incomplete gamma: Q(k/2, x/2). */
const stdlibUpperTail = (x: number, df: number) => gammainc(x / 2, df / 2, true, true);

/** Values from `from` to `to` in steps of `step`. */
const grid = (from: number, to: number, step: number) => Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => from + i * step);

/** A group's sums from its customers' raw values: a customer converted when their metric value is above 0. */
function sumsOf(name: string, xs: number[]): GroupSums {
  return {
    name,
    customers: xs.length,
    converted: xs.filter((x) => x > 0).length,
    metricSum: xs.reduce((s, x) => s + x, 0),
    metricSumSquares: xs.reduce((s, x) => s + x * x, 0),
    achievements: xs.length * 2,
    pointsCredited: xs.length * 100,
  };
}
const empty = (name: string): GroupSums => ({ name, customers: 0, converted: 0, metricSum: 0, metricSumSquares: 0, achievements: 0, pointsCredited: 0 });
const counts = (name: string, customers: number, converted: number): GroupSums => ({ ...empty(name), customers, converted, metricSum: converted, metricSumSquares: converted });

describe('erfc', () => {
  it('agrees with stdlib to 1e-12 relative from -6 to 26, across the break points and far into the tail', () => {
    const xs = [...grid(-6, 26, 0.01), 0.46875, 4, 26.5, 1e-20, -1e-20, 1e-10, 26.54];
    for (const x of xs) expectRel(erfc(x), stdlibErfc(x), 1e-12);
    expect(erfc(0)).toBe(1);
    expect(erfc(30)).toBe(0);
    expect(erfc(-30)).toBe(2);
    expect(erfc(Infinity)).toBe(0);
  });
});

describe('normalTwoSidedP', () => {
  it('gives the published two-sided tails: 0.05 at z = 1.959964 and 0.01 at z = 2.575829', () => {
    expect(Math.abs(normalTwoSidedP(1.959964) - 0.05)).toBeLessThan(1e-6);
    expect(Math.abs(normalTwoSidedP(-1.959964) - 0.05)).toBeLessThan(1e-6);
    expect(Math.abs(normalTwoSidedP(2.575829) - 0.01)).toBeLessThan(1e-6);
    expect(normalTwoSidedP(0)).toBe(1);
  });
});

describe('chiSquareUpperTail', () => {
  it('agrees with stdlib’s upper incomplete gamma to 1e-10 relative for df 1 to 6', () => {
    for (let df = 1; df <= 6; df++) {
      for (const x of [...grid(0.01, 10, 0.01), ...grid(10, 200, 0.5)]) expectRel(chiSquareUpperTail(x, df), stdlibUpperTail(x, df), 1e-10);
    }
  });

  it('agrees with 1 − stdlib’s chi-square cdf to 1e-9 wherever the tail is above 1e-6, also for df 7 and 11', () => {
    for (const df of [1, 2, 3, 4, 5, 6, 7, 11]) {
      for (const x of grid(0, 80, 0.05)) {
        const expected = 1 - chiSquareCdf(x, df);
        if (expected > 1e-6) expect(Math.abs(chiSquareUpperTail(x, df) - expected)).toBeLessThan(1e-9);
      }
    }
  });

  it('gives the published critical values: df 1 at 3.841459 and df 2 at 5.991465 → 0.05, df 4 at 13.276704 → 0.01', () => {
    expect(Math.abs(chiSquareUpperTail(3.841459, 1) - 0.05)).toBeLessThan(1e-6);
    expect(Math.abs(chiSquareUpperTail(5.991465, 2) - 0.05)).toBeLessThan(1e-6);
    expect(Math.abs(chiSquareUpperTail(13.276704, 4) - 0.01)).toBeLessThan(1e-6);
    expect(chiSquareUpperTail(0, 3)).toBe(1);
  });
});

describe('experimentResults', () => {
  /** The difference of two proportions, from the raw counts. */
  function proportionStat(ct: number, nt: number, cc: number, nc: number) {
    const [pt, pc] = [ct / nt, cc / nc];
    const absolute = pt - pc;
    const se = Math.sqrt((pt * (1 - pt)) / nt + (pc * (1 - pc)) / nc);
    const pooled = (ct + cc) / (nt + nc);
    const z = absolute / Math.sqrt(pooled * (1 - pooled) * (1 / nt + 1 / nc));
    return { absolute, relative: absolute / pc, ci95: [absolute - 1.959964 * se, absolute + 1.959964 * se], p_value: stdlibErfc(Math.abs(z) / Math.SQRT2) };
  }
  function expectStat(actual: Stat, expected: { absolute: number; relative: number; ci95: number[]; p_value: number }) {
    expectRel(actual.absolute, expected.absolute);
    expectRel(actual.relative, expected.relative);
    expectRel(actual.ci95?.[0], expected.ci95[0]);
    expectRel(actual.ci95?.[1], expected.ci95[1]);
    expectRel(actual.p_value, expected.p_value);
  }

  it('works out a small experiment from its sums as it is worked out by hand from the raw values', () => {
    const holdoutXs = [0, 10, 0, 20];
    const variantXs = [15, 0, 30, 45, 5];
    const result = experimentResults({ holdoutPercent: 40, variants: [{ name: 'A', weight: 1 }] }, [sumsOf('holdout', holdoutXs), sumsOf('A', variantXs)]);

    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = (xs: number[]) => xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1);
    const [hold, a] = result.groups;
    expect(hold).toMatchObject({ name: 'holdout', customers: 4, converted: 2, metric_sum: 30, achievements: 8, points_credited: 400 });
    expectRel(hold.conversion_rate, 0.5);
    expectRel(hold.metric_mean, mean(holdoutXs));
    expectRel(hold.metric_variance, variance(holdoutXs));
    expect(a).toMatchObject({ name: 'A', customers: 5, converted: 4, metric_sum: 95 });
    expectRel(a.conversion_rate, 0.8);
    expectRel(a.metric_mean, mean(variantXs));
    expectRel(a.metric_variance, variance(variantXs));

    expect(result.comparisons).toHaveLength(1);
    const [comparison] = result.comparisons;
    expect(comparison).toMatchObject({ group: 'A', against: 'holdout' });
    expectStat(comparison.conversion, proportionStat(4, 5, 2, 4));
    const absolute = mean(variantXs) - mean(holdoutXs);
    const se = Math.sqrt(variance(variantXs) / 5 + variance(holdoutXs) / 4);
    expectStat(comparison.mean, {
      absolute,
      relative: absolute / mean(holdoutXs),
      ci95: [absolute - 1.959964 * se, absolute + 1.959964 * se],
      p_value: stdlibErfc(Math.abs(absolute / se) / Math.SQRT2),
    });

    // Expected 3.6 and 5.4 of 9 customers; one degree of freedom.
    const chiSquare = (4 - 3.6) ** 2 / 3.6 + (5 - 5.4) ** 2 / 5.4;
    expectRel(result.sample_ratio.chi_square, chiSquare);
    expectRel(result.sample_ratio.p_value, stdlibUpperTail(chiSquare, 1));
    expect(result.sample_ratio.mismatch).toBe(false);
  });

  it('leaves out what an empty group cannot give: rates, means, variances and every comparison figure', () => {
    const result = experimentResults({ holdoutPercent: 20, variants: [{ name: 'A', weight: 1 }] }, [sumsOf('holdout', [3, 0]), empty('A')]);
    expect(result.groups[1]).toEqual({
      name: 'A', customers: 0, converted: 0, conversion_rate: null, metric_sum: 0, metric_mean: null, metric_variance: null, achievements: 0, points_credited: 0,
    });
    const none = { absolute: null, relative: null, ci95: null, p_value: null };
    expect(result.comparisons).toEqual([{ group: 'A', against: 'holdout', conversion: none, mean: none }]);
  });

  it('gives no variance for a single customer, so the mean difference has no interval or p-value', () => {
    const result = experimentResults({ holdoutPercent: 50, variants: [{ name: 'A', weight: 1 }] }, [sumsOf('holdout', [4, 8, 0]), sumsOf('A', [7])]);
    expect(result.groups[1]).toMatchObject({ conversion_rate: 1, metric_mean: 7, metric_variance: null });
    expectRel(result.comparisons[0].mean.absolute, 3);
    expectRel(result.comparisons[0].mean.relative, 0.75);
    expect(result.comparisons[0].mean).toMatchObject({ ci95: null, p_value: null });
  });

  it('has no relative change when the comparison group converts nobody, and no p-value when nobody converts at all', () => {
    const result = experimentResults({ holdoutPercent: 50, variants: [{ name: 'A', weight: 1 }, { name: 'B', weight: 1 }] }, [
      counts('holdout', 10, 0),
      counts('A', 10, 3),
      counts('B', 10, 0),
    ]);
    const [a, b] = result.comparisons;
    expectRel(a.conversion.absolute, 0.3);
    expect(a.conversion.relative).toBeNull();
    const se = Math.sqrt((0.3 * 0.7) / 10);
    expectRel(a.conversion.ci95?.[0], 0.3 - 1.959964 * se);
    expectRel(a.conversion.p_value, stdlibErfc(Math.abs(0.3 / Math.sqrt(0.15 * 0.85 * 0.2)) / Math.SQRT2));
    expect(b.conversion).toEqual({ absolute: 0, relative: null, ci95: [0, 0], p_value: null });
  });

  it('compares each later variant against the first when there is no holdout', () => {
    const variants = [{ name: 'A', weight: 1 }, { name: 'B', weight: 1 }, { name: 'C', weight: 2 }];
    const result = experimentResults({ holdoutPercent: 0, variants }, [empty('holdout'), counts('A', 100, 10), counts('B', 110, 20), counts('C', 190, 25)]);
    expect(result.comparisons.map((c) => [c.group, c.against])).toEqual([['B', 'A'], ['C', 'A']]);
    expectStat(result.comparisons[0].conversion, proportionStat(20, 110, 10, 100));
    expectStat(result.comparisons[1].conversion, proportionStat(25, 190, 10, 100));
    // The holdout has share 0 and is left out: expected 100, 100, 200 of 400; two degrees of freedom.
    const chiSquare = 0 + 10 ** 2 / 100 + 10 ** 2 / 200;
    expectRel(result.sample_ratio.chi_square, chiSquare);
    expectRel(result.sample_ratio.p_value, Math.exp(-chiSquare / 2));
  });

  it('has no comparisons and no sample ratio test for one variant without a holdout', () => {
    const result = experimentResults({ holdoutPercent: 0, variants: [{ name: 'A', weight: 1 }] }, [empty('holdout'), counts('A', 50, 5)]);
    expect(result.comparisons).toEqual([]);
    expect(result.sample_ratio).toEqual({ chi_square: null, p_value: null, mismatch: false });
  });

  it('has no sample ratio test before any customer is assigned', () => {
    const result = experimentResults({ holdoutPercent: 10, variants: [{ name: 'A', weight: 1 }] }, [empty('holdout'), empty('A')]);
    expect(result.sample_ratio).toEqual({ chi_square: null, p_value: null, mismatch: false });
  });

  it('flags a split far from the settings as a mismatch and passes one that matches them exactly', () => {
    const settings = { holdoutPercent: 10, variants: [{ name: 'A', weight: 1 }] };
    const skewed = experimentResults(settings, [counts('holdout', 5000, 0), counts('A', 5000, 0)]).sample_ratio;
    expectRel(skewed.chi_square, 4000 ** 2 / 1000 + 4000 ** 2 / 9000);
    expect(skewed.p_value).toBeLessThan(1e-300);
    expect(skewed.mismatch).toBe(true);
    const exact = experimentResults(settings, [counts('holdout', 1000, 0), counts('A', 9000, 0)]).sample_ratio;
    expect(exact).toEqual({ chi_square: 0, p_value: 1, mismatch: false });
  });
});
