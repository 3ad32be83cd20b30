import { activeCheckThread, type CheckThread } from './check-thread.ts';
import { cutAtEnd, type CutLimits } from './end-cut.ts';
import { EventBounds, type EventRefusal } from './event-bounds.ts';
import type { ErrorClass } from './load-result.ts';
import type { ResponseExtras } from './response-extras.ts';
import { headDecision, TimingBuilder, type CheckedPart, type HeadDecision } from './timing-builder.ts';

/** One token-bearing event as iari stamped it (ns on the process.hrtime clock). */
export interface TokenEvent {
  atNs: bigint;
  tokens: number;
}

/** Everything measured about one request; times are hrtime ns, durations derived later. */
export interface RequestTiming {
  seq: number;
  /** Intended send (open loop) or actual send (closed loop). */
  intendedNs: bigint;
  sentNs: bigint;
  headersNs: bigint | null;
  endNs: bigint | null;
  status: number | null;
  requestId: string | null;
  /** Token-bearing events in arrival order with their apportioned token counts. */
  tokenEvents: TokenEvent[];
  outputTokens: number;
  promptTokens: number;
  tokenSource: 'usage' | 'tokenizer' | 'none';
  events: number;
  error: { class: ErrorClass; detail: string; finding?: string } | null;
  /** Still in flight when the run ended and cut off: neither a sample nor an error. */
  abortedAtEnd: boolean;
  /** Cut at the end and counted as a `timeout` (engine.ts `cutAtEnd`): a measured error even when sent during warmup. */
  cutAtEnd?: true;
  /** What the checked response said beyond timing (usage details); absent when not checked to the end. */
  extras?: ResponseExtras;
}

export interface RequestTimerOptions {
  seq: number;
  intendedNs: bigint;
  sentNs: bigint;
  stream: boolean;
  /** Called once, after `end` or `fail`, when the response has been parsed and checked. */
  onDone: (t: RequestTiming) => void;
}

/**
 * Stamps are taken the moment a read arrives; the parsing and checking of what arrived waits
 * until every socket that became readable in the same I/O phase has been stamped (setImmediate
 * runs after the poll phase). Otherwise, when many streams receive an event at the same instant,
 * the last socket's stamp would include the checking of all the others. `pending` holds the timers
 * with unchecked reads (each once, in the order of its first such read); `head` is the next one.
 */
const pending: (RequestTimer | undefined)[] = [];
let head = 0;
let flushScheduled = false;

/** Checking yields back to I/O after this much work, so reads arriving meanwhile are stamped on time. */
const SLICE_NS = 300_000n;

function flushAll(): void {
  flushScheduled = false;
  const deadline = process.hrtime.bigint() + SLICE_NS;
  while (head < pending.length) {
    const timer = pending[head] as RequestTimer;
    pending[head++] = undefined;
    timer.process();
    if (head < pending.length && process.hrtime.bigint() > deadline) {
      flushScheduled = true;
      setImmediate(flushAll);
      return;
    }
  }
  pending.length = 0;
  head = 0;
}

/** Queues a timer once (no allocation per read: the stamping path stays light on the garbage collector). */
function schedule(timer: RequestTimer): void {
  pending.push(timer);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushAll);
  }
}

/**
 * Stamps the arrival of every read of one response and turns it into a RequestTiming.
 * Engines call `headers`, `data` (once per read, with the time the read was handed over) and
 * then `end` or `fail`; `onDone` receives the timing once it is parsed and checked, by the check
 * worker when one runs (src/load/check-thread.ts), else in-process in the deferred batches above.
 */
export class RequestTimer {
  readonly timing: RequestTiming;
  readonly #stream: boolean;
  readonly #onDone: (t: RequestTiming) => void;
  readonly #remote: CheckThread | null;
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
    this.#remote = activeCheckThread();
    this.#id = this.#remote === null ? 0 : this.#remote.open((part) => this.#report(part));
    this.#builder = this.#remote === null ? new TimingBuilder(options.stream) : null;
  }

  get finished(): boolean {
    return this.#done;
  }

  /** The head arrived at `atNs`; returns what it decides (a `failed` response is ended by the engine at once). */
  headers(atNs: bigint, status: number, requestId: string | null, contentType: string | null): HeadDecision {
    const t = this.timing;
    t.headersNs = atNs;
    t.status = status;
    t.requestId = requestId;
    const decision = headDecision(this.#stream, status, contentType);
    this.#skipBody = decision !== 'check';
    if (this.#remote !== null) this.#remote.headers(this.#id, this.#stream, status, contentType);
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
      if (this.#stream) this.#remote.data(this.#id, chunk, atNs);
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
    if (this.#remote !== null) {
      for (const chunk of this.#held) this.#remote.data(this.#id, chunk, atNs);
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
    this.#held = [];
    if (this.#remote !== null) this.#remote.fail(this.#id, this.#stream, atNs, errorClass, detail, abortedAtEnd);
    else {
      this.#ending = { atNs, fail: { class: errorClass, detail, abortedAtEnd } };
      this.#enqueue();
    }
  }

  /** The run ended with this request in flight: a timeout or aborted at end, as `cutAtEnd` decides. */
  cut(atNs: bigint, limits: CutLimits, interrupted: boolean): void {
    if (this.#done) return;
    const timeout = cutAtEnd(this.timing.sentNs, atNs, limits, interrupted);
    if (timeout === null) return this.fail(atNs, 'other', 'in flight when the run ended', true);
    this.timing.cutAtEnd = true;
    this.fail(atNs, 'timeout', timeout);
  }

  #enqueue(): void {
    if (this.#queued) return;
    this.#queued = true;
    schedule(this);
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
    this.#onDone(t);
  }
}

/** Null while the check worker keeps up; else resolves once it has caught up (engines pause their reads meanwhile). */
export function checkBacklog(): Promise<void> | null {
  return activeCheckThread()?.backlog() ?? null;
}
