import { describe, expect, it } from 'vitest';
import { errorDistribution, fittedRate, percentile } from './load-stats.ts';

describe('fitted arrival rate', () => {
  it('recovers the rate of an exact grid and is barely moved by one late send at the end', () => {
    const grid = Array.from({ length: 200 }, (_, i) => i / 100);
    expect(fittedRate(grid)).toBeCloseTo(100, 6);
    const late = [...grid.slice(0, -1), (grid.at(-1) ?? 0) + 0.05];
    expect(Math.abs(fittedRate(late) - 100)).toBeLessThan(0.5);
    expect(Math.abs(199 / ((late.at(-1) ?? 0) - 0) - 100)).toBeGreaterThan(2);
  });
});

describe('exact statistics for the proofs', () => {
  it('takes nearest-rank percentiles and splits signed errors from their absolute size', () => {
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 100)).toBe(5);
    const d = errorDistribution([-3, 1, 2]);
    expect(d.maxAbsUs).toBe(3);
    expect(d.p1Us).toBe(-3);
  });
});
