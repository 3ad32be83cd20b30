import { formatDuration } from '../kernel/check-deadline.ts';
import { deadlineViolation, type BoundViolation } from '../../client/body-limits.ts';

/**
 * Once the server held one answer open past its request deadline, a request of a kind not yet
 * seen waits at most this long, or three times the slowest answer that did complete in the run
 * if that is longer (never more than --request-timeout). A server that never ends its answers
 * then costs one full deadline and a few short ones, not a full deadline per kind (issue 22:
 * default `iari test` against streams that never end took the whole 7-minute run).
 */
export const AFTER_STALL_TIMEOUT_MS = 10_000;

/** A request as the stall record sees it: its kind is method, path (no query), streamed or not, and the bounds probe it is. */
export interface StallRequest {
  method: string;
  path: string;
  streamed: boolean;
  probe?: string | undefined;
}

/**
 * What `Stalls.guard` answers: `refused`, a request of this kind never completed before and this
 * one is not sent (`root` names the first); `admitted`, send it with the deadline `deadline` gives
 * once the request is about to go (after the throttle: a stall meanwhile shortens it).
 */
export type StallGuard = { kind: 'refused'; root: string } | { kind: 'admitted'; deadline(requestedMs: number): StallDeadline };

/** The deadline one request was sent with; `expired` when it did not complete within it. */
export interface StallDeadline {
  ms: number;
  /** Shorter than asked: the server had already held an answer open (AFTER_STALL_TIMEOUT_MS). */
  shortened: boolean;
  expired(requestId: string | undefined): LateAnswer;
}

/**
 * A request that did not complete within its deadline: after a shortened deadline, `not-decided`
 * with the root cause of its kind (never a finding on its own); after the whole --request-timeout,
 * the HDR-012 `deadline` violation (the root cause of its kind from now on).
 */
export type LateAnswer = { kind: 'not-decided'; root: string } | { kind: 'deadline'; violation: BoundViolation };

/** What is known of the answers that never completed in this run, by kind (method, path, streamed, probe). */
export class Stalls {
  readonly #byKind = new Map<string, string>();
  /** Kinds that passed the whole --request-timeout (not a shortened deadline): HDR-012 evidence as they stand. */
  readonly #unended: string[] = [];
  #slowestCompletedMs = 0;

  static kind(method: string, path: string, streamed: boolean, probe?: string): string {
    return `${method} ${path.split('?')[0] ?? path}${streamed ? ' stream' : ''}${probe === undefined ? '' : ` probe ${probe}`}`;
  }

  /**
   * The one gate every request of a check passes (the checks' client, the client libraries' fetch,
   * the openai SDK): refused at once when its kind never completed, else admitted with the deadline
   * it gets and what a late answer means.
   */
  guard(request: StallRequest): StallGuard {
    const kind = Stalls.kind(request.method, request.path, request.streamed, request.probe);
    const root = this.blocked(kind);
    // Spec, Streaming: a stream ends with `data: [DONE]`; one that did not within the deadline (HDR-012) decides every later one of its kind.
    if (root !== undefined) return { kind: 'refused', root };
    const path = request.path.split('?')[0] ?? request.path;
    const what = request.streamed ? "the server's streams do not end" : `the server's answers to ${request.method} ${path} do not complete`;
    return {
      kind: 'admitted',
      deadline: (requestedMs) => {
        const { ms, shortened } = this.deadline(requestedMs);
        return {
          ms,
          shortened,
          expired: (requestId) => {
            const message = this.record(kind, what, requestId, shortened ? ms : undefined);
            // A shortened deadline shows only that this answer, too, was late: not decided, not a finding.
            return shortened ? { kind: 'not-decided', root: message } : { kind: 'deadline', violation: deadlineViolation(ms) };
          },
        };
      },
    };
  }

  /** The root cause that decides a request of this kind at once, if one of its kind never completed. */
  blocked(kind: string): string | undefined {
    return this.#byKind.get(kind);
  }

  /** The root causes found so far: one message per kind of request that never completed. */
  get all(): readonly string[] {
    return [...this.#byKind.values()];
  }

  /** What never completed within the whole --request-timeout, each as its root-cause message: HDR-012 evidence. */
  get unended(): readonly string[] {
    return this.#unended;
  }

  /** An answer completed in `ms`: later deadlines after a stall are never shorter than three times the slowest. */
  completed(ms: number): void {
    if (ms > this.#slowestCompletedMs) this.#slowestCompletedMs = ms;
  }

  /** The deadline a request of `kind` gets, and whether it was shortened because the server stalled before. */
  deadline(requestedMs: number): { ms: number; shortened: boolean } {
    if (this.#byKind.size === 0) return { ms: requestedMs, shortened: false };
    const ms = Math.min(requestedMs, Math.max(AFTER_STALL_TIMEOUT_MS, Math.ceil(3 * this.#slowestCompletedMs)));
    return { ms, shortened: ms < requestedMs };
  }

  /**
   * A request of `kind` did not complete within its deadline: the root cause for every later one
   * of its kind. `shortenedMs`: its deadline had been shortened by an earlier stall, so what it
   * shows is only that it, too, did not answer in time: not decided, never a finding on its own.
   */
  record(kind: string, what: string, requestId: string | undefined, shortenedMs?: number): string {
    const known = this.#byKind.get(kind);
    if (known !== undefined) return known;
    const first = this.#byKind.values().next().value;
    const message =
      shortenedMs === undefined || first === undefined
        ? `not decided: ${what} (HDR-012, request id ${requestId ?? 'none'})`
        : `not decided: ${what} within ${formatDuration(shortenedMs)} either, the deadline iari gives each new kind of request once the server has held an answer open (${first.replace(/^not decided: /, '')})`;
    this.#byKind.set(kind, message);
    if (shortenedMs === undefined) this.#unended.push(message);
    return message;
  }
}
