// Small deterministic PRNG (mulberry32) and string hashing (FNV-1a), for the seeded generator.

export type Rng = () => number;

// The harness's one mulberry32 and FNV-1a (src/seeded-random.ts): the same seed gives the mock and iari the same sequence.
export { seededRandom as mulberry32, fnv1a } from '../../src/seeded-random.ts';

export function randomInt(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}
