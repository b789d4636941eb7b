/** Running sums kept for one experiment group. */
export interface GroupSums { name: string; customers: number; converted: number; metricSum: number; metricSumSquares: number; achievements: number; pointsCredited: number }

/** The experiment's split: the holdout percent and the variants' weights. */
export interface ExperimentSettings {
  holdoutPercent: number;
  variants: Array<{ name: string; weight: number }>;
}

/** One group's figures, as the HTTP answer shows them. */
export interface GroupResult {
  name: string;
  customers: number;
  converted: number;
  conversion_rate: number | null;
  metric_sum: number;
  metric_mean: number | null;
  metric_variance: number | null;
  achievements: number;
  points_credited: number;
}

/** A difference between two groups, with its 95% interval and two-sided p-value. */
export interface Stat { absolute: number | null; relative: number | null; ci95: [number, number] | null; p_value: number | null }

/** One group compared against another on conversion and on the metric's mean. */
export interface Comparison { group: string; against: string; conversion: Stat; mean: Stat }

/** An experiment's results. */
export interface ExperimentResults {
  groups: GroupResult[];
  comparisons: Comparison[];
  sample_ratio: { chi_square: number | null; p_value: number | null; mismatch: boolean };
}

const Z95 = 1.959964;
const SQRT_PI = Math.sqrt(Math.PI);
const ONE_OVER_SQRT_PI = 0.5641895835477563;

// W. J. Cody's calerf coefficients (Math. Comp. 23, 1969; netlib specfun/erf), written as the doubles nearest the published digits.
const A = [3.1611237438705655, 113.86415415105016, 377.485237685302, 3209.3775891384694, 0.18577770618460315];
const B = [23.601290952344122, 244.02463793444417, 1282.6165260773723, 2844.236833439171];
const C = [0.5641884969886701, 8.883149794388377, 66.11919063714163, 298.6351381974001, 881.952221241769, 1712.0476126340707, 2051.0783778260716, 1230.3393547979972, 2.1531153547440383e-8];
const D = [15.744926110709835, 117.6939508913125, 537.1811018620099, 1621.3895745666903, 3290.7992357334597, 4362.619090143247, 3439.3676741437216, 1230.3393548037495];
const P = [0.30532663496123236, 0.36034489994980445, 0.12578172611122926, 0.016083785148742275, 0.0006587491615298378, 0.016315387137302097];
const Q = [2.568520192289822, 1.8729528499234604, 0.5279051029514285, 0.06051834131244132, 0.0023352049762686918];

/** The complementary error function, by Cody's rational Chebyshev approximations (relative error about 1e-16). */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const y = Math.abs(x);
  if (y <= 0.46875) {
    const ysq = y > 1.11e-16 ? y * y : 0;
    let [num, den] = [A[4] * ysq, ysq];
    for (let i = 0; i < 3; i++) {
      num = (num + A[i]) * ysq;
      den = (den + B[i]) * ysq;
    }
    return 1 - (x * (num + A[3])) / (den + B[3]);
  }
  let result = 0;
  if (y <= 4) {
    let [num, den] = [C[8] * y, y];
    for (let i = 0; i < 7; i++) {
      num = (num + C[i]) * y;
      den = (den + D[i]) * y;
    }
    result = (num + C[7]) / (den + D[7]);
  } else if (y < 26.543) {
    const ysq = 1 / (y * y);
    let [num, den] = [P[5] * ysq, ysq];
    for (let i = 0; i < 4; i++) {
      num = (num + P[i]) * ysq;
      den = (den + Q[i]) * ysq;
    }
    result = (ONE_OVER_SQRT_PI - (ysq * (num + P[4])) / (den + Q[4])) / y;
  }
  if (result !== 0) {
    // Split y² so that the large part is exact: exp(-y²) = exp(-r²) · exp(-(y - r)(y + r)).
    const r = Math.trunc(y * 16) / 16;
    result *= Math.exp(-r * r) * Math.exp(-(y - r) * (y + r));
  }
  return x < 0 ? 2 - result : result;
}

/** The two-sided p-value of a standard normal statistic z: 2·(1 − Φ(|z|)). */
export function normalTwoSidedP(z: number): number {
  return erfc(Math.abs(z) / Math.SQRT2);
}

