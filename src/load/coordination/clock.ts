import { performance } from 'node:perf_hooks';
import type { Interval } from '../results/coordination-section.ts';

export type { Interval };

// A shard's clock against the coordinator's: NTP-style min-round-trip probes (RFC 5905 §8 with
// one server stamp). A probe sent at t1 and answered at t4 (shard clock) carrying the
// coordinator's stamp T was stamped between the two, so the offset T - local lies in
// [T - t4, T - t1]: the midpoint estimate ± half the round trip. The probe with the smallest
// round trip gives the narrowest interval, and the interval holds whatever the path's asymmetry.

/** Wall-clock time in epoch ms (fractional); the coordinator and every shard read theirs. */
export type TimeSource = () => number;

export const systemTime: TimeSource = () => performance.timeOrigin + performance.now();

/**
 * Tests only: IARI_TEST_CLOCK_OFFSET_MS shifts this process's time source by that many ms, as a
 * shard whose clock is off would be (suites/load/coordinated-shards.test.ts injects ±200 ms).
 * The shift is reported in the shard's coordination record, so a run never hides it.
 */
export function timeSourceFromEnv(env: NodeJS.ProcessEnv = process.env): { time: TimeSource; injectedMs: number } {
  const raw = env['IARI_TEST_CLOCK_OFFSET_MS'];
  const shift = raw === undefined || raw === '' ? 0 : Number(raw);
  if (!Number.isFinite(shift) || Math.abs(shift) > 3_600_000) return { time: systemTime, injectedMs: 0 };
  return { time: shift === 0 ? systemTime : () => systemTime() + shift, injectedMs: shift };
}

/** The offset of a shard's clock from the coordinator's (coordinator minus shard), ms, from its best probe. */
export interface OffsetProbe {
  offsetMs: Interval;
  /** The smallest round trip of the probes, ms (the interval's width). */
  rttMs: number;
  /** The probes sent, and when (shard clock, epoch ms) the best was answered. */
  probes: number;
  atMs: number;
}

/** One probe: the local stamps around the coordinator's. */
export interface ProbeSample {
  t1: number;
  coordinatorMs: number;
  t4: number;
}

/** The min-RTT estimate of `samples` (at least one). */
export function offsetOf(samples: readonly ProbeSample[]): OffsetProbe {
  let best: ProbeSample | undefined;
  for (const s of samples) if (best === undefined || s.t4 - s.t1 < best.t4 - best.t1) best = s;
  if (best === undefined) throw new Error('offsetOf: no probe');
  const rtt = Math.max(0, best.t4 - best.t1);
  const mid = best.coordinatorMs - (best.t1 + best.t4) / 2;
  return { offsetMs: { estimate: round(mid), low: round(mid - rtt / 2), high: round(mid + rtt / 2) }, rttMs: round(rtt), probes: samples.length, atMs: best.t4 };
}

/**
 * Drift of the shard's clock against the coordinator's, in parts per million, from the offsets at the
 * start and at the end: every rate that both intervals allow (null when they are under 1 s apart).
 */
export function driftOf(start: OffsetProbe, end: OffsetProbe): Interval | null {
  const spanMs = end.atMs - start.atMs;
  if (spanMs < 1000) return null;
  const ppm = (d: number): number => round((d / spanMs) * 1e6);
  return { estimate: ppm(end.offsetMs.estimate - start.offsetMs.estimate), low: ppm(end.offsetMs.low - start.offsetMs.high), high: ppm(end.offsetMs.high - start.offsetMs.low) };
}

/**
 * Sends at least `count` probes one after another, `gapMs` apart (a stall of a busy machine spans
 * fewer of them), and goes on up to `max` while the best round trip is over `goodRttMs`: the
 * interval is as narrow as the path allows, within a bounded number of probes (each bounded by the
 * caller's `probe`).
 */
export async function probeOffset(probe: () => Promise<ProbeSample>, count: number, o: { max?: number; goodRttMs?: number; gapMs?: number } = {}): Promise<OffsetProbe> {
  const samples: ProbeSample[] = [];
  const max = Math.max(count, o.max ?? count);
  let best = Infinity;
  for (let i = 0; i < max && (i < count || best > (o.goodRttMs ?? 0)); i++) {
    if (i > 0 && o.gapMs !== undefined) await new Promise((r) => setTimeout(r, o.gapMs));
    const s = await probe();
    best = Math.min(best, s.t4 - s.t1);
    samples.push(s);
  }
  return offsetOf(samples);
}

const round = (x: number): number => Math.round(x * 1000) / 1000;
