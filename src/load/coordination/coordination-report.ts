import { driftOf, type OffsetProbe } from './clock.ts';
import type { LoadResult, Timeslice } from '../results/load-result.ts';
import type { Coordination, CoordinatedShard, Interval } from '../results/coordination-section.ts';

// Builds the `coordination` section (results/coordination-section.ts): start intervals, the skew,
// the window in which all ran, the verdict's line.

/** A shard's start on the coordinator's clock, relative to t0: it started when its clock read t0 - estimate, so at t0 + (true offset - estimate). */
export function startInterval(offset: Interval | null, lateMs: number): Interval | null {
  if (offset === null) return null;
  return { estimate: round(lateMs), low: round(offset.low - offset.estimate + lateMs), high: round(offset.high - offset.estimate + lateMs) };
}

/** Latest start minus earliest: the least and the most the intervals allow. */
export function skewOf(starts: readonly Interval[]): Interval | null {
  if (starts.length === 0) return null;
  const maxLow = Math.max(...starts.map((s) => s.low));
  const minHigh = Math.min(...starts.map((s) => s.high));
  const maxHigh = Math.max(...starts.map((s) => s.high));
  const minLow = Math.min(...starts.map((s) => s.low));
  const est = Math.max(...starts.map((s) => s.estimate)) - Math.min(...starts.map((s) => s.estimate));
  return { estimate: round(est), low: round(Math.max(0, maxLow - minHigh)), high: round(maxHigh - minLow) };
}

/** The shard's row from its sent record and clocks. */
export function coordinatedShard(shard: number, host: string, start: OffsetProbe, end: OffsetProbe | null, lateMs: number, injectedMs: number): CoordinatedShard {
  return {
    shard,
    host,
    offsetStartMs: start.offsetMs,
    offsetEndMs: end?.offsetMs ?? null,
    driftPpm: end === null ? null : driftOf(start, end),
    startMs: startInterval(start.offsetMs, lateMs),
    ...(injectedMs === 0 ? {} : { injectedOffsetMs: injectedMs }),
  };
}

/**
 * The window in which all ran: the latest measured start to the earliest measured end, and the
 * whole seconds inside it (null when under one whole second: the caller keeps the union).
 */
export function allRanWindow(windows: readonly { startMs: number; endMs: number }[]): { startMs: number; endMs: number; firstS: number; endS: number } | null {
  const startMs = Math.max(...windows.map((w) => w.startMs));
  const endMs = Math.min(...windows.map((w) => w.endMs));
  const firstS = Math.ceil(startMs / 1000);
  const endS = Math.floor(endMs / 1000);
  return endS - firstS < 1 ? null : { startMs, endMs, firstS, endS };
}

/** The counts of the merged seconds in [firstS, endS). */
export function countsWithin(slices: readonly Timeslice[], firstS: number, endS: number): { started: number; finished: number; ok: number; outputTokens: number } {
  const inside = slices.filter((s) => s.epochS >= firstS && s.epochS < endS);
  const sum = (f: (s: Timeslice) => number): number => inside.reduce((a, s) => a + f(s), 0);
  return { started: sum((s) => s.started), finished: sum((s) => s.finished), ok: sum((s) => s.ok), outputTokens: sum((s) => s.outputTokens) };
}

/** The verdict's line: who stopped the run and why, or null. */
export function stopLine(c: Coordination | undefined): string | null {
  const stop = c?.stop ?? null;
  if (stop === null) return null;
  return `the coordinated run was stopped (${stop.cause}${stop.shard === null ? '' : ` by shard ${stop.shard}`}): ${stop.detail}`;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

const iv = (i: Interval | null, unit: string): string => (i === null ? '-' : `${i.estimate} ${unit} [${i.low}, ${i.high}]`);

/** The summary's line: a shard's clock and start, or the coordinator's shards, skew and window (null: not coordinated). */
export function coordinationLine(c: Coordination | undefined): string | null {
  if (c === undefined) return null;
  if (c.role === 'shard') return `coordinated shard (${c.coordinator}): clock offset ${iv(c.offsetStartMs, 'ms')} at the start, ${iv(c.offsetEndMs, 'ms')} at the end; started ${c.lateMs === 0 ? 'at t0' : `${c.lateMs} ms after t0 (heard it late)`}`;
  const missing = c.shards.filter((s) => s.missing !== undefined);
  return `coordinated run: ${c.shards.length - missing.length}/${c.shards.length} shards, start skew ${iv(c.startSkewMs, 'ms')}, rates over the ${c.window.seconds} s in which all ran${missing.length === 0 ? '' : `; without a result: ${missing.map((s) => `shard ${s.shard} (${s.missing})`).join(', ')}`}`;
}
