import { StreamValidator, type ContentEvent, type StreamCheckResult } from '../../protocols/chat-completions/stream-checker.ts';
import type { ErrorClass } from '../results/load-result.ts';
import type { RequestTiming } from '../results/request-timing.ts';
import { apportionTokens, countTokens, tokensByOffsets } from '../workloads/token-count.ts';
import { parseJsonPrescanned } from '../../client/json-depth.ts';
import { extrasOf } from '../results/response-extras.ts';
import { requirementOfRule } from '../../checks/registry/stream-rule-ids.ts';
import { gradeOfEmbeddingsRule, gradeOfRule } from '../../checks/registry/rule-grades.ts';
import { checkEmbeddingsResponse, type EmbeddingsBodyCheck, type SentEmbeddings } from '../../protocols/embeddings/embeddings-response.ts';
import { embeddingsRuleIds } from '../../checks/registry/embeddings-rule-ids.ts';

/**
 * How a whole (not streamed) 2xx body is checked: absent, as a chat completion; `embeddings`, as
 * an answer to POST /v1/embeddings through src/protocols/embeddings/ (structured-clone safe: it
 * travels to the check worker with the response's head).
 */
export type BodyCheck = EmbeddingsBodyCheck;

/** What checking a response adds to its timing (everything else is stamped by the engine). */
export type CheckedPart = Pick<RequestTiming, 'endNs' | 'tokenEvents' | 'outputTokens' | 'promptTokens' | 'tokenSource' | 'events' | 'error' | 'abortedAtEnd' | 'extras' | 'reasoningTokens' | 'reasoningSource'>;

/**
 * What a response's head already decides: `check` its body; `skip-body`, an error status (its
 * verdict is the status, the body adds nothing); `failed`, a stream whose content type is not
 * server-sent events. Engines stop reading a failed response at once and never hand a skipped
 * body to the checker, so a hostile body costs reads, not copies.
 */
export type HeadDecision = 'check' | 'skip-body' | 'failed';

export function headDecision(stream: boolean, status: number, contentType: string | null): HeadDecision {
  if (status < 200 || status > 299) return 'skip-body';
  // Spec, chat completions: "Response, stream true: server-sent events as described under streamed chunk, ended by the literal [DONE]."
  if (stream && (contentType === null || !contentType.toLowerCase().startsWith('text/event-stream'))) return 'failed';
  return 'check';
}

/**
 * Parses and checks one response from its reads and stamps, on whichever thread runs it (the
 * load process, or the check worker: src/load/measure/check-worker.ts). Every stream goes through the
 * strict SSE reader and the stream checker: a non-conforming stream is an error of class
 * `stream_nonconforming`.
 */
export class TimingBuilder {
  readonly #stream: boolean;
  readonly #check: BodyCheck | undefined;
  #status: number | null = null;
  #validator: StreamValidator | undefined;
  #body: Buffer[] = [];
  readonly t: CheckedPart = { endNs: null, tokenEvents: [], outputTokens: 0, promptTokens: 0, tokenSource: 'none', events: 0, error: null, abortedAtEnd: false };

  constructor(stream: boolean, check?: BodyCheck) {
    this.#stream = stream;
    this.#check = check;
  }

  headers(status: number, contentType: string | null): void {
    this.#status = status;
    if (status < 200 || status > 299) return;
    if (this.#stream) {
      if (headDecision(true, status, contentType) === 'failed') {
        this.t.error = { class: 'stream_nonconforming', detail: `content-type ${contentType ?? '(none)'} is not text/event-stream`, finding: 'content-type' };
      }
      // Every stream goes through the strict reader and checker (we ask for include_usage). Its
      // bytes reach this builder only through RequestTimer, whose EventBounds already bounded each
      // event's size and nesting: the checker does not scan them again.
      this.#validator = new StreamValidator({ includeUsage: true, jsonDepthChecked: true });
    }
  }

