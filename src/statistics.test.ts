import { describe, expect, it } from 'vitest';
import { seededRandom } from './seeded-random.ts';
import { binomialAtLeast, percentileDifference, quantileOf, studentQuantile, studentTwoSidedP, tInterval, twoProportions, welch, meanSummary, type ValueCount } from './statistics.ts';

function buckets(values: number[]): ValueCount[] {
  const m = new Map<number, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([value, count]) => ({ value, count }));
}

/** n lognormal-ish latencies around `median` µs. */
function latencies(n: number, median: number, seed: number): number[] {
  const r = seededRandom(seed);
  return Array.from({ length: n }, () => {
    const z = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    return Math.round(median * Math.exp(0.3 * z));
  });
}

describe('compare statistics', () => {
  it('matches textbook values: binomial tails, Student t quantiles and p-values', () => {
    // P(X >= 3), X ~ Bin(5, 0.5) = 16/32.
    expect(binomialAtLeast(5, 0.5, 3)).toBeCloseTo(0.5, 9);
    expect(binomialAtLeast(10, 0.3, 1)).toBeCloseTo(1 - 0.7 ** 10, 9);
    expect(studentQuantile(10)).toBeCloseTo(2.228, 3);
    expect(studentQuantile(4)).toBeCloseTo(2.776, 3);
    expect(studentTwoSidedP(2.228, 10)).toBeCloseTo(0.05, 3);
  });

  it('the percentile bootstrap finds a 20% TTFT shift significant and, over 50 pairs from one distribution, flags about 5%', () => {
    const base = buckets(latencies(400, 150_000, 1));
    const slower = buckets(latencies(400, 180_000, 2));
    const shifted = percentileDifference(base, slower, 95);
    expect(shifted?.significant).toBe(true);
    expect(shifted?.low).toBeGreaterThan(0);
    let flagged = 0;
    for (let i = 0; i < 50; i++) {
      const t = percentileDifference(buckets(latencies(400, 150_000, 100 + 2 * i)), buckets(latencies(400, 150_000, 101 + 2 * i)), 95, i);
      if (t?.significant === true) flagged++;
    }
    expect(flagged).toBeLessThanOrEqual(6);
  });

  it('quantileOf reads the value of rank ceil(p n) as HdrHistogram does', () => {
    const b = buckets([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(quantileOf(b, 50)).toBe(5);
    expect(quantileOf(b, 95)).toBe(10);
    expect(quantileOf(b, 90)).toBe(9);
  });

  it('two proportions: 1% against 3% of 2000 requests is significant, 1% against 1.2% is not', () => {
    expect(twoProportions(20, 2000, 60, 2000)?.significant).toBe(true);
    expect(twoProportions(20, 2000, 24, 2000)?.significant).toBe(false);
  });

  it('welch and the t interval: a mean 3 sd apart over 5 runs each is significant; the interval covers the mean', () => {
    const a = meanSummary([10, 11, 9, 10, 10]);
    const b = meanSummary([13, 14, 12, 13, 13]);
    expect(welch(a, b)?.significant).toBe(true);
    expect(welch(a, meanSummary([10, 10.5, 9.5, 10, 11]))?.significant).toBe(false);
    const t = tInterval([10, 11, 9, 10, 10]);
    expect(t.low).toBeLessThan(10);
    expect(t.high).toBeGreaterThan(10);
    expect(t.cv).toBeCloseTo(Math.sqrt(0.5) / 10, 6);
  });
});
