import { describe, expect, it } from 'vitest';
import { blockPercentileDifferences } from './block-bootstrap.ts';
import { percentileDifference, type ValueCount } from '../statistics.ts';
import { seededRandom } from '../seeded-random.ts';

/**
 * A run of 10 one-second blocks of 13 requests, TTFT 150 ms ± 5 ms, where each second has a chance of
 * a client pause that delays all its requests together (the autocorrelation of a loaded machine).
 */
function raw(seed: number, shift = 1): number[][] {
  const rnd = seededRandom(seed);
  return Array.from({ length: 10 }, () => {
    const pause = rnd() < 0.2 ? 20_000 + rnd() * 60_000 : 0;
    return Array.from({ length: 13 }, () => Math.round((150_000 + (rnd() * 2 - 1) * 5_000) * shift + pause));
  });
}

const run = (seed: number, shift = 1): ValueCount[][] => raw(seed, shift).map((b) => b.map((value) => ({ value, count: 1 })));

const counts = (blocks: number[][]): ValueCount[] => {
  const m = new Map<number, number>();
  for (const v of blocks.flat()) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].sort((a, b) => a[0] - b[0]).map(([value, count]) => ({ value, count }));
};

describe('block bootstrap of percentile differences', () => {
  it('LOAD-COMPARE: over 40 pairs of identical autocorrelated runs it calls p95 different far less often than a per-request bootstrap', () => {
    let blocks = 0;
    let perRequest = 0;
    for (let i = 0; i < 40; i++) {
      const a = run(100 + i);
      const b = run(500 + i);
      if (blockPercentileDifferences(a, b, [95], i + 1, 1000)[0]?.significant === true) blocks++;
      if (percentileDifference(counts(raw(100 + i)), counts(raw(500 + i)), 95, i + 1)?.significant === true) perRequest++;
    }
    // Seeded: 32/40 by the per-request bootstrap, 5/40 by blocks. Whole-run drift is not in either: gates
    // need --repeat or a noise calibration to hold (gate-outcome.ts).
    expect(perRequest).toBeGreaterThanOrEqual(20);
    expect(blocks).toBeLessThanOrEqual(6);
  });

  it('LOAD-COMPARE: finds a 20% slower median, with the interval of the difference above zero', () => {
    const [t] = blockPercentileDifferences(run(7), run(8, 1.2), [50], 1, 1000);
    expect(t?.significant).toBe(true);
    expect(t?.low).toBeGreaterThan(15_000);
    expect(t?.difference).toBeGreaterThan(25_000);
  });

  it('LOAD-COMPARE: says nothing (null) with fewer than 4 non-empty seconds on a side', () => {
    expect(blockPercentileDifferences(run(1).slice(0, 3), run(2), [50, 95])).toEqual([null, null]);
    expect(blockPercentileDifferences([...run(1).slice(0, 3), [], []], run(2), [50])).toEqual([null]);
  });
});
