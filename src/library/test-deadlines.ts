import type { RunSettings } from '../checks/context/check-context.ts';
import { formatDuration, type RunDeadline } from '../checks/kernel/check-deadline.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { DEFAULT_MAX_RATE_LIMIT_WAIT_MS } from '../checks/rate-limits/rate-limit-retry.ts';
import { formatPace } from '../checks/rate-limits/pace.ts';

/**
 * The whole run's default bound (README, Exit codes): a server that hangs in any way cannot hold
 * `iari test` longer. Against a real server the run may also wait out 429s (--max-rate-limit-wait):
 * by default the time it actually waited moves the deadline back by as much, so a run that waits is
 * not cut by its own deadline, and a server that hangs without ever answering 429 gets 5 minutes,
 * not 5 plus the whole wait budget (issue 22). An explicit --run-timeout is a hard bound.
 */
export const DEFAULT_RUN_TIMEOUT_MS = 5 * 60_000;

/** About how many requests a full run sends (measured: 164 against the bundled mock), for the throttle estimate. */
const REQUESTS_PER_RUN = 170;

/**
 * The deadlines of one run from its flags: the bundled mock answers at once, so its request and
 * check deadlines are short; a real model can take a while per answer, and a throttled check
 * waits for its slots.
 */
export function testTimeouts(
  flags: { request: number | undefined; check: number | undefined; run: number | undefined },
  target: RunSettings['target'],
  startedAt: number,
  maxRateLimitWaitMs = DEFAULT_MAX_RATE_LIMIT_WAIT_MS,
): Required<Pick<RunSettings, 'requestTimeoutMs' | 'checkTimeoutMs' | 'runDeadline'>> {
  const mock = target === 'bundled-mock';
  const runMs = flags.run ?? DEFAULT_RUN_TIMEOUT_MS;
  const credit = flags.run === undefined && !mock && maxRateLimitWaitMs > 0;
  const runDeadline: RunDeadline = { at: startedAt + runMs, ms: runMs, ...(credit ? { waitCreditMs: maxRateLimitWaitMs } : {}) };
  return { requestTimeoutMs: flags.request ?? (mock ? 10_000 : 60_000), checkTimeoutMs: flags.check ?? (mock ? 20_000 : 180_000), runDeadline };
}

/**
 * Lines for stderr. Before the run: a throttle so slow that a full run cannot fit in the run's
 * deadline. After: how many requirements were not decided because the deadline passed.
 */
export function runDeadlineNotes(when: 'before' | 'after', s: RunSettings, report?: ConformanceReport): string[] {
  const d = s.runDeadline;
  if (d === undefined) return [];
  if (when === 'before') {
    const rpm = s.requestsPerMinute === undefined ? undefined : Math.max(1, Math.floor(s.requestsPerMinute * 0.9));
    const needMs = s.pacePerSecond !== undefined ? (REQUESTS_PER_RUN / s.pacePerSecond) * 1000 : rpm !== undefined ? (REQUESTS_PER_RUN / rpm) * 60_000 : undefined;
    if (needMs === undefined || needMs <= d.ms) return [];
    const rate = s.pacePerSecond !== undefined ? `paced at ${formatPace(s.pacePerSecond)}` : `throttled to ${rpm} requests/min`;
    return [`${rate}, a full run needs about ${formatDuration(Math.ceil(needMs / 60_000) * 60_000)}; --run-timeout is ${formatDuration(d.ms)}, so requirements not reached by then are undecided (raise --run-timeout or --pace)`];
  }
  const undecided = (report?.results ?? []).filter((r) => r.verdict === 'undecided' && r.cause === 'deadline').length;
  if (undecided === 0) return [];
  return [`the run's deadline (--run-timeout ${formatDuration(d.ms)}) passed: ${undecided} requirement(s) are undecided, not failed (raise --run-timeout to judge them)`];
}

/** One line before the run saying how fast it sends, and why (--pace, /v1/me's limit, or the default). */
export function paceNote(s: RunSettings, explicit: boolean): string {
  if (s.pacePerSecond !== undefined) {
    return explicit
      ? `pacing requests at ${formatPace(s.pacePerSecond)} (--pace); a 429 is waited out`
      : `/v1/me reports no requests_per_minute: pacing requests at ${formatPace(s.pacePerSecond)} (--pace R/s to change); a 429 is waited out`;
  }
  if (s.requestsPerMinute !== undefined) return `throttled to the ${s.requestsPerMinute} requests/min /v1/me reports (--pace R/s to change)`;
  return 'not paced (bundled mock)';
}
