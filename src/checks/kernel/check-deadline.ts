import { formatDuration } from '../../duration.ts';

/**
 * Deadlines of `iari test` (README, Exit codes; docs/conformance.md, Deadlines): every request
 * has a total deadline (--request-timeout), every check one (--check-timeout), the whole run one
 * (--run-timeout). A check that passes its deadline is abandoned and its requests are aborted;
 * a check that would start after the run's deadline is not run. Its IDs, and those a check left
 * open when the run's deadline cut it, are `undecided` with cause `deadline` (issue 37: a deadline
 * decides nothing), never a FAIL.
 */

/** How deadlines are written in messages (src/duration.ts). */
export { formatDuration };

/** The run's deadline as an epoch-ms instant with its configured length. */
export interface RunDeadline {
  at: number;
  ms: number;
  /** Time spent waiting out 429s moves the deadline back by as much, up to this (the default deadline against a real server). */
  waitCreditMs?: number;
}

/** Milliseconds left before the run's deadline (Infinity without one), `waitedMs` of 429 waits credited. */
export function runTimeLeft(deadline: RunDeadline | undefined, now = Date.now(), waitedMs = 0): number {
  return deadline === undefined ? Infinity : deadline.at + Math.min(waitedMs, deadline.waitCreditMs ?? 0) - now;
}

/** The verdict message of a requirement whose check did not start because the run's deadline had passed. */
export function notRunMessage(deadline: RunDeadline): string {
  return `not decided: the run's deadline (--run-timeout ${formatDuration(deadline.ms)}) passed before this check started`;
}

/** Why a check was abandoned: its own deadline, or the run's when that came first. */
export function checkDeadlineMessage(checkMs: number, byRun: RunDeadline | undefined): string {
  if (byRun !== undefined) return `not decided: the run's deadline (--run-timeout ${formatDuration(byRun.ms)}) passed while this check ran`;
  return `the check did not finish within its deadline of ${formatDuration(checkMs)} (--check-timeout); its requests were aborted`;
}

/** Marks every message the run's deadline writes (notRunMessage, checkDeadlineMessage's run case). */
const RUN_DEADLINE = "not decided: the run's deadline";

/** True when `message` says only that the run's deadline cut the check (a check may wrap it: "request failed: …"). */
export function isRunDeadlineMessage(message: string): boolean {
  return message.includes(RUN_DEADLINE);
}
