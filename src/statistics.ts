// The significance tests of `iari report compare` (docs/load.md, "Comparing runs"). Latency is
// skewed and heavy-tailed, so percentiles are compared by a bootstrap of the sample quantile over
// the recorded HDR histograms, not a t-test; rates by tests that fit counts.
import { seededRandom } from './seeded-random.ts';

/** Natural log of the gamma function (Lanczos, g=7, n=9); also the gamma goodness-of-fit test's (load/stats.ts). */
export function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the incomplete beta (Numerical Recipes betacf, modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 20000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-12) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(X >= k) for X ~ Binomial(n, q). */
export function binomialAtLeast(n: number, q: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  return incompleteBeta(q, k, n - k + 1);
}

/** Standard normal CDF (Abramowitz-Stegun 7.1.26 on erf, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** Two-sided p-value of Student's t with `df` degrees of freedom. */
export function studentTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  if (df <= 0) return 1;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** The t quantile for a two-sided (1 - alpha) interval, by bisection on the CDF. */
export function studentQuantile(df: number, alpha = 0.05): number {
  let lo = 0;
  let hi = 1000;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (studentTwoSidedP(mid, df) > alpha) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface ValueCount {
  value: number;
  count: number;
}

/**
 * The exact bootstrap distribution of the sample p-th percentile (the value of rank
 * k = ceil(p/100 * n), as HdrHistogram reports it) over a resample of n draws from the recorded
 * distribution: P(Q* <= x_j) = P(Binomial(n, F(x_j)) >= k). Returns the support and its CDF.
 */
export function quantileBootstrapCdf(buckets: readonly ValueCount[], p: number): { values: number[]; cdf: number[] } {
  const n = Math.round(buckets.reduce((s, b) => s + b.count, 0));
  const k = Math.max(1, Math.ceil((p / 100) * n - 1e-9));
  const values: number[] = [];
  const cdf: number[] = [];
  let seen = 0;
  for (const b of buckets) {
    seen += b.count;
    const q = Math.min(1, seen / n);
    const c = binomialAtLeast(n, q, k);
    // Buckets whose resampled quantile is (numerically) impossible add nothing.
    if (c < 1e-12 && values.length === 0) continue;
    values.push(b.value);
    cdf.push(c);
    if (c >= 1 - 1e-12) break;
  }
  if (cdf.length > 0) cdf[cdf.length - 1] = 1;
  return { values, cdf };
}

function drawFrom(dist: { values: number[]; cdf: number[] }, u: number): number {
  let lo = 0;
  let hi = dist.cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((dist.cdf[mid] as number) >= u) hi = mid;
    else lo = mid + 1;
  }
  return dist.values[lo] as number;
}

export interface DifferenceTest {
  /** new - base at the point estimate. */
  difference: number;
  /** 95% interval of new - base. */
  low: number;
  high: number;
  /** Two-sided p-value. */
  p: number;
  significant: boolean;
}

export const BOOTSTRAP_DRAWS = 4000;

/**
 * Bootstrap test of a percentile difference between two independent runs: draws the two sample
 * quantiles from their exact bootstrap distributions and reads the 95% interval of the difference.
 */
export function percentileDifference(base: readonly ValueCount[], next: readonly ValueCount[], p: number, seed = 1): DifferenceTest | null {
  if (base.length === 0 || next.length === 0) return null;
  const a = quantileBootstrapCdf(base, p);
  const b = quantileBootstrapCdf(next, p);
  if (a.values.length === 0 || b.values.length === 0) return null;
  const rnd = seededRandom(seed);
  const diffs = new Float64Array(BOOTSTRAP_DRAWS);
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (let i = 0; i < BOOTSTRAP_DRAWS; i++) {
    const d = drawFrom(b, rnd()) - drawFrom(a, rnd());
    diffs[i] = d;
    if (d <= 0) atOrBelow++;
    if (d >= 0) atOrAbove++;
  }
  diffs.sort();
  const low = diffs[Math.floor(0.025 * BOOTSTRAP_DRAWS)] as number;
  const high = diffs[Math.ceil(0.975 * BOOTSTRAP_DRAWS) - 1] as number;
  const p2 = Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / BOOTSTRAP_DRAWS);
  return { difference: quantileOf(next, p) - quantileOf(base, p), low, high, p: p2, significant: low > 0 || high < 0 };
}

/** The value of rank ceil(p/100 n) of a bucketed distribution. */
export function quantileOf(buckets: readonly ValueCount[], p: number): number {
  const n = buckets.reduce((s, b) => s + b.count, 0);
  const k = Math.max(1, Math.ceil((p / 100) * n - 1e-9));
  let seen = 0;
  for (const b of buckets) {
    seen += b.count;
    if (seen >= k) return b.value;
  }
  return buckets.at(-1)?.value ?? 0;
}

/** Two-proportion z-test (pooled) of x1/n1 against x2/n2. */
export function twoProportions(x1: number, n1: number, x2: number, n2: number): DifferenceTest | null {
  if (n1 === 0 || n2 === 0) return null;
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const seUnpooled = Math.sqrt((p1 * (1 - p1)) / n1 + (p2 * (1 - p2)) / n2);
  const d = p2 - p1;
  const p = se === 0 ? (d === 0 ? 1 : 0) : 2 * (1 - normalCdf(Math.abs(d) / se));
  return { difference: d, low: d - 1.96 * seUnpooled, high: d + 1.96 * seUnpooled, p, significant: p < 0.05 };
}

export interface MeanSummary {
  n: number;
  mean: number;
  /** Sample standard deviation. */
  sd: number;
}

export function meanSummary(values: readonly number[]): MeanSummary {
  const n = values.length;
  const mean = n === 0 ? 0 : values.reduce((s, v) => s + v, 0) / n;
  const sd = n < 2 ? 0 : Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  return { n, mean, sd };
}

/** Welch's t-test of two means (unequal variances). */
export function welch(a: MeanSummary, b: MeanSummary): DifferenceTest | null {
  if (a.n < 2 || b.n < 2) return null;
  const va = (a.sd * a.sd) / a.n;
  const vb = (b.sd * b.sd) / b.n;
  const d = b.mean - a.mean;
  const se = Math.sqrt(va + vb);
  if (se === 0) return { difference: d, low: d, high: d, p: d === 0 ? 1 : 0, significant: d !== 0 };
  const df = (va + vb) ** 2 / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
  const t = d / se;
  const p = studentTwoSidedP(t, df);
  const q = studentQuantile(df);
  return { difference: d, low: d - q * se, high: d + q * se, p, significant: p < 0.05 };
}

/** Mean with its two-sided 95% t interval and coefficient of variation. */
export function tInterval(values: readonly number[]): { n: number; mean: number; low: number; high: number; sd: number; cv: number } {
  const s = meanSummary(values);
  const half = s.n < 2 ? 0 : (studentQuantile(s.n - 1) * s.sd) / Math.sqrt(s.n);
  return { n: s.n, mean: s.mean, low: s.mean - half, high: s.mean + half, sd: s.sd, cv: s.mean === 0 ? 0 : s.sd / Math.abs(s.mean) };
}
