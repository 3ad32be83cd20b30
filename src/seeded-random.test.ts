import { describe, expect, it } from 'vitest';
import { seededRandom } from './seeded-random.ts';

const draw = (seed: number, n: number) => {
  const r = seededRandom(seed);
  return Array.from({ length: n }, () => r());
};

describe('seededRandom', () => {
  it('gives the same sequence for the same seed and a different one for another seed', () => {
    expect(draw(42, 50)).toEqual(draw(42, 50));
    expect(draw(42, 50)).not.toEqual(draw(43, 50));
  });

  it('draws values in [0, 1) spread over the interval', () => {
    const values = draw(7, 10_000);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
    expect(new Set(values).size).toBeGreaterThan(9_990);
  });
});