/** The upper tail of the chi-square distribution with a positive integer df, by its closed forms. */
export function chiSquareUpperTail(x: number, df: number): number {
  if (!Number.isInteger(df) || df < 1 || Number.isNaN(x)) return NaN;
  if (x <= 0) return 1;
  const half = x / 2;
  // Q(x;k+2) = Q(x;k) + term, term = (x/2)^(k/2) · e^(−x/2) / Γ(k/2 + 1).
  // Start from Q(x;1) with its k = 1 term, or Q(x;2) with its k = 2 term; Γ(3/2) = √π/2, Γ(2) = 1.
  const odd = df % 2 === 1;
  let k = odd ? 1 : 2;
  let tail = odd ? erfc(Math.sqrt(half)) : Math.exp(-half);
  let term = odd ? (Math.sqrt(half) * Math.exp(-half)) / (SQRT_PI / 2) : half * Math.exp(-half);
  while (k < df) {
    tail += term;
    term *= half / (k / 2 + 1);
    k += 2;
  }
  return tail;
}

/** a / b, or null when b is 0 or either is null. */
function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : a / b;
}

/** A difference with its interval (from se) and p-value (from the test's standard error, if any). */
function stat(t: number | null, c: number | null, se: number | null, testSe: number | null): Stat {
  if (t === null || c === null) return { absolute: null, relative: null, ci95: null, p_value: null };
  const absolute = t - c;
  const z = ratio(absolute, testSe);
  const ci95: [number, number] | null = se === null ? null : [absolute - Z95 * se, absolute + Z95 * se];
  return { absolute, relative: ratio(absolute, c), ci95, p_value: z === null ? null : normalTwoSidedP(z) };
}

/** One group's conversion rate, mean and sample variance (n − 1), from its sums. */
function groupResult(s: GroupSums): GroupResult {
  const n = s.customers;
  const variance = n < 2 ? null : Math.max(0, (s.metricSumSquares - (s.metricSum * s.metricSum) / n) / (n - 1));
  return { name: s.name, customers: n, converted: s.converted, conversion_rate: ratio(s.converted, n), metric_sum: s.metricSum,
    metric_mean: ratio(s.metricSum, n), metric_variance: variance, achievements: s.achievements, points_credited: s.pointsCredited };
}

/** Compares group t against group c on conversion (two-proportion z-test) and on the mean (normal test). */
function compare(t: GroupResult, c: GroupResult): Comparison {
  const [pt, pc, nt, nc] = [t.conversion_rate, c.conversion_rate, t.customers, c.customers];
  const bothKnown = pt !== null && pc !== null;
  const pooled = ratio(t.converted + c.converted, nt + nc);
  const pooledSe = bothKnown && pooled !== null && pooled > 0 && pooled < 1 ? Math.sqrt(pooled * (1 - pooled) * (1 / nt + 1 / nc)) : null;
  const conversionSe = bothKnown ? Math.sqrt((pt * (1 - pt)) / nt + (pc * (1 - pc)) / nc) : null;
  const [vt, vc] = [t.metric_variance, c.metric_variance];
  const meanSe = vt === null || vc === null ? null : Math.sqrt(vt / nt + vc / nc);
  return { group: t.name, against: c.name, conversion: stat(pt, pc, conversionSe, pooledSe), mean: stat(t.metric_mean, c.metric_mean, meanSe, meanSe) };
}

/** Pearson's chi-square of the groups' customer counts against the shares the settings give them. */
function sampleRatio(settings: ExperimentSettings, groups: GroupResult[]): ExperimentResults['sample_ratio'] {
  const weights = settings.variants.reduce((sum, v) => sum + v.weight, 0);
  const hold = settings.holdoutPercent;
  const shares = [hold / 100, ...settings.variants.map((v) => (weights > 0 ? ((100 - hold) * v.weight) / (100 * weights) : 0))];
  const total = groups.reduce((sum, g) => sum + g.customers, 0);
  const kept = groups.map((g, i) => ({ observed: g.customers, share: shares[i] ?? 0 })).filter((g) => g.share > 0);
  const df = kept.length - 1;
  if (total === 0 || df < 1) return { chi_square: null, p_value: null, mismatch: false };
  const chiSquare = kept.reduce((sum, g) => sum + (g.observed - total * g.share) ** 2 / (total * g.share), 0);
  const p = chiSquareUpperTail(chiSquare, df);
  return { chi_square: chiSquare, p_value: p, mismatch: p < 0.001 };
}

/** An experiment's results from its per-group sums: holdout first, then the variants in the settings' order. */
export function experimentResults(settings: ExperimentSettings, sums: GroupSums[]): ExperimentResults {
  const groups = sums.map(groupResult);
  const [holdout, ...variants] = groups;
  const comparisons =
    settings.holdoutPercent > 0 ? variants.map((v) => compare(v, holdout)) : variants.slice(1).map((v) => compare(v, variants[0]));
  return { groups, comparisons, sample_ratio: sampleRatio(settings, groups) };
}
