// A block bootstrap of percentile differences: the requests of a run are resampled in whole 1 s
// blocks, not one by one. Requests in flight together share the machine's hiccups (a GC pause, a
// busy neighbour) and the server's queue, so their latencies are correlated; a test that resamples
// them as independent draws under-states the spread and calls two runs of one configuration
// different (scripts/compare-false-positives.ts measured 30% of rows). Resampling blocks keeps each
// hiccup whole: a slow second is in or out of a draw with all its requests (Künsch 1989, "The
// jackknife and the bootstrap for general stationary observations", Ann. Statist. 17(3)).
import type { DifferenceTest, ValueCount } from '../statistics.ts';
import { seededRandom } from '../seeded-random.ts';

/** One block's values with their counts (an HDR histogram's buckets, or raw values with count 1). */
export type Blocks = readonly (readonly ValueCount[])[];

export const BLOCK_DRAWS = 2000;

/** Fewest non-empty blocks a side needs for the block bootstrap to say anything. */
export const MIN_BLOCKS = 4;

/** Blocks as indexes into one sorted list of the distinct values of both sides. */
interface Indexed {
  idx: Int32Array;
  count: Float64Array;
}

function index(blocks: Blocks, at: Map<number, number>): Indexed[] {
  return blocks.map((b) => ({ idx: Int32Array.from(b.map((v) => at.get(v.value) ?? 0)), count: Float64Array.from(b.map((v) => v.count)) }));
}

/** The values of ranks ceil(p/100 n) (HdrHistogram's convention) for ascending ps, from counts per distinct value. */
function ranks(counts: Float64Array, values: readonly number[], ps: readonly number[], out: Float64Array): void {
  let n = 0;
  for (const c of counts) n += c;
  let j = 0;
  let seen = 0;
  let k = Math.max(1, Math.ceil(((ps[0] ?? 50) / 100) * n - 1e-9));
  for (let i = 0; i < counts.length && j < ps.length; i++) {
    seen += counts[i] as number;
    while (j < ps.length && seen >= k) {
      out[j] = values[i] as number;
      j++;
      if (j < ps.length) k = Math.max(1, Math.ceil(((ps[j] as number) / 100) * n - 1e-9));
    }
  }
  for (; j < ps.length; j++) out[j] = values.at(-1) ?? 0;
}

/** Adds the blocks drawn (`picks`, indexes into `blocks`) into `counts`. */
function resample(blocks: readonly Indexed[], picks: Int32Array, counts: Float64Array): void {
  counts.fill(0);
  for (const k of picks) {
    const b = blocks[k] as Indexed;
    for (let t = 0; t < b.idx.length; t++) counts[b.idx[t] as number]! += b.count[t] as number;
  }
}

function draw(n: number, rnd: () => number, out: Int32Array): Int32Array {
  for (let i = 0; i < n; i++) out[i] = Math.floor(rnd() * n);
  return out;
}

/**
 * For each percentile in `ps`, the block bootstrap interval (95%, percentile method) of
 * new - base; null for a side with fewer than MIN_BLOCKS non-empty blocks.
 */
export function blockPercentileDifferences(base: Blocks, next: Blocks, ps: readonly number[], seed = 1, draws = BLOCK_DRAWS): (DifferenceTest | null)[] {
  return differences(base.filter((b) => b.length > 0), next.filter((x) => x.length > 0), ps, seed, draws);
}

function differences(a0: Blocks, b0: Blocks, ps: readonly number[], seed: number, draws: number): (DifferenceTest | null)[] {
  if (a0.length < MIN_BLOCKS || b0.length < MIN_BLOCKS) return ps.map(() => null);
  const values = [...new Set([...a0, ...b0].flatMap((b) => b.map((v) => v.value)))].sort((x, y) => x - y);
  const at = new Map(values.map((v, i) => [v, i]));
  const a = index(a0, at);
  const b = index(b0, at);
  const order = ps.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const sortedPs = order.map((o) => o.p);
  const rnd = seededRandom(seed);
  const diffs = ps.map(() => new Float64Array(draws));
  const ca = new Float64Array(values.length);
  const cb = new Float64Array(values.length);
  const qa = new Float64Array(ps.length);
  const qb = new Float64Array(ps.length);
  const pa0 = new Int32Array(a.length);
  const pb0 = new Int32Array(b.length);
  for (let d = 0; d < draws; d++) {
    const picks = draw(a.length, rnd, pa0);
    resample(a, picks, ca);
    resample(b, draw(b.length, rnd, pb0), cb);
    ranks(ca, values, sortedPs, qa);
    ranks(cb, values, sortedPs, qb);
    order.forEach((o, j) => ((diffs[o.i] as Float64Array)[d] = (qb[j] as number) - (qa[j] as number)));
  }
  const whole = (blocks: readonly Indexed[]): Float64Array => {
    const c = new Float64Array(values.length);
    for (const x of blocks) for (let t = 0; t < x.idx.length; t++) c[x.idx[t] as number]! += x.count[t] as number;
    const q = new Float64Array(ps.length);
    ranks(c, values, sortedPs, q);
    return q;
  };
  const pa = whole(a);
  const pb = whole(b);
  return ps.map((_, i) => {
    const j = order.findIndex((o) => o.i === i);
    const diff = (diffs[i] as Float64Array).sort();
    let below = 0;
    let above = 0;
    for (const x of diff) {
      if (x <= 0) below++;
      if (x >= 0) above++;
    }
    const low = diff[Math.floor(0.025 * draws)] as number;
    const high = diff[Math.ceil(0.975 * draws) - 1] as number;
    return { difference: (pb[j] as number) - (pa[j] as number), low, high, p: Math.min(1, (2 * Math.min(below, above)) / draws), significant: low > 0 || high < 0 };
  });
}