  feed(chunk: Buffer, atNs: bigint): void {
    if (this.#broken !== undefined) return;
    try {
      if (this.#validator === undefined) this.#body.push(chunk);
      else this.#validator.feed(chunk, atNs);
    } catch (error) {
      this.#broken = error;
    }
  }

  /** An error inside the checker: the verdict of this response alone, never the end of the run. */
  #broken: unknown;

  #brokenPart(atNs: bigint): CheckedPart {
    const t = this.t;
    t.endNs = atNs;
    t.error = { class: 'other', detail: `iari could not check this response: ${(this.#broken as Error)?.message ?? String(this.#broken)}` };
    return t;
  }

  end(atNs: bigint): CheckedPart {
    if (this.#broken !== undefined) return this.#brokenPart(atNs);
    try {
      return this.#end(atNs);
    } catch (error) {
      this.#broken = error;
      return this.#brokenPart(atNs);
    }
  }

  #end(atNs: bigint): CheckedPart {
    const t = this.t;
    t.endNs = atNs;
    const status = this.#status;
    if (status !== null && (status < 200 || status > 299)) {
      if (t.error === null) t.error = { class: 'http_status', detail: `HTTP ${status}` };
      return t;
    }
    if (this.#validator !== undefined) {
      const result = this.#validator.end();
      // A stream that breaks a MUST requirement (the registry's grade of the rule's requirement) is nonconforming.
      const bad = result.findings.find((f) => gradeOfRule(f.rule) === 'MUST');
      if (t.error === null && bad !== undefined) t.error = { class: 'stream_nonconforming', detail: `${requirementOfRule(bad.rule)} ${bad.message}`, finding: bad.rule };
      this.#finishTokens(result);
    } else {
      this.#finishBody();
    }
    return t;
  }

  fail(atNs: bigint, errorClass: ErrorClass, detail: string, abortedAtEnd: boolean): CheckedPart {
    const t = this.t;
    t.endNs = atNs;
    t.error = { class: errorClass, detail };
    t.abortedAtEnd = abortedAtEnd;
    try {
      if (this.#validator !== undefined && this.#broken === undefined) this.#finishTokens(this.#validator.end());
    } catch {
      // The request already failed for its own reason; what the checker could not finish adds nothing.
    }
    return t;
  }

  /**
   * D-LOAD-03: the output token total is the server's usage.completion_tokens (else the client
   * tokenizer over the assembled text); it is split over the token-bearing events in proportion
   * to the tokens of one tokenization of the whole text, each token assigned to the event holding
   * its first character (text length when the text cannot be recovered), every event keeping at
   * least one token.
   */
  #finishTokens(result: StreamCheckResult): void {
    const t = this.t;
    t.events = result.reader.events;
    // Spec, Streamed chunk: "The text fragment is at choices[0].delta.content and may be absent."
    // So TTFT and ITL use only the events the checker saw carrying text, a tool call or reasoning (D-LOAD-02).
    const events = result.timing.contentEvents;
    const usage = result.assembled.usage;
    const completion = typeof usage?.completion_tokens === 'number' && Number.isInteger(usage.completion_tokens) ? usage.completion_tokens : null;
    if (typeof usage?.prompt_tokens === 'number') t.promptTokens = usage.prompt_tokens;
    t.extras = extrasOf(usage, result.assembled.choices[0]?.content ?? null, result.assembled.choices[0]?.toolCalls ?? []);
    if (result.timing.firstToolCallAt !== undefined && t.extras.toolCalls !== undefined) t.extras.firstToolCallNs = result.timing.firstToolCallAt;
    // A failed response is never a sample: the client tokenizer (linear, but 1 s for 7 MB) does not run on it.
    const sample = t.error === null;
    const reasoningText = result.timing.reasoning;
    let total = completion;
    if (total === null && events.length > 0 && sample) total = countTokens(assembledText(result)) + (reasoningText === undefined ? 0 : countTokens(reasoningText));
    let k: number[] = [];
    if (reasoningText === undefined) k = this.#split(events, total, sample, () => eventTexts(result, events));
    else if (total !== null) {
      // usage.completion_tokens counts the reasoning too; completion_tokens_details.reasoning_tokens says how much (else it is counted).
      const reported = reasoningTokensOf(usage);
      const reasoning = Math.min(total, reported ?? (sample ? countTokens(reasoningText) : 0));
      t.reasoningTokens = reasoning;
      t.reasoningSource = reported !== null ? 'usage' : 'tokenizer';
      const ofKind = (r: boolean): number[] => events.flatMap((e, i) => ((e.reasoning === true) === r ? [i] : []));
      const [ri, ai] = [ofKind(true), ofKind(false)];
      const texts = eventTexts(result, events);
      const rk = this.#split(ri.map((i) => events[i]!), reasoning, sample, () => (texts === null ? null : ri.map((i) => texts[i] ?? '')));
      const ak = this.#split(ai.map((i) => events[i]!), total - reasoning, sample, () => (texts === null ? null : ai.map((i) => texts[i] ?? '')));
      k = events.map(() => 0);
      ri.forEach((i, j) => (k[i] = rk[j] ?? 0));
      ai.forEach((i, j) => (k[i] = ak[j] ?? 0));
    }
    t.tokenEvents = events.map((e, i) => (e.reasoning === true ? { atNs: e.arrivedAt, tokens: k[i] ?? 0, reasoning: true as const } : { atNs: e.arrivedAt, tokens: k[i] ?? 0 }));
    t.outputTokens = total ?? 0;
    t.tokenSource = completion !== null ? 'usage' : total !== null ? 'tokenizer' : 'none';
  }

  /** Splits `total` tokens over `events` (one tokenization of their texts when they line up, else by characters). */
  #split(events: readonly ContentEvent[], total: number | null, sample: boolean, texts: () => string[] | null): number[] {
    if (total === null) return [];
    if (!sample) return apportionTokens(events.map((e) => e.chars), total);
    if (total === events.length) return events.map(() => 1);
    const chars = events.map((e) => e.chars);
    const tx = texts();
    const byTokenizer = tx === null ? null : tokensByOffsets(tx.join(''), chars);
    const sum = byTokenizer?.reduce((a, b) => a + b, 0);
    return byTokenizer !== null && sum === total ? byTokenizer : apportionTokens(byTokenizer ?? chars, total);
  }

