/**
 * Open-loop arrival schedules: seeded, reproducible, independent of how fast the server
 * answers. Times are seconds after the schedule start.
 */

import { seededRandom } from '../../seeded-random.ts';
import type { Ramp } from '../results/load-result.ts';

export type Arrival = 'constant' | 'poisson' | 'gamma';

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
  /**
   * Poisson only: lengths (s) of consecutive windows from the schedule start (warmup, then the
   * measured window). Each window holds exactly round(λ·length) arrivals (D-LOAD-05); after the
   * last window, or without windows, the process runs unconditioned.
   */
  windows?: readonly number[];
  /** Gamma only: the shape K of the gaps (vLLM's --burstiness): below 1 burstier than Poisson, above 1 more regular. */
  burstiness?: number;
  /** --ramp: the rate rises to `rate` over the first `durationS` seconds of the schedule, then stays. */
  ramp?: Ramp;
}

/** The exponential ramp starts at 1/EXP_RAMP_SPAN of the rate. */
export const EXP_RAMP_SPAN = 100;

/**
 * A ramp is a change of clock: arrivals drawn at the full rate R at times u (constant, Poisson or
 * gamma, seeded as without a ramp) are sent at t = Λ⁻¹(R·u), where Λ(t) is the expected number
 * of arrivals by t under the ramped rate λ(t). A Poisson process at R mapped so is a Poisson
 * process of rate λ(t) (the time-rescaling theorem); a constant grid lands where Λ crosses each
 * whole arrival. `rampedTime` maps u (full-rate seconds) to t; `fullRateTime` is its inverse.
 *   linear:      λ(t) = R·t/D             (t < D)   so u = t²/(2D)
 *   exponential: λ(t) = R·a^(t/D − 1)      (t < D)   so u = D·(a^(t/D − 1) − 1/a)/ln a,  a = 100
 * and after the ramp λ = R, u = u(D) + (t − D).
 */
export function rampedTime(u: number, r: Ramp): number {
  const D = r.durationS;
  if (r.shape === 'linear') return u <= D / 2 ? Math.sqrt(2 * D * u) : u + D / 2;
  const a = EXP_RAMP_SPAN;
  const uD = (D * (1 - 1 / a)) / Math.log(a);
  return u <= uD ? D * (1 + Math.log((u * Math.log(a)) / D + 1 / a) / Math.log(a)) : D + (u - uD);
}

export function fullRateTime(t: number, r: Ramp): number {
  const D = r.durationS;
  if (r.shape === 'linear') return t <= D ? (t * t) / (2 * D) : D / 2 + (t - D);
  const a = EXP_RAMP_SPAN;
  const uD = (D * (1 - 1 / a)) / Math.log(a);
  return t <= D ? (D * (Math.pow(a, t / D - 1) - 1 / a)) / Math.log(a) : uD + (t - D);
}

function* ramped(base: Generator<number, never, void>, r: Ramp): Generator<number, never, void> {
  for (;;) yield rampedTime(base.next().value, r);
}

/**
 * Intended send times (s) forever, in order. Constant: shard i of n takes arrivals i, i+n,
 * i+2n... of the full 1/rate grid, so merged shards give exactly the full schedule. Poisson: each
 * shard is an independent Poisson process at rate/n (their superposition is a Poisson process at
 * `rate`), with exponential gaps -ln(1-U)/λ; inside each of `windows` the process is conditioned
 * on its expected count. The conditioning work is done on the call, before the first yield.
 */
