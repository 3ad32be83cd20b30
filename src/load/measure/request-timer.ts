import type { CheckThread } from './check-thread.ts';
import type { Checker } from './checker.ts';
import type { RequestTiming } from '../results/request-timing.ts';
import { timedOutAtEnd, type EndLimits } from './end-timeout.ts';
import { EventBounds, type EventRefusal } from './event-bounds.ts';
import { LARGE_READ_BYTES } from './large-reads.ts';
import type { ErrorClass } from '../results/load-result.ts';
import { headDecision, TimingBuilder, type CheckedPart, type HeadDecision } from './timing-builder.ts';
import type { SentRequest } from '../../protocols/protocol.ts';

export type { RequestTiming, TokenEvent } from '../results/request-timing.ts';

export interface RequestTimerOptions {
  seq: number;
  intendedNs: bigint;
  sentNs: bigint;
  stream: boolean;
  /** What the request sent: its protocol (by `api`) checks the answer against it. */
  sent: SentRequest;
  /** Called once, after `end` or `fail`, when the response has been parsed and checked. */
  onDone: (t: RequestTiming) => void;
  /** The run's checker: its worker, or its in-process queue. */
  checker: Checker;
}

/**
 * Stamps the arrival of every read of one response and turns it into a RequestTiming.
 * Engines call `headers`, `data` (once per read, with the time the read was handed over) and
 * then `end` or `fail`; `onDone` receives the timing once it is parsed and checked, by the check
 * worker when one runs (src/load/measure/check-thread.ts), else in-process in the deferred batches above.
 */
export class RequestTimer {
  readonly timing: RequestTiming;
  readonly #stream: boolean;
  readonly #sent: SentRequest;
  readonly #onDone: (t: RequestTiming) => void;
  readonly #remote: CheckThread | null;
  readonly #checker: Checker;
  readonly #id: number;
  readonly #builder: TimingBuilder | null;
  /** Reads stamped but not yet checked: slots 0..#unread-1 (the arrays are reused, not reallocated). */
  #reads: (Buffer | undefined)[] = [];
  #readTimes: bigint[] = [];
  #unread = 0;
  #queued = false;
  #ending: { atNs: bigint; fail?: { class: ErrorClass; detail: string; abortedAtEnd: boolean } } | undefined;
  #done = false;
  #reported = false;
  /** The head decided the verdict: reads are stamped as bytes by the engine but never checked. */
  #skipBody = false;
  /**
   * A whole (not streamed) body's reads, held here until it ends: only a body that ends is handed
   * to the check worker, so one cut at the 16 MiB bound (HDR-013) is dropped here, never copied.
   */
  #held: Buffer[] = [];
  readonly #bounds: EventBounds;

  constructor(options: RequestTimerOptions) {
    this.#stream = options.stream;
    this.#sent = options.sent;
    this.#onDone = options.onDone;
    this.#bounds = new EventBounds(options.stream);
    this.timing = {
      seq: options.seq,
      intendedNs: options.intendedNs,
      sentNs: options.sentNs,
      headersNs: null,
      endNs: null,
      status: null,
      requestId: null,
      tokenEvents: [],
      outputTokens: 0,
      promptTokens: 0,
      tokenSource: 'none',
      events: 0,
      error: null,
      abortedAtEnd: false,
    };
    this.#checker = options.checker;
    this.#remote = options.checker.assign();
    this.#id = this.#remote === null ? 0 : this.#remote.open((part) => this.#report(part));
    this.#builder = this.#remote === null ? new TimingBuilder(options.stream, options.sent, options.checker.scope) : null;
  }

  get finished(): boolean {
    return this.#done;
  }

  /** Null: the engine reads on; else it pauses this response's reads until the promise resolves (checker.ts readGate). */
  readGate(): Promise<void> | null {
    return this.#checker.readGate(this, this.#done ? 0 : this.#bounds.openBytes);
  }

