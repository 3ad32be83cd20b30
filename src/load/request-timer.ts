import { StreamValidator, type StreamCheckResult } from '../client/stream-checker.ts';
import type { ErrorClass } from './load-result.ts';
import { apportionTokens, countTokens, tokensByOffsets } from './token-count.ts';

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
 * the last socket's stamp would include the checking of all the others.
 */
const pending = new Set<RequestTimer>();
let flushScheduled = false;

/** Checking yields back to I/O after this much work, so reads arriving meanwhile are stamped on time. */
const SLICE_NS = 300_000n;

function flushAll(): void {
  flushScheduled = false;
  const deadline = process.hrtime.bigint() + SLICE_NS;
  for (const timer of pending) {
    pending.delete(timer);
    timer.process();
    if (pending.size > 0 && process.hrtime.bigint() > deadline) {
      flushScheduled = true;
      setImmediate(flushAll);
      return;
    }
  }
}

function schedule(timer: RequestTimer): void {
  pending.add(timer);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushAll);
  }
}

/**
 * Stamps the arrival of every read of one response and turns it into a RequestTiming.
 * Engines call `headers`, `data` (once per read, with the time the read was handed over) and
 * then `end` or `fail`; `onDone` receives the timing once it is parsed and checked. Every stream goes through the strict SSE reader and the
 * stream inspector: a non-conforming stream is an error of class `stream_nonconforming`.
 */
export class RequestTimer {
  readonly timing: RequestTiming;
  readonly #stream: boolean;
  readonly #onDone: (t: RequestTiming) => void;
  #validator: StreamValidator | undefined;
  #body: Buffer[] = [];
  #reads: Buffer[] = [];
  #readTimes: bigint[] = [];
  #ending: { atNs: bigint; fail?: { class: ErrorClass; detail: string; abortedAtEnd: boolean } } | undefined;
  #done = false;
  #reported = false;

  constructor(options: RequestTimerOptions) {
    this.#stream = options.stream;
    this.#onDone = options.onDone;
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
  }

  get finished(): boolean {
    return this.#done;
  }

  headers(atNs: bigint, status: number, requestId: string | null, contentType: string | null): void {
    const t = this.timing;
    t.headersNs = atNs;
    t.status = status;
    t.requestId = requestId;
    if (status < 200 || status > 299) return;
    if (this.#stream) {
      // Spec, POST /v1/chat/completions: "Response, stream true: server-sent events as described under streamed chunk, ended by the literal [DONE]."
      if (contentType === null || !contentType.toLowerCase().startsWith('text/event-stream')) {
        t.error = { class: 'stream_nonconforming', detail: `content-type ${contentType ?? '(none)'} is not text/event-stream`, finding: 'content-type' };
      }
      // Every stream goes through the strict reader and checker (we ask for include_usage).
      this.#validator = new StreamValidator({ includeUsage: true });
    }
  }