export function arrivalTimes(o: ScheduleOptions): Generator<number, never, void> {
  if (o.ramp !== undefined && o.ramp.durationS > 0) {
    const r = o.ramp;
    // Conditioning windows are in real time: the base (full-rate) schedule holds them at their full-rate lengths.
    let end = 0;
    let from = 0;
    const windows = (o.windows ?? []).map((length) => {
      end += length;
      const to = fullRateTime(end, r);
      const w = to - from;
      from = to;
      return w;
    });
    const { ramp: _ramp, ...flat } = o;
    return ramped(arrivalTimes({ ...flat, ...(o.windows === undefined ? {} : { windows }) }), r);
  }
  const n = o.shard?.count ?? 1;
  const i = o.shard?.index ?? 0;
  if (o.arrival === 'constant') return constantTimes(o.rate, n, i);
  const lambda = o.rate / n;
  const seed = n === 1 ? o.seed : shardSeed(o.seed, i);
  if (o.arrival === 'gamma') return gammaTimes(lambda, o.burstiness ?? 1, seed);
  const windows = (o.windows ?? []).filter((length) => length > 0).map((length, w) => conditionedWindow(lambda, length, windowSeed(seed, w)));
  return poissonTimes(lambda, seed, windows);
}

function* constantTimes(rate: number, n: number, i: number): Generator<number, never, void> {
  for (let k = 0; ; k++) yield (k * n + i) / rate;
}

interface ConditionedWindow {
  length: number;
  count: number;
  seed: number;
  /** Sum of the count + 1 exponential spacings drawn from `seed`. */
  total: number;
}

function windowSeed(seed: number, w: number): number {
  return shardSeed(seed ^ 0x5bd1e995, w);
}

const exponential = (rnd: () => number): number => -Math.log(1 - rnd());

/**
 * A Poisson process conditioned on `count` arrivals in (0, length) places them as sorted
 * independent uniforms; normalised exponential spacings give them in order without sorting
 * (count + 1 spacings, scaled so they sum to `length`). The sum is drawn here, the spacings again
 * from the same seed while yielding, so memory stays constant.
 */
function conditionedWindow(lambda: number, length: number, seed: number): ConditionedWindow {
  const count = Math.round(lambda * length);
  const rnd = seededRandom(seed);
  let total = 0;
  for (let k = 0; k <= count; k++) total += exponential(rnd);
  return { length, count, seed, total };
}

function* poissonTimes(lambda: number, seed: number, windows: readonly ConditionedWindow[]): Generator<number, never, void> {
  let start = 0;
  for (const w of windows) {
    const rnd = seededRandom(w.seed);
    let acc = 0;
    for (let k = 0; k < w.count; k++) {
      acc += exponential(rnd);
      yield start + (w.length * acc) / w.total;
    }
    start += w.length;
  }
  const rnd = seededRandom(seed);
  let t = start;
  for (;;) {
    t += exponential(rnd) / lambda;
    yield t;
  }
}

/**
 * Gamma arrivals as vLLM's `--burstiness K` draws them (vllm/benchmarks/serve.py): independent
 * gaps of shape K and scale 1/(K·λ), so the mean rate is λ whatever K; K = 1 is Poisson. Unlike
 * the Poisson schedule they are not conditioned on a window's count. Shards are independent
 * processes at λ/n (their superposition is not a gamma process unless K = 1).
 */
function* gammaTimes(lambda: number, k: number, seed: number): Generator<number, never, void> {
  const rnd = seededRandom(seed);
  let t = 0;
  for (;;) {
    t += gammaDraw(rnd, k) / (k * lambda);
    yield t;
  }
}

/** A Gamma(k, 1) draw: Marsaglia and Tsang (2000), with the U^(1/k) boost for k < 1. */
export function gammaDraw(rnd: () => number, k: number): number {
  if (k < 1) return gammaDraw(rnd, k + 1) * Math.pow(Math.max(rnd(), 1e-300), 1 / k);
  const d = k - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      const u1 = Math.max(rnd(), 1e-300);
      x = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rnd());
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rnd();
    if (u < 1 - 0.0331 * x * x * x * x || Math.log(Math.max(u, 1e-300)) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/**
 * The windows a Poisson run is conditioned on: the warmup, then the measured window (the
 * duration, or the time `requests` take at the shard's rate, whichever is shorter).
 */
export function scheduleWindows(warmupS: number, durationS: number | null, requests: number | null, shardRate: number): number[] {
  const byCount = requests === null ? Infinity : requests / shardRate;
  const measured = Math.min(durationS ?? Infinity, byCount);
  return Number.isFinite(measured) ? [warmupS, measured] : [];
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
