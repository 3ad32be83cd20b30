// The percentile test of an A/B run (iari load --ab): one difference per pair of blocks (B's
// percentile in the block minus A's in its twin, which ran next to it and so shared the machine's
// drift), and the interval of their median by the sign test (Hollander & Wolfe, "Nonparametric
// Statistical Methods", 3rd ed., 3.6). A block the machine starved is one odd difference among
// many: it moves the interval by one rank instead of owning the tail of a pooled percentile (which
// held a +20% regression at -30% once on a busy machine). The signed-rank interval is narrower on
// clean data but one outlier among 10 pairs already reaches its end (10 of the 55 Walsh averages). A pair is left out only for a stated reason: one of its blocks has too few values for
// the percentile to sit inside them.
import type { DifferenceTest, ValueCount } from '../statistics.ts';

/** Fewest usable pairs: with 5 or fewer, no 95% sign-test interval exists (1/2^5 > 0.025). */
export const MIN_PAIRS = 6;

/** Fewest values a block needs for percentile p: at least one value beyond it (p95: 20, p99: 100). */
export function blockSamplesNeeded(p: number): number {
  return Math.max(2, Math.ceil(1 / (1 - p / 100) - 1e-9));
}

/** The value of rank ceil(p/100 n) (HdrHistogram's convention); null for no values. */
export function blockPercentile(values: readonly ValueCount[], p: number): number | null {
  const sorted = [...values].sort((x, y) => x.value - y.value);
  const n = sorted.reduce((s, v) => s + v.count, 0);
  if (n === 0) return null;
  const k = Math.max(1, Math.ceil((p / 100) * n - 1e-9));
  let seen = 0;
  for (const v of sorted) {
    seen += v.count;
    if (seen >= k) return v.value;
  }
  return sorted.at(-1)?.value ?? null;
}

/** P(X <= k) for X ~ Binomial(n, 1/2), k = 0..n. */
function binomialHalfCdf(n: number): Float64Array {
  const cdf = new Float64Array(n + 1);
  let term = 0.5 ** n;
  let acc = 0;
  for (let k = 0; k <= n; k++) {
    acc += term;
    cdf[k] = acc;
    term = (term * (n - k)) / (k + 1);
  }
  return cdf;
}

/**
 * The median of the differences and its 95% sign-test interval [d(k), d(n+1-k)] of the sorted
 * differences, k the largest with P(Bin(n, 1/2) <= k-1) <= 0.025 (Hollander & Wolfe 3.6): k-1
 * starved pairs on either side cannot move it. Null below MIN_PAIRS differences.
 */
export function signInterval(d: readonly number[]): DifferenceTest | null {
  const n = d.length;
  if (n < MIN_PAIRS) return null;
  const sorted = [...d].sort((x, y) => x - y);
  const cdf = binomialHalfCdf(n);
  let k = 0;
  while (k < n && (cdf[k] as number) <= 0.025) k++;
  if (k === 0) return null;
  const low = sorted[k - 1] as number;
  const high = sorted[n - k] as number;
  const median = n % 2 === 1 ? (sorted[(n - 1) / 2] as number) : ((sorted[n / 2 - 1] as number) + (sorted[n / 2] as number)) / 2;
  // The sign test of 0 over the non-zero differences.
  const pos = d.filter((x) => x > 0).length;
  const neg = d.filter((x) => x < 0).length;
  const z = binomialHalfCdf(pos + neg);
  const p = pos + neg === 0 ? 1 : Math.min(1, 2 * (z[Math.min(pos, neg)] as number));
  return { difference: median, low, high, p, significant: low > 0 || high < 0 };
}

export interface PairedPercentile {
  /** The test of B - A over the usable pairs; null below MIN_PAIRS of them. */
  test: DifferenceTest | null;
  /**
   * The same of each pair's relative change (B / A - 1): what a % gate reads. A relative interval
   * made by dividing the differences by the pooled base would divide by a tail the starved blocks
   * own; the pairs' own ratios keep each change to its own block's scale.
   */
  relative: DifferenceTest | null;
  pairs: number;
  /** Pairs left out, each with its reason. */
  dropped: { pair: number; reason: string }[];
}

/** For each percentile in `ps`: the signed-rank test over the pairs' percentile differences (B - A). */
export function pairedPercentileDifferences(a: readonly (readonly ValueCount[])[], b: readonly (readonly ValueCount[])[], ps: readonly number[], per = 'requests'): PairedPercentile[] {
  return ps.map((p) => {
    const need = blockSamplesNeeded(p);
    const d: number[] = [];
    const r: number[] = [];
    const dropped: PairedPercentile['dropped'] = [];
    const count = (x: readonly ValueCount[] | undefined): number => (x ?? []).reduce((s, v) => s + v.count, 0);
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const na = count(a[i]);
      const nb = count(b[i]);
      if (na < need || nb < need) {
        dropped.push({ pair: i + 1, reason: `${na < need ? `A had ${na}` : `B had ${nb}`} ${per} (p${p} needs ≥ ${need} per block)` });
        continue;
      }
      const pa = blockPercentile(a[i] ?? [], p) as number;
      const pb = blockPercentile(b[i] ?? [], p) as number;
      d.push(pb - pa);
      if (pa > 0) r.push(pb / pa - 1);
    }
    return { test: signInterval(d), relative: r.length === d.length ? signInterval(r) : null, pairs: a.length, dropped };
  });
}