  /** A read arrived at `atNs`: stamp only; parsing and checking happen in the batch. */
  data(chunk: Buffer, atNs: bigint): void {
    if (this.#done) return;
    this.#reads.push(chunk);
    this.#readTimes.push(atNs);
    schedule(this);
  }

  /** The response ended at `atNs`; `onDone` follows once everything before it is checked. */
  end(atNs: bigint): void {
    if (this.#done) return;
    this.#done = true;
    this.#ending = { atNs };
    schedule(this);
  }

  fail(atNs: bigint, errorClass: ErrorClass, detail: string, abortedAtEnd = false): void {
    if (this.#done) return;
    this.#done = true;
    this.#ending = { atNs, fail: { class: errorClass, detail, abortedAtEnd } };
    schedule(this);
  }

  /** Parses and checks the queued reads; finishes the request when it has ended. */
  process(): void {
    if (this.#reported) return;
    const reads = this.#reads;
    const times = this.#readTimes;
    this.#reads = [];
    this.#readTimes = [];
    for (let i = 0; i < reads.length; i++) {
      const chunk = reads[i] as Buffer;
      if (this.#validator === undefined) this.#body.push(chunk);
      else this.#validator.feed(chunk, times[i] as bigint);
    }
    const ending = this.#ending;
    if (ending === undefined) return;
    this.#reported = true;
    if (ending.fail === undefined) this.#finishEnd(ending.atNs);
    else this.#finishFail(ending.atNs, ending.fail.class, ending.fail.detail, ending.fail.abortedAtEnd);
    this.#onDone(this.timing);
  }

  #finishEnd(atNs: bigint): void {
    const t = this.timing;
    t.endNs = atNs;
    if (t.status !== null && (t.status < 200 || t.status > 299)) {
      if (t.error === null) t.error = { class: 'http_status', detail: `HTTP ${t.status}` };
      return;
    }
    if (this.#validator !== undefined) {
      const result = this.#validator.end();
      this.#finishTokens(result);
      const bad = result.verdict === 'fail' ? result.findings.find((f) => f.severity === 'fail') : undefined;
      if (t.error === null && bad !== undefined) t.error = { class: 'stream_nonconforming', detail: `${bad.requirementId} ${bad.message}`, finding: bad.rule };
    } else {
      this.#finishBody();
    }
  }

  #finishFail(atNs: bigint, errorClass: ErrorClass, detail: string, abortedAtEnd: boolean): void {
    const t = this.timing;
    t.endNs = atNs;
    t.error = { class: errorClass, detail };
    t.abortedAtEnd = abortedAtEnd;
    if (this.#validator !== undefined) this.#finishTokens(this.#validator.end());
  }

  /**
   * D-LOAD-03: the output token total is the server's usage.completion_tokens (else the client
   * tokenizer over the assembled text); it is split over the token-bearing events in proportion
   * to the tokens of one tokenization of the whole text, each token assigned to the event holding
   * its first character (text length when the text cannot be recovered), every event keeping at
   * least one token.
   */
  #finishTokens(result: StreamCheckResult): void {
    const t = this.timing;
    t.events = result.reader.events;
    // Spec, Streamed chunk: "The text fragment is at choices[0].delta.content and may be absent."
    // So TTFT and ITL use only the events the checker saw carrying text or a tool call (D-LOAD-02).
    const events = result.timing.contentEvents;
    const usage = result.assembled.usage;
    const completion = typeof usage?.completion_tokens === 'number' && Number.isInteger(usage.completion_tokens) ? usage.completion_tokens : null;
    if (typeof usage?.prompt_tokens === 'number') t.promptTokens = usage.prompt_tokens;
    let total = completion;
    if (total === null && events.length > 0) total = countTokens(assembledText(result));
    let k: number[] = [];
    if (total !== null) {
      if (total === events.length) k = events.map(() => 1);
      else {
        const texts = eventTexts(result);
        const chars = events.map((e) => e.chars);
        const byTokenizer = texts === null ? null : tokensByOffsets(texts.join(''), chars);
        const sum = byTokenizer?.reduce((a, b) => a + b, 0);
        k = byTokenizer !== null && sum === total ? byTokenizer : apportionTokens(byTokenizer ?? chars, total);
      }
    }
    t.tokenEvents = events.map((e, i) => ({ atNs: e.arrivedAt, tokens: k[i] ?? 0 }));
    t.outputTokens = total ?? 0;
    t.tokenSource = completion !== null ? 'usage' : events.length > 0 ? 'tokenizer' : 'none';
  }

  #finishBody(): void {
    const t = this.timing;
    const text = Buffer.concat(this.#body).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      t.error = { class: 'body_invalid', detail: 'response body is not JSON' };
      return;
    }
    const body = parsed as { choices?: { message?: { content?: unknown; tool_calls?: unknown } }[]; usage?: { completion_tokens?: unknown; prompt_tokens?: unknown } };
    const message = Array.isArray(body.choices) ? body.choices[0]?.message : undefined;
    if (message === undefined || typeof message !== 'object') {
      t.error = { class: 'body_invalid', detail: 'response has no choices[0].message' };
      return;
    }
    const usage = body.usage?.completion_tokens;
    const content = typeof message.content === 'string' ? message.content : '';
    const tokens = typeof usage === 'number' ? usage : countTokens(content);
    t.outputTokens = tokens;
    t.promptTokens = typeof body.usage?.prompt_tokens === 'number' ? body.usage.prompt_tokens : 0;
    t.tokenSource = typeof usage === 'number' ? 'usage' : 'tokenizer';
    // A non-streamed answer arrives whole: its tokens are stamped at the end of the body.
    if (tokens > 0 && t.endNs !== null) t.tokenEvents = [{ atNs: t.endNs, tokens }];
  }
}

function assembledText(r: StreamCheckResult): string {
  let text = '';
  for (const c of r.assembled.choices) {
    text += (c.content ?? '') + (c.refusal ?? '');
    for (const call of c.toolCalls) text += (call.name ?? '') + call.arguments;
  }
  return text;
}

/** Each content event's text, recovered from the assembled content (single choice, content only). */
function eventTexts(r: StreamCheckResult): string[] | null {
  const choices = r.assembled.choices;
  const c = choices[0];
  if (choices.length !== 1 || c === undefined || c.refusal !== null || c.toolCalls.length > 0) return null;
  const content = c.content ?? '';
  let pos = 0;
  const texts = r.timing.contentEvents.map((e) => {
    const piece = content.slice(pos, pos + e.chars);
    pos += e.chars;
    return piece;
  });
  return pos === content.length ? texts : null;
}
