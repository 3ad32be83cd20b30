/**
 * Open-loop arrival schedules: seeded, reproducible, independent of how fast the server
 * answers. Times are seconds after the schedule start.
 */

import { seededRandom } from '../seeded-random.ts';

export type Arrival = 'constant' | 'poisson';

/** Mixes a seed with a shard index so shards draw independent streams. */
export function shardSeed(seed: number, shardIndex: number): number {
  let h = (seed ^ Math.imul(shardIndex + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export interface ScheduleOptions {
  /** Total arrivals per second across all shards. */
  rate: number;
  arrival: Arrival;
  seed: number;
  shard?: { index: number; count: number };
}

/**
 * Yields intended send times (s) forever, in order. Constant: shard i of n takes arrivals
 * i, i+n, i+2n... of the full 1/rate grid, so merged shards give exactly the full schedule.
 * Poisson: each shard is an independent Poisson process at rate/n (their superposition is a
 * Poisson process at `rate`), with exponential gaps -ln(1-U)/λ.
 */
export function* arrivalTimes(o: ScheduleOptions): Generator<number, never, void> {
  const n = o.shard?.count ?? 1;
  const i = o.shard?.index ?? 0;
  if (o.arrival === 'constant') {
    for (let k = 0; ; k++) yield (k * n + i) / o.rate;
  }
  const lambda = o.rate / n;
  const rnd = seededRandom(n === 1 ? o.seed : shardSeed(o.seed, i));
  let t = 0;
  for (;;) {
    t += -Math.log(1 - rnd()) / lambda;
    yield t;
  }
}

/** The first `count` arrivals, or all arrivals before `untilS`, whichever ends first. */
export function takeArrivals(o: ScheduleOptions, count: number, untilS = Infinity): number[] {
  const out: number[] = [];
  for (const t of arrivalTimes(o)) {
    if (out.length >= count || t >= untilS) break;
    out.push(t);
  }
  return out;
}
