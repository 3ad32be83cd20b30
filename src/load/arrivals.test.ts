import { describe, expect, it } from 'vitest';
import { gammaDraw, takeArrivals } from './arrivals.ts';
import { ksExponential, ksGamma, regularizedGammaP } from './stats.ts';
import { seededRandom } from '../seeded-random.ts';
import { planFromFlags } from './load-options.ts';

const gaps = (t: readonly number[]): number[] => t.slice(1).map((x, i) => x - (t[i] ?? 0));
const cv = (xs: readonly number[]): number => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length) / m;
};

describe('gamma arrivals (--arrival gamma --burstiness K)', () => {
  it('LOAD-ARRIVAL: the regularized incomplete gamma is the exponential CDF at shape 1 and the Erlang CDF at shape 2', () => {
    for (const x of [0.01, 0.5, 1, 3, 10]) {
      expect(regularizedGammaP(1, x)).toBeCloseTo(1 - Math.exp(-x), 10);
      expect(regularizedGammaP(2, x)).toBeCloseTo(1 - Math.exp(-x) * (1 + x), 10);
    }
  });

  it('LOAD-ARRIVAL: gamma draws have mean k and variance k (Marsaglia-Tsang, boosted below 1)', () => {
    for (const k of [0.3, 1, 4]) {
      const rnd = seededRandom(5);
      const xs = Array.from({ length: 40_000 }, () => gammaDraw(rnd, k));
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length;
      expect(Math.abs(m / k - 1)).toBeLessThan(0.03);
      expect(Math.abs(v / k - 1)).toBeLessThan(0.08);
    }
  });

  for (const k of [0.25, 0.5, 2, 4]) {
    it(`LOAD-ARRIVAL: burstiness ${k}: seeded, mean rate R, gaps pass a KS test against Gamma(${k}, mean 1/R) and fail the exponential one`, () => {
      // One seed for every K; over 40 seeds about 5% of the p-values fall below 0.05, as they should (no bias).
      const o = { rate: 50, arrival: 'gamma' as const, seed: 11, burstiness: k };
      const t = takeArrivals(o, 5000);
      expect(takeArrivals(o, 5000)).toEqual(t);
      expect(takeArrivals({ ...o, seed: 12 }, 50)).not.toEqual(t.slice(0, 50));
      const g = gaps(t);
      expect(Math.abs(g.length / (t.at(-1)! - t[0]!) / 50 - 1)).toBeLessThan(0.06);
      // Coefficient of variation 1/sqrt(K): bursty below 1, regular above.
      expect(Math.abs(cv(g) * Math.sqrt(k) - 1)).toBeLessThan(0.08);
      expect(ksGamma(g, k, 50).pValue).toBeGreaterThan(0.05);
      expect(ksExponential(g, 50).pValue).toBeLessThan(1e-6);
    });
  }

  it('LOAD-ARRIVAL: burstiness 1 is a Poisson process: its gaps pass the exponential KS test', () => {
    const g = gaps(takeArrivals({ rate: 50, arrival: 'gamma', seed: 3, burstiness: 1 }, 5000));
    expect(ksExponential(g, 50).pValue).toBeGreaterThan(0.05);
  });

  it('LOAD-ARRIVAL: --burstiness needs --arrival gamma and a positive number (exit 2 before any traffic)', () => {
    expect(() => planFromFlags({ rate: '5', burstiness: '0.5' })).toThrow(/--burstiness needs --arrival gamma/);
    expect(() => planFromFlags({ rate: '5', arrival: 'gamma', burstiness: '0' })).toThrow(/--burstiness/);
    expect(planFromFlags({ rate: '5', arrival: 'gamma', burstiness: '0.5' }).mode).toEqual({ kind: 'open', rate: 5, arrival: 'gamma', burstiness: 0.5 });
  });
});
