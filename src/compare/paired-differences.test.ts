import { describe, expect, it } from 'vitest';
import { blockPercentileDifferences } from './block-bootstrap.ts';
import { blockPercentile, blockSamplesNeeded, pairedPercentileDifferences, signInterval } from './paired-differences.ts';
import { seededRandom } from '../seeded-random.ts';
import type { ValueCount } from '../statistics.ts';

const values = (xs: number[]): ValueCount[] => xs.map((value) => ({ value, count: 1 }));

describe('paired percentile differences (A/B runs)', () => {
  it('LOAD-COMPARE: the sign-test interval of 10 differences is their 2nd and 9th smallest (97.9%), of 20 the 6th and 15th, and its estimate their median', () => {
    const d = [3, 7, 1, 9, 4, 12, 5, 8, 2, 6];
    const t = signInterval(d);
    expect(t).toMatchObject({ low: 2, high: 9, difference: 5.5, significant: true });
    expect(t?.p).toBeCloseTo(2 / 1024, 6);
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(signInterval(twenty)).toMatchObject({ low: 6, high: 15 });
  });

  it('LOAD-COMPARE: fewer than 6 pairs give no interval (none reaches 95% with 5), and differences around 0 are not significant', () => {
    expect(signInterval([1, 2, 3, 4, 5])).toBeNull();
    expect(signInterval([1, 2, 3, 4, 5, 6])).toMatchObject({ low: 1, high: 6 });
    const t = signInterval([-3, 2, -1, 4, -2, 1, 3, -4]);
    expect(t?.significant).toBe(false);
    expect(t?.low).toBeLessThan(0);
    expect(t?.high).toBeGreaterThan(0);
  });

  it('LOAD-COMPARE: a block percentile is the value of rank ceil(p n), and p95 needs 20 values per block, p99 100', () => {
    expect(blockPercentile(values([5, 1, 4, 2, 3]), 50)).toBe(3);
    expect(blockPercentile(values(Array.from({ length: 20 }, (_, i) => i + 1)), 95)).toBe(19);
    expect(blockPercentile([], 95)).toBeNull();
    expect(blockSamplesNeeded(95)).toBe(20);
    expect(blockSamplesNeeded(99)).toBe(100);
  });

  it('LOAD-COMPARE: over paired blocks the drift both sides share cancels: a 10% p50 shift under a block drift of up to +100% is found, and its interval is narrower than the unpaired one', () => {
    const rnd = seededRandom(42);
    const drift = Array.from({ length: 10 }, () => 1 + rnd());
    const side = (factor: number, seed: number): ValueCount[][] => {
      const r = seededRandom(seed);
      return drift.map((d) => values(Array.from({ length: 20 }, () => Math.round(100_000 * d * factor * (0.95 + 0.1 * r())))));
    };
    const a = side(1, 1);
    const b = side(1.1, 2);
    const [paired] = pairedPercentileDifferences(a, b, [50]);
    const [unpaired] = blockPercentileDifferences(a, b, [50], 1, 1000);
    expect(paired?.test?.significant).toBe(true);
    expect(paired?.test?.low).toBeGreaterThan(0);
    expect((paired?.test?.high ?? 0) - (paired?.test?.low ?? 0)).toBeLessThan(((unpaired?.high ?? 0) - (unpaired?.low ?? 0)) / 2);
    expect(unpaired?.significant).toBe(false);
  });

  it('LOAD-COMPARE: one starved block on A (its tail 20x the rest) does not turn a +20% p95 regression into a hold: the interval stays above +10%', () => {
    const r = seededRandom(7);
    const block = (base: number, starved: boolean): ValueCount[] => values(Array.from({ length: 30 }, () => Math.round(base * (1 + 0.05 * r()) * (starved && r() < 0.2 ? 20 : 1))));
    const a = Array.from({ length: 10 }, (_, i) => block(40_000, i === 3));
    const b = Array.from({ length: 10 }, () => block(48_000, false));
    const [p95] = pairedPercentileDifferences(a, b, [95]);
    expect(p95?.test?.low).toBeGreaterThan(4_000);
  });

  it('LOAD-COMPARE: a pair whose block has too few values is left out with its reason; below 6 usable pairs there is no test', () => {
    const full = values(Array.from({ length: 25 }, (_, i) => 1000 + i));
    const a = [full, full, values([1, 2, 3]), full, full, full, full];
    const b = [full, full, full, full, values([5]), full, full];
    const [p95] = pairedPercentileDifferences(a, b, [95]);
    expect(p95?.dropped).toEqual([
      { pair: 3, reason: 'A had 3 requests (p95 needs ≥ 20 per block)' },
      { pair: 5, reason: 'B had 1 requests (p95 needs ≥ 20 per block)' },
    ]);
    expect(p95?.test).toBeNull();
    expect(pairedPercentileDifferences(a, b, [50])[0]?.test).not.toBeNull();
  });
});