  /** The head arrived at `atNs`; returns what it decides (a `failed` response is ended by the engine at once). */
  headers(atNs: bigint, status: number, requestId: string | null, contentType: string | null): HeadDecision {
    const t = this.timing;
    t.headersNs = atNs;
    t.status = status;
    t.requestId = requestId;
    const decision = headDecision(this.#stream, status, contentType);
    this.#skipBody = decision !== 'check';
    if (this.#remote !== null) this.#remote.headers(this.#id, this.#stream, status, contentType, this.#sent);
    else this.#builder?.headers(status, contentType);
    return decision;
  }

  /**
   * A read arrived at `atNs`: stamp only; parsing and checking happen in the batch. Event size and
   * JSON nesting are bounded here first (event-bounds.ts): a refused read fails the request and is
   * never copied; the engine drops the connection when this returns a refusal.
   */
  data(chunk: Buffer, atNs: bigint): EventRefusal | null {
    if (this.#done || this.#skipBody) return null;
    const refused = this.#bounds.feed(chunk);
    if (refused !== null) {
      this.fail(atNs, this.#stream ? 'stream_nonconforming' : 'body_invalid', refused.detail);
      return refused;
    }
    if (this.#remote !== null) {
      if (this.#stream) this.#remote.data(this.#id, chunk, atNs, this.#bounds.openBytes > LARGE_READ_BYTES);
      else this.#held.push(chunk);
      return null;
    }
    this.#reads[this.#unread] = chunk;
    this.#readTimes[this.#unread++] = atNs;
    this.#enqueue();
    return null;
  }

  /** The response ended at `atNs`; `onDone` follows once everything before it is checked. */
  end(atNs: bigint): void {
    if (this.#done) return;
    this.#done = true;
    this.#checker.large.leave(this);
    if (this.#remote !== null) {
      const large = this.#bounds.openBytes > LARGE_READ_BYTES;
      for (const chunk of this.#held) this.#remote.data(this.#id, chunk, atNs, large);
      this.#held = [];
      this.#remote.end(this.#id, this.#stream, atNs);
    }
    else {
      this.#ending = { atNs };
      this.#enqueue();
    }
  }

  fail(atNs: bigint, errorClass: ErrorClass, detail: string, abortedAtEnd = false): void {
    if (this.#done) return;
    this.#done = true;
    this.#checker.large.leave(this);
    this.#held = [];
    if (this.#remote !== null) this.#remote.fail(this.#id, this.#stream, atNs, errorClass, detail, abortedAtEnd);
    else {
      this.#ending = { atNs, fail: { class: errorClass, detail, abortedAtEnd } };
      this.#enqueue();
    }
  }

  /** The run ended with this request in flight: a timeout or aborted at end, as `timedOutAtEnd` decides. */
  abortAtEnd(atNs: bigint, limits: EndLimits, interrupted: boolean): void {
    if (this.#done) return;
    const timeout = timedOutAtEnd(this.timing.sentNs, atNs, limits, interrupted);
    if (timeout === null) return this.fail(atNs, 'other', 'in flight when the run ended', true);
    this.timing.timedOutAtEnd = true;
    this.fail(atNs, 'timeout', timeout);
  }

  #enqueue(): void {
    if (this.#queued) return;
    this.#queued = true;
    this.#checker.schedule(this);
  }

  /** In-process checking: parses and checks the queued reads; finishes the request when it has ended. */
  process(): void {
    this.#queued = false;
    const b = this.#builder;
    if (this.#reported || b === null) return;
    const reads = this.#reads;
    const times = this.#readTimes;
    const n = this.#unread;
    this.#unread = 0;
    for (let i = 0; i < n; i++) {
      const chunk = reads[i] as Buffer;
      reads[i] = undefined;
      b.feed(chunk, times[i] as bigint);
    }
    const ending = this.#ending;
    if (ending === undefined) return;
    this.#report(ending.fail === undefined ? b.end(ending.atNs) : b.fail(ending.atNs, ending.fail.class, ending.fail.detail, ending.fail.abortedAtEnd));
  }

  #report(part: CheckedPart): void {
    if (this.#reported) return;
    this.#reported = true;
    const t = this.timing;
    t.endNs = part.endNs;
    t.tokenEvents = part.tokenEvents;
    t.outputTokens = part.outputTokens;
    t.promptTokens = part.promptTokens;
    t.tokenSource = part.tokenSource;
    t.events = part.events;
    t.error = part.error;
    t.abortedAtEnd = part.abortedAtEnd;
    if (part.extras !== undefined) t.extras = part.extras;
    if (part.reasoningTokens !== undefined) t.reasoningTokens = part.reasoningTokens;
    if (part.reasoningSource !== undefined) t.reasoningSource = part.reasoningSource;
    this.#onDone(t);
  }
}
