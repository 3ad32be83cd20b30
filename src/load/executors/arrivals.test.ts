import { describe, expect, it } from 'vitest';
import { gammaDraw, takeArrivals } from './arrivals.ts';
import { ksExponential, ksGamma, regularizedGammaP } from '../../../test-support/load-stats.ts';
import { seededRandom } from '../../seeded-random.ts';
import { planFromFlags } from '../../cli/load-flags.ts';

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

describe('ramped arrivals (--ramp D, --ramp-shape)', () => {
  // The expected count by t under each ramp to rate R over D, written out here apart from arrivals.ts.
  const linearCount = (t: number, R: number, D: number): number => (t <= D ? (R * t * t) / (2 * D) : (R * D) / 2 + R * (t - D));
  const expCount = (t: number, R: number, D: number): number => {
    const a = 100;
    return t <= D ? ((R * D) / Math.log(a)) * (Math.pow(a, t / D - 1) - 1 / a) : ((R * D) / Math.log(a)) * (1 - 1 / a) + R * (t - D);
  };

  it('LOAD-RAMP: a constant schedule ramped linearly sends its k-th arrival where the ramp has accumulated k arrivals, then keeps the full rate', () => {
    const t = takeArrivals({ rate: 40, arrival: 'constant', seed: 1, ramp: { durationS: 2, shape: 'linear' } }, 1000, 5);
    // 40/s rising from 0 over 2 s holds 40 arrivals in the ramp, then 40 a second.
    expect(t.filter((x) => x < 2)).toHaveLength(40);
    expect(t).toHaveLength(40 + 120);
    t.forEach((x, k) => expect(linearCount(x, 40, 2)).toBeCloseTo(k, 6));
    expect(gaps(t.filter((x) => x >= 2))).toSatisfy((g: number[]) => g.every((d) => Math.abs(d - 1 / 40) < 1e-9));
  });

  it('LOAD-RAMP: a ramped Poisson schedule rescaled by the ramp\'s expected count has unit exponential gaps (time rescaling), its raw gaps do not', () => {
    for (const shape of ['linear', 'exponential'] as const) {
      const count = shape === 'linear' ? linearCount : expCount;
      const t = takeArrivals({ rate: 200, arrival: 'poisson', seed: 9, ramp: { durationS: 20, shape } }, 100_000, 20);
      expect(Math.abs(t.length - count(20, 200, 20)) / count(20, 200, 20), shape).toBeLessThan(0.05);
      const rescaled = t.map((x) => count(x, 200, 20));
      expect(ksExponential(gaps(rescaled), 1).pValue, shape).toBeGreaterThan(0.01);
      expect(ksExponential(gaps(t), t.length / 20).pValue, shape).toBeLessThan(1e-6);
    }
  });

  it('LOAD-RAMP: an exponential ramp starts at 1% of the rate and reaches it at D; it is seeded and holds the expected count of each window exactly', () => {
    const o = { rate: 100, arrival: 'poisson' as const, seed: 4, ramp: { durationS: 10, shape: 'exponential' as const }, windows: [2, 10] };
    const t = takeArrivals(o, 100_000, 12);
    expect(takeArrivals(o, 100_000, 12)).toEqual(t);
    expect(takeArrivals({ ...o, seed: 5 }, 100_000, 12)).not.toEqual(t);
    expect(t.filter((x) => x < 2)).toHaveLength(Math.round(expCount(2, 100, 10)));
    expect(t.filter((x) => x >= 2)).toHaveLength(Math.round(expCount(12, 100, 10)) - Math.round(expCount(2, 100, 10)));
    // Its last 2 s (at the full rate, about 100/s) hold many times its first 2 s (from 1/s).
    expect(t.filter((x) => x >= 10).length).toBeGreaterThan(10 * t.filter((x) => x < 2).length);
  });

  it('LOAD-RAMP: --ramp needs --rate, --ramp-shape needs --ramp and is linear or exponential', () => {
    expect(planFromFlags({ rate: '10', ramp: '5s', 'ramp-shape': 'exponential' }).mode).toMatchObject({ kind: 'open', ramp: { durationS: 5, shape: 'exponential' } });
    expect(planFromFlags({ rate: '10', ramp: '5s' }).mode).toMatchObject({ ramp: { durationS: 5, shape: 'linear' } });
    expect(() => planFromFlags({ concurrency: '4', ramp: '5s' })).toThrow(/--ramp .*needs --rate/);
    expect(() => planFromFlags({ rate: '10', 'ramp-shape': 'linear' })).toThrow(/--ramp-shape needs --ramp/);
    expect(() => planFromFlags({ rate: '10', ramp: '5s', 'ramp-shape': 'step' })).toThrow(/linear or exponential/);
  });
});
