import { SseReader } from '../client/sse-reader.ts';
import type { ErrorClass } from './load-result.ts';
import { StreamInspector, type StreamVerdict } from './stream-inspector.ts';
import { countTokens, tokensPerEvent } from './token-count.ts';

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
}

export interface RequestTimerOptions {
  seq: number;
  intendedNs: bigint;
  sentNs: bigint;
  stream: boolean;
}

/**
 * Stamps the arrival of every read of one response and turns it into a RequestTiming.
 * Engines call `headers`, `data` (once per read, with the time the read was handed over) and
 * then exactly one of `end` or `fail`. Every stream goes through the strict SSE reader and the
 * stream inspector: a non-conforming stream is an error of class `stream_nonconforming`.
 */
export class RequestTimer {
  readonly timing: RequestTiming;
  readonly #stream: boolean;
  #reader: SseReader | undefined;
  #inspector: StreamInspector | undefined;
  #body: Buffer[] = [];
  #texts: string[] = [];
  #times: bigint[] = [];
  #done = false;

  constructor(options: RequestTimerOptions) {
    this.#stream = options.stream;
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
      if (contentType === null || !contentType.toLowerCase().startsWith('text/event-stream')) {
        t.error = { class: 'stream_nonconforming', detail: `content-type ${contentType ?? '(none)'} is not text/event-stream`, finding: 'content-type' };
      }
      this.#reader = new SseReader();
      this.#inspector = new StreamInspector();
    }
  }

  data(chunk: Buffer, atNs: bigint): void {
    if (this.#done) return;
    if (this.#reader === undefined || this.#inspector === undefined) {
      this.#body.push(chunk);
      return;
    }
    const events = this.#reader.feed(chunk, atNs);
    for (const ev of events) {
      if (ev.kind !== 'message') continue;
      this.timing.events++;
      const seen = this.#inspector.onData(ev.data);
      if (seen !== null) {
        this.#texts.push(seen);
        this.#times.push(atNs);
      }
    }
  }

  end(atNs: bigint): RequestTiming {
    if (this.#done) return this.timing;
    this.#done = true;
    const t = this.timing;
    t.endNs = atNs;
    if (t.status !== null && (t.status < 200 || t.status > 299)) {
      if (t.error === null) t.error = { class: 'http_status', detail: `HTTP ${t.status}` };
      return t;
    }
    if (this.#reader !== undefined && this.#inspector !== undefined) {
      const endState = this.#reader.end();
      const verdict = this.#inspector.end(endState.findings.map((f) => f.code));
      this.#finishTokens(verdict);
      if (t.error === null && !verdict.ok) t.error = { class: 'stream_nonconforming', detail: verdict.detail, finding: verdict.finding };
    } else {
      this.#finishBody();
    }
    return t;
  }

  fail(atNs: bigint, errorClass: ErrorClass, detail: string): RequestTiming {
    if (this.#done) return this.timing;
    this.#done = true;
    this.timing.endNs = atNs;
    this.timing.error = { class: errorClass, detail };
    if (this.#inspector !== undefined) this.#finishTokens(this.#inspector.end([]));
    return this.timing;
  }

  #finishTokens(verdict: StreamVerdict): void {
    const t = this.timing;
    const usage = verdict.completionTokens;
    const k = tokensPerEvent(this.#texts, usage);
    t.tokenEvents = this.#times.map((atNs, i) => ({ atNs, tokens: k[i] ?? 1 }));
    t.outputTokens = k.reduce((a, b) => a + b, 0);
    t.promptTokens = verdict.promptTokens ?? 0;
    t.tokenSource = this.#texts.length === 0 ? (usage !== null ? 'usage' : 'none') : usage !== null ? 'usage' : 'tokenizer';
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
