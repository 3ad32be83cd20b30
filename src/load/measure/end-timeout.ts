/** The bounds of a run that decide how its requests still in flight at the end are counted (engine.ts EngineLimits). */
export interface EndLimits {
  startNs: bigint;
  stopNs: bigint;
  deadlineMs: number;
  measureStartNs?: bigint;
}

/**
 * How a request still in flight when the run ends is counted (docs/load.md, "Requests in flight
 * at the end"): one that has been in flight at least as long as the whole measured window, or
 * longer than --request-timeout, is an error of class `timeout` (the detail returned); one that
 * began later is `abortedAtEnd` (null). A Ctrl-C end is always `abortedAtEnd`.
 */
export function timedOutAtEnd(sentNs: bigint, endNs: bigint, limits: EndLimits, interrupted = false): string | null {
  if (interrupted) return null;
  const ageMs = Number(endNs - sentNs) / 1e6;
  const windowMs = Number(limits.stopNs - (limits.measureStartNs ?? limits.startNs)) / 1e6;
  const s = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
  if (limits.deadlineMs > 0 && ageMs > limits.deadlineMs) return `still in flight when the run ended, ${s(ageMs)} after it was sent: past the request deadline of ${limits.deadlineMs / 1000} s (--request-timeout)`;
  if (ageMs >= windowMs) return `still in flight when the run ended, ${s(ageMs)} after it was sent: no answer for at least the whole measured window (${s(windowMs)})`;
  return null;
}
