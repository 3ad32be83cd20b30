import { parseDuration } from '../../duration.ts';
import { seededRandom } from '../../seeded-random.ts';
import type { OutputTally } from '../../protocols/protocol.ts';

/**
 * Client cancellations (docs/load.md, "Cancellation"): `--cancel-rate P` cuts a seeded share P of
 * the requests, `--cancel-after` says where. A cut request is aborted on the wire (undici destroys
 * its socket), counted apart from the errors and the samples, and its release by the server is
 * measured with --server-metrics (src/server-metrics/cancel-release.ts).
 */

/** --cancel-after: a duration from the send, after N tokens, before the first token, or at a seeded point after it. */
export type CancelAfter = { kind: 'ms'; ms: number } | { kind: 'tokens'; n: number } | { kind: 'prefill' } | { kind: 'decode' };

export interface CancelPlan {
  /** Share of the requests cut, in (0, 1]. */
  rate: number;
  after: CancelAfter;
  /** The flag's text, as given (load.json and the summary show it). */
  text: string;
}

/** Where one request is cut: after `ms` from its send, once `tokens` token-bearing events arrived, or at its head (prefill). */
export type CancelPoint = { kind: 'ms'; ms: number } | { kind: 'tokens'; tokens: number } | { kind: 'prefill' };

export const CANCEL_AFTER_FORMS = 'a duration (500ms), Ntokens (16tokens), prefill or decode';

/** `500ms`, `2s`, `16tokens`, `prefill`, `decode`; null when it is none of them. */
export function parseCancelAfter(text: string): CancelAfter | null {
  const t = text.trim();
  if (t === 'prefill' || t === 'decode') return { kind: t };
  const tokens = /^(\d+)\s*tokens?$/.exec(t);
  if (tokens !== null) {
    const n = Number(tokens[1]);
    return n >= 1 && n <= 1_000_000 ? { kind: 'tokens', n } : null;
  }
  const ms = parseDuration(t);
  return ms === undefined || !(ms >= 1 && ms <= 3_600_000) ? null : { kind: 'ms', ms };
}

/** Whether the cut point needs a streamed answer (tokens arrive one event at a time only in a stream). */
export const needsStream = (a: CancelAfter): boolean => a.kind !== 'ms';

/**
 * Whether request `seq` is cut, and where: the same seed gives the same requests and points on
 * every run (one draw per request, independent of the schedule). `decode` cuts after k tokens, k
 * drawn from 1 to maxTokens - 1 (a request whose answer ends sooner finishes uncut).
 */
export function cancelPointFor(plan: CancelPlan, seed: number, seq: number, maxTokens: number): CancelPoint | null {
  const r = seededRandom((seed ^ Math.imul(seq + 1, 0x9e3779b1) ^ 0x0ca9ce11) >>> 0);
  if (r() >= plan.rate) return null;
  const a = plan.after;
  if (a.kind === 'ms') return { kind: 'ms', ms: a.ms };
  if (a.kind === 'tokens') return { kind: 'tokens', tokens: a.n };
  if (a.kind === 'prefill') return { kind: 'prefill' };
  return { kind: 'tokens', tokens: 1 + Math.floor(r() * Math.max(1, maxTokens - 1)) };
}

/** The error an engine aborts a request with when the client cuts it (never counted as an error). */
export class ClientCancel extends Error {
  override readonly name = 'ClientCancel';
}

/**
 * One request's cut: arms the timer of a duration point, watches the head and the reads of a
 * prefill or token point, and calls `cut` once when the point is reached (never after the request
 * ended: `dispose`). Tokens are the output events the run's protocol tallies as the reads arrive,
 * on the thread that reads (the checker counts tokens later, off this thread): servers stream one
 * token per event (the mock, llama.cpp's, vLLM's), so N tokens is N events.
 */
export class CancelWatch {
  readonly #point: CancelPoint;
  readonly #cut: (tokens: number) => void;
  readonly #tally: OutputTally | null;
  #tokens = 0;
  #timer: NodeJS.Timeout | undefined;
  #done = false;

  constructor(point: CancelPoint, tally: () => OutputTally, cut: (tokens: number) => void) {
    this.#point = point;
    this.#cut = cut;
    // A duration point tallies too: the report says how many tokens had arrived when it cut.
    this.#tally = point.kind === 'prefill' ? null : tally();
    if (point.kind === 'ms') {
      this.#timer = setTimeout(() => this.#fire(), point.ms);
      this.#timer.unref();
    }
  }

  get tokens(): number {
    return this.#tokens;
  }

  /** The response's head arrived (a prefill point cuts here, before any token). */
  head(): void {
    if (this.#point.kind === 'prefill') this.#fire();
  }

  /** A read of the body arrived. */
  data(chunk: Buffer): void {
    if (this.#done || this.#tally === null) return;
    this.#tokens = this.#tally.feed(chunk);
    if (this.#point.kind === 'tokens' && this.#tokens >= this.#point.tokens) this.#fire();
  }

  dispose(): void {
    this.#done = true;
    clearTimeout(this.#timer);
  }

  #fire(): void {
    if (this.#done) return;
    this.dispose();
    this.#cut(this.tokens);
  }
}