  #finishBody(): void {
    const t = this.t;
    const text = Buffer.concat(this.#body).toString('utf8');
    this.#body = [];
    // Registry HDR-015: nesting was checked before parsing, once, by RequestTimer's EventBounds.
    const bounded = parseJsonPrescanned(text);
    if (!bounded.ok) {
      t.error = bounded.tooDeep ? { class: 'body_invalid', detail: `response body is ${bounded.error} (HDR-015)`, finding: 'json-too-deep' } : { class: 'body_invalid', detail: 'response body is not JSON' };
      return;
    }
    const parsed = bounded.value;
    if (this.#check?.api === 'embeddings') return this.#finishEmbeddings(parsed, this.#check);
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
    t.extras = extrasOf(body.usage, typeof message.content === 'string' ? message.content : null, wholeToolCalls(message.tool_calls));
    // A whole answer's tool calls arrive with its end.
    if (t.extras.toolCalls !== undefined && t.endNs !== null) t.extras.firstToolCallNs = t.endNs;
    t.tokenSource = typeof usage === 'number' ? 'usage' : 'tokenizer';
    // A non-streamed answer arrives whole: its tokens are stamped at the end of the body.
    if (tokens > 0 && t.endNs !== null) t.tokenEvents = [{ atNs: t.endNs, tokens }];
  }

  /**
   * An answer to POST /v1/embeddings: checked by the embeddings module (rule codes); one that breaks
   * a MUST requirement (the registry's grade of the rule's requirement) is `body_invalid`. It has no
   * output tokens and no token events: TTFT, ITL and TPOT do not apply to it.
   */
  #finishEmbeddings(parsed: unknown, sent: SentEmbeddings): void {
    const t = this.t;
    const r = checkEmbeddingsResponse(parsed, sent);
    const bad = r.findings.find((f) => gradeOfEmbeddingsRule(f.rule) === 'MUST');
    if (bad !== undefined) t.error = { class: 'body_invalid', detail: `${embeddingsRuleIds[bad.rule]} ${bad.message}`, finding: bad.rule };
    t.promptTokens = r.usage?.promptTokens ?? 0;
    t.tokenSource = r.usage === undefined ? 'none' : 'usage';
    t.extras = { cachedTokens: null, embeddings: { inputs: r.inputs, promptTokens: r.usage?.promptTokens ?? null, dimensions: r.dimensions ?? null } };
  }
}

/** A whole answer's message.tool_calls as name and arguments text (arguments that are not a string kept as JSON text). */
function wholeToolCalls(raw: unknown): { name: string | null; arguments: string }[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((c) => {
    const f = (c as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    return { name: typeof f?.name === 'string' ? f.name : null, arguments: typeof f?.arguments === 'string' ? f.arguments : JSON.stringify(f?.arguments ?? null) };
  });
}

function assembledText(r: StreamCheckResult): string {
  let text = '';
  for (const c of r.assembled.choices) {
    text += (c.content ?? '') + (c.refusal ?? '');
    for (const call of c.toolCalls) text += (call.name ?? '') + call.arguments;
  }
  return text;
}

/** Each event's text, recovered from the assembled content and reasoning (single choice, content only). */
function eventTexts(r: StreamCheckResult, events: readonly ContentEvent[]): string[] | null {
  const choices = r.assembled.choices;
  const c = choices[0];
  if (choices.length !== 1 || c === undefined || c.refusal !== null || c.toolCalls.length > 0) return null;
  const content = c.content ?? '';
  const reasoning = r.timing.reasoning ?? '';
  let pos = 0;
  let rpos = 0;
  const texts = events.map((e) => {
    if (e.reasoning === true) {
      const piece = reasoning.slice(rpos, rpos + e.chars);
      rpos += e.chars;
      return piece;
    }
    const piece = content.slice(pos, pos + e.chars);
    pos += e.chars;
    return piece;
  });
  return pos === content.length && rpos === reasoning.length ? texts : null;
}

/** usage.completion_tokens_details.reasoning_tokens (OpenAI; vLLM, DeepSeek), or null. */
export function reasoningTokensOf(usage: unknown): number | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const d = (usage as { completion_tokens_details?: unknown }).completion_tokens_details;
  if (typeof d !== 'object' || d === null) return null;
  const n = (d as { reasoning_tokens?: unknown }).reasoning_tokens;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}
