// A block bootstrap of percentile differences: the requests of a run are resampled in whole 1 s
// blocks, not one by one. Requests in flight together share the machine's hiccups (a GC pause, a
// busy neighbour) and the server's queue, so their latencies are correlated; a test that resamples
// them as independent draws under-states the spread and calls two runs of one configuration
// different (scripts/compare-false-positives.ts measured 30% of rows). Resampling blocks keeps each
// hiccup whole: a slow second is in or out of a draw with all its requests (Künsch 1989, "The
// jackknife and the bootstrap for general stationary observations", Ann. Statist. 17(3)).
import type { DifferenceTest } from '../statistics.ts';
import { seededRandom } from '../seeded-random.ts';

/** One block's values (any order). */
export type Blocks = readonly (readonly number[])[];

export const BLOCK_DRAWS = 2000;

/** Fewest non-empty blocks a side needs for the block bootstrap to say anything. */
export const MIN_BLOCKS = 4;

/** The value of rank ceil(p/100 n) of sorted values (HdrHistogram's convention). */
function rankValue(sorted: Float64Array, p: number): number {
  const k = Math.max(1, Math.ceil((p / 100) * sorted.length - 1e-9));
  return sorted[Math.min(sorted.length, k) - 1] ?? 0;
}

function draw(blocks: Blocks, rnd: () => number, scratch: number[]): Float64Array {
  scratch.length = 0;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[Math.floor(rnd() * blocks.length)] ?? [];
    for (const v of b) scratch.push(v);
  }
  return Float64Array.from(scratch).sort();
}

/**
 * For each percentile in `ps`, the block bootstrap interval (95%, percentile method) of
 * new - base; null for a side with fewer than MIN_BLOCKS non-empty blocks.
 */
export function blockPercentileDifferences(base: Blocks, next: Blocks, ps: readonly number[], seed = 1, draws = BLOCK_DRAWS): (DifferenceTest | null)[] {
  const a = base.filter((b) => b.length > 0);
  const b = next.filter((x) => x.length > 0);
  if (a.length < MIN_BLOCKS || b.length < MIN_BLOCKS) return ps.map(() => null);
  const rnd = seededRandom(seed);
  const diffs = ps.map(() => new Float64Array(draws));
  const scratch: number[] = [];
  for (let i = 0; i < draws; i++) {
    const da = draw(a, rnd, scratch);
    const db = draw(b, rnd, scratch);
    ps.forEach((p, j) => ((diffs[j] as Float64Array)[i] = rankValue(db, p) - rankValue(da, p)));
  }
  const pointA = Float64Array.from(a.flat()).sort();
  const pointB = Float64Array.from(b.flat()).sort();
  return ps.map((p, j) => {
    const d = (diffs[j] as Float64Array).sort();
    let below = 0;
    let above = 0;
    for (const x of d) {
      if (x <= 0) below++;
      if (x >= 0) above++;
    }
    const low = d[Math.floor(0.025 * draws)] as number;
    const high = d[Math.ceil(0.975 * draws) - 1] as number;
    return { difference: rankValue(pointB, p) - rankValue(pointA, p), low, high, p: Math.min(1, (2 * Math.min(below, above)) / draws), significant: low > 0 || high < 0 };
  });
}
