import type { LoadResult, Timeslice } from '../results/load-result.ts';
import type { OffsetProbe } from './clock.ts';
import type { StopCause } from '../results/coordination-section.ts';

export type { StopCause };

// The messages between shards and the coordinator (docs/load.md, "One run on many machines"):
// JSON over HTTP, each request carrying the run token as a bearer token (never the server's).

export const COORDINATION_PATHS = {
  register: '/coordination/v1/register',
  time: '/coordination/v1/time',
  start: '/coordination/v1/start',
  heartbeat: '/coordination/v1/heartbeat',
  result: '/coordination/v1/result',
} as const;

/** Every body has a bound: a heartbeat carries a few seconds of slices, a result one shard's load.json. */
export const BODY_LIMITS = { small: 64 * 1024, heartbeat: 1024 * 1024, result: 64 * 1024 * 1024 } as const;

export interface RegisterMessage {
  shard: number;
  count: number;
  /** The shard's host name (the pod's), for the report and the error that names a missing shard. */
  host: string;
}

/** A shard's abort: one of its abort SLOs breached (docs/load.md: the error-rate SLOs). */
export interface AbortNotice {
  slo: string;
  detail: string;
}

export interface HeartbeatMessage {
  shard: number;
  started: number;
  finished: number;
  failed: number;
  /** The seconds that changed since the last heartbeat (epoch seconds on the coordinator's clock). */
  slices: Timeslice[];
  abort?: AbortNotice;
  /** The shard's run ended (its result follows). */
  ended?: true;
}

export interface HeartbeatReply {
  stop: StopCause | null;
}

export interface StartReply {
  /** The agreed start, coordinator clock, epoch ms. */
  t0Ms: number;
}

export interface ResultMessage {
  shard: number;
  clocks: { start: OffsetProbe; end: OffsetProbe | null; injectedMs: number };
  /** The corrected local instant the shard started at, on its own clock (epoch ms), and its t0. */
  startedAtLocalMs: number;
  result: LoadResult;
}

/** Reads a non-negative integer member, else null. */
export function intOf(v: unknown, key: string): number | null {
  const x = (v as Record<string, unknown> | null)?.[key];
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : null;
}
