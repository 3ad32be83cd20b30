import type { Checker } from '../measure/checker.ts';
import type { OutputTally, SentRequest } from '../../protocols/protocol.ts';
import type { ConnectionWatch } from '../../client/connection-watch.ts';
import type { Dispatcher, Pool } from 'undici';
import type { Collector } from '../results/collector.ts';
import type { RequestTiming } from '../measure/request-timer.ts';
import type { ConnectionReuse } from './connection-reuse.ts';
import type { CancelPoint } from './cancellation.ts';

/** What every engine needs to send requests and report them. */
export interface EngineTarget {
  /** How the run checks what it reads (its worker or its in-process queue): owned by the run. */
  checker: Checker;
  /** `scheme://host:port` (no path). */
  origin: string;
  /** The protocol's route under the base URL's path. */
  path: string;
  /** Request headers incl. authorization; never logged. */
  headers: Record<string, string>;
  /** The next request body (JSON) for request number `seq`. */
  body: (seq: number) => string;
  /** Extra per-request headers (e.g. mock latency overrides), given the intended send time (s after start). */
  extraHeaders?: (seq: number, intendedS: number) => Record<string, string> | undefined;
  stream: boolean;
  /** What every request sent (its protocol, by `api`, checks each answer against it). */
  sent: SentRequest;
  /** A tally of a streamed answer's output events, by the run's protocol (--cancel-after Ntokens). */
  tally: () => OutputTally;
  /** The run's watch over which connection each request went out on (connection reuse races); none: no race is recognised. */
  connections?: ConnectionWatch;
  /** The undici engine's dispatcher for `origin` with these pool options (TLS, proxy); default a plain Pool. */
  dispatcher?: (pool: Pool.Options) => Dispatcher;
  /** --connection-reuse (connection-reuse.ts); default `reuse`. */
  connectionReuse?: ConnectionReuse;
  /** --cancel-rate: where request `seq` is cut (null: never); the undici engines only (cancellation.ts). */
  cancel?: (seq: number) => CancelPoint | null;
  /** Called at the instant a request is cut (--server-metrics then reads faster for a while). */
  onCut?: () => void;
}

export interface EngineLimits {
  /** hrtime ns when the run starts (t = 0 of the schedule). */
  startNs: bigint;
  /** No request starts at or after this instant (warmup + duration). */
  stopNs: bigint;
  /** At most this many MEASURED requests start (null: unbounded, then stopNs bounds). */
  maxRequests: number | null;
  /** Idle timeout: no byte for this long fails the request with class `timeout` (reset on every byte). */
  timeoutMs: number;
  /** Total deadline of one request from its actual send, body included: past it, class `timeout` (a server that keeps sending cannot hold it). */
  deadlineMs: number;
  /** After stopNs, in-flight requests get this long to finish; the rest are aborted at end or time out (end-timeout.ts). */
  drainMs: number;
  /** hrtime ns at which the measured window starts (after warmup); default startNs. */
  measureStartNs?: bigint;
}


/** The short fixed grace in-flight requests get after a run's end before they are aborted and counted as aborted at end. */
export const END_GRACE_MS = 5_000;

/** The most the phase before the measured window (choosing the model, the priming request) may take. */
export const PRE_WINDOW_MAX_MS = 10_000;

/**
 * The deadline of everything before the measured window (docs/load.md, "A run ends at its
 * bound"): at most 10 s, or --request-timeout if lower, and never longer than the run itself
 * (warmup + duration; a requests-bound run counts its 600 s ceiling).
 */
export function preWindowBudgetMs(requestTimeoutMs: number, runS: number): number {
  return Math.max(0, Math.min(PRE_WINDOW_MAX_MS, requestTimeoutMs, runS * 1000));
}

/** Default total deadline of one load request (--request-timeout). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export interface EngineHooks {
  collector: Collector;
  /** Called with every finished request (after the collector saw it). */
  onTiming?: (t: RequestTiming) => void;
  /** Progress tick (about 4 per second). */
  onTick?: () => void;
  /** Resolves (or aborts) to stop early, e.g. on SIGINT. */
  signal?: AbortSignal;
}

export interface EngineRun {
  /** Requests issued (warmup included). */
  issued: number;
  /** Open loop: arrivals that were due before stop (issued = due, never dropped). */
  due: number;
  /** hrtime ns of the last request start. */
  lastStartNs: bigint;
}

export const now = (): bigint => process.hrtime.bigint();

export function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const t = setTimeout(done, Math.max(0, ms));
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
