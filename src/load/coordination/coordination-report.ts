import type { Interval } from './clock.ts';
import { driftOf, type OffsetProbe } from './clock.ts';
import type { StopCause } from './coordination-messages.ts';
import type { LoadResult, Timeslice } from '../results/load-result.ts';

// The `coordination` section of load.json (added in 0.1, issue 39; kept in this one module so
// that it moves as a whole onto the result-section contract when that lands). A shard's record
// says its clock offset and when it started; the coordinator's merged record says every shard's,
// the achieved start skew, the window in which all ran, and who stopped the run.

/** One shard's own record (its load.json). Offsets are coordinator minus shard, ms. */
export interface ShardCoordination {
  role: 'shard';
  /** The coordinator's origin (never the run token). */
  coordinator: string;
  /** The agreed start, coordinator clock, epoch ms. */
  t0Ms: number;
  /** How late after t0 the shard could start (it heard the start too late), ms; 0 when on time. */
  lateMs: number;
  offsetStartMs: Interval | null;
  offsetEndMs: Interval | null;
  rttMs: number | null;
  stop: StopCause | null;
  /** Tests only (IARI_TEST_CLOCK_OFFSET_MS): the shift injected into this shard's clock. */
  injectedOffsetMs?: number;
}

export interface CoordinatedShard {
  shard: number;
  host: string;
  offsetStartMs: Interval | null;
  offsetEndMs: Interval | null;
  /** Drift against the coordinator's clock, ppm (null: start and end probes under 1 s apart, or no end probe). */
  driftPpm: Interval | null;
  /** When the shard started, ms after t0 on the coordinator's clock: every instant its offset interval allows. */
  startMs: Interval | null;
  injectedOffsetMs?: number;
  /** Why the shard has no result in the merge (absent: it has one). */
  missing?: string;
}

/** The coordinator's record, on the merged load.json. */
export interface RunCoordination {
  role: 'coordinator';
  t0Ms: number;
  shards: CoordinatedShard[];
  /** The spread of the shards' starts (latest minus earliest), ms: every value their intervals allow. */
  startSkewMs: Interval | null;
  /** The window in which every shard with a result was measuring (coordinator clock, epoch ms); the rates are over its whole seconds. */
  window: { startMs: number; endMs: number; seconds: number };
  /** Who stopped the run and why (null: it ran to its end). */
  stop: StopCause | null;
}

export type Coordination = ShardCoordination | RunCoordination;

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
export function allRanWindow(results: readonly Pick<LoadResult, 'meta'>[]): { startMs: number; endMs: number; firstS: number; endS: number } | null {
  const startMs = Math.max(...results.map((r) => r.meta.measureStartEpochMs));
  const endMs = Math.min(...results.map((r) => r.meta.measureEndEpochMs));
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
