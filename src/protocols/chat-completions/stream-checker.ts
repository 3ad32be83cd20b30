import { SseReader, type SseEndState, type SseEvent, type SseFindingCode, type SseReaderStats } from '../../client/sse-reader.ts';
import type { StreamRuleCode } from './stream-rules.ts';
import { newChoice, type AssembledCompletion } from './stream-assembly.ts';
import { checkChoiceDelta, isNonNegInt, isObject, show, type ChoiceState, type Json, type Where } from './stream-choice-checks.ts';
import { EnvelopeChecks, UsageChecks } from './stream-envelope-checks.ts';
import type { StreamCheckOptions, StreamCheckResult, StreamFinding, StreamTiming } from './stream-types.ts';
import { parseJsonBounded, parseJsonPrescanned } from '../../client/json-depth.ts';
import { responseLimits } from '../../client/body-limits.ts';
import { tokenizer } from '../../tokenizer.ts';

export type { StreamCheckOptions, StreamCheckResult, StreamFinding, StreamTiming, ContentEvent } from './stream-types.ts';

/** Per-choice rules that assume a stable choices[].index. */
const INDEX_DEPENDENT = new Set<StreamRuleCode>(['role-missing-first', 'role-repeated', 'finish-reason-count', 'finish-chunk-content', 'delta-after-finish', 'choice-missing']);
const readerRule: Record<SseFindingCode, StreamRuleCode> = {
  'invalid-utf8': 'invalid-utf8',
  'ended-mid-event': 'ended-mid-event',
  'ended-mid-line': 'ended-mid-event',
  'line-too-long': 'line-too-long',
  'event-too-long': 'event-too-long',
  'unknown-field': 'ignored-field',
  'invalid-retry': 'ignored-field',
  'id-contains-nul': 'ignored-field',
};

/**
 * Consumes the reader's events of one chat completion stream, reports every rule the format
 * forbids (as rule codes, stream-rules.ts), assembles the message per choice, and keeps the timing
 * facts the load engine uses.
 */
export class StreamChecker {
  readonly timing: StreamTiming = { firstChunkAt: undefined, firstTokenAt: undefined, doneAt: undefined, contentEvents: [] };
  readonly assembled: AssembledCompletion = {
    id: undefined,
    object: undefined,
    created: undefined,
    model: undefined,
    systemFingerprint: undefined,
    choices: [],
    usage: null,
    error: undefined,
    done: false,
    chunks: 0,
  };
  readonly #n: number;
  readonly #maxPerRule: number;
  readonly #countTokens: ((t: string) => number) | undefined;
  readonly #depthChecked: boolean;
  readonly #findings: StreamFinding[] = [];
  readonly #perRule = new Map<StreamRuleCode, number>();
  readonly #suppressed: Partial<Record<StreamRuleCode, number>> = {};
  readonly #choices = new Map<number, ChoiceState>();
  readonly #report = (rule: StreamRuleCode, message: string, where: Where): void => this.#add(rule, message, where);
  #done = false;
  #afterDoneReported = false;
  #errorSeen = false;
  #lastEndOffset = 0;
  #lastChunkIndex = 0;
  #lastChoicesEvent = -1;
  #finished = false;
  #ev: SseEvent | undefined;
  readonly #eols = new Set<SseEvent['eol']>();
  /** choices[].index went out of range: per-choice rules can no longer be attributed (reported once, as choice-index-invalid). */
  #indexBroken = false;
  readonly #deferred: StreamFinding[] = [];
  readonly #deferredPerRule = new Map<StreamRuleCode, number>();
  readonly #deferredOver: Partial<Record<StreamRuleCode, number>> = {};
  readonly #envelope: EnvelopeChecks;
  readonly #usage: UsageChecks;

  constructor(options: StreamCheckOptions = {}) {
    this.#envelope = new EnvelopeChecks(this.assembled, options.nowSeconds ?? Date.now() / 1000, this.#report);
    this.#usage = new UsageChecks(this.assembled, options.includeUsage ?? false, this.#report);
    this.#n = options.n ?? 1;
    this.#maxPerRule = options.maxFindingsPerRule ?? 5;
    this.#countTokens = options.countTokens;
    this.#depthChecked = options.jsonDepthChecked ?? false;
  }

  /** Check one reader event (a dispatched block). */
  onEvent(ev: SseEvent): void {
    this.#ev = ev;
    this.#lastEndOffset = ev.endOffset;
    this.#lastChunkIndex = ev.chunkIndex;
    if (ev.kind === 'meta') {
      this.#add('meta-only-event', `event carries no data field (id=${show(ev.id)}, retry=${show(ev.retry)}, event=${show(ev.event)})`, {
        received: { id: ev.id, retry: ev.retry, event: ev.event },
      });
      return;
    }
    if (ev.event !== undefined && ev.event !== 'message' && ev.event !== 'error') {
      this.#add('event-field', `event named ${show(ev.event)}`, { expected: 'no event field', received: ev.event });
    }
    const data = ev.data;
    if (this.#done) {
      if (!this.#afterDoneReported) {
        this.#afterDoneReported = true;
        this.#add('data-after-done', `data after [DONE]: ${show(data)}`, { expected: 'end of stream', received: data });
      }
      return;
    }
    // Seed, Streamed chunk: "The final event is the literal string [DONE], not JSON."
    if (data === '[DONE]') {
      // The sentinel is exactly [DONE], "no trailing CR". A CR is a legal SSE line ending, so only a [DONE] line
      // ending unlike every other event's (a CR in an LF stream) is one: line-based clients read "[DONE]\r".
      if (ev.eol !== 'lf' && this.#eols.size > 0 && !this.#eols.has(ev.eol)) {
        this.#add('done-not-exact', `the [DONE] line ends with ${ev.eol.toUpperCase()} while the other events' lines end with ${[...this.#eols].join('/').toUpperCase()}`, {
          expected: '[DONE] terminated like the other events',
          received: ev.eol === 'cr' ? '[DONE]\r' : '[DONE]\r\n',
        });
      }
      this.#markDone(ev);
      return;
    }
    this.#eols.add(ev.eol);
    if (data.trim() === '[DONE]') {
      this.#add('done-not-exact', `sentinel ${show(data)} is not exactly [DONE]`, { expected: '[DONE]', received: data });
      this.#markDone(ev);
      return;
    }
    if (data === '') {
      this.#add('empty-data', 'data field is empty', { expected: 'a JSON object or [DONE]', received: '' });
      return;
    }
    // Nesting is checked before parsing (json-too-deep), once: here, unless the caller already did (a million nested arrays parse, then break every walk over them).
    const parsed = this.#depthChecked ? parseJsonPrescanned(data) : parseJsonBounded(data);
    if (!parsed.ok) {
      if (parsed.tooDeep) this.#add('json-too-deep', `data ${parsed.error}`, { expected: `at most ${responseLimits.jsonDepth} levels`, received: data.slice(0, 200) + '...' });
      else
        this.#add('non-json-data', `data is not JSON (${parsed.error}): ${show(data)}`, {
          expected: 'a JSON object or [DONE]',
          received: data.length > 200 ? data.slice(0, 200) + '...' : data,
        });
      return;
    }
    const payload = parsed.value;
    // Seed, Streamed chunk: "Each server-sent event carries a JSON object with a partial delta."
    if (!isObject(payload)) {
      this.#add('non-json-data', `data is JSON but not an object: ${show(payload)}`, { expected: 'a JSON object', received: payload });
      return;
    }
    if (this.timing.firstChunkAt === undefined) this.timing.firstChunkAt = ev.arrivedAt;
    if ('error' in payload || ev.event === 'error') {
      this.#onError(payload);
      return;
    }
    if (this.#errorSeen) this.#add('chunk-after-error', 'a chunk follows an in-stream error', { expected: 'end of stream' });
    this.assembled.chunks++;
    const usage = payload['usage'];
    const choices = payload['choices'];
    if (isObject(payload['timings'])) this.assembled.timings = payload['timings'];
    const isUsageChunk = isObject(usage) && !(Array.isArray(choices) && choices.length > 0);
    this.#envelope.check(payload, isUsageChunk);
    this.#usage.check(payload, ev);
    if (!Array.isArray(choices)) return;
    if (choices.length > 0) this.#lastChoicesEvent = ev.index;
    let bearing = false;
    let text = '';
    for (let i = 0; i < choices.length; i++) {
      const r = this.#checkChoice(choices[i], i, ev);
      if (r !== undefined) {
        bearing = true;
        text += r;
      }
    }
    if (bearing) {
      if (this.timing.firstTokenAt === undefined) this.timing.firstTokenAt = ev.arrivedAt;
      if (this.timing.firstToolCallAt === undefined && choices.some(carriesToolCall)) this.timing.firstToolCallAt = ev.arrivedAt;
      this.timing.contentEvents.push({
        arrivedAt: ev.arrivedAt,
        chunkIndex: ev.chunkIndex,
        byteOffset: ev.startOffset,
        chars: text.length,
        tokens: this.#countTokens === undefined ? undefined : this.#countTokens(text),
      });
      return;
    }
    // Reasoning models stream their thinking before the answer as delta.reasoning_content (DeepSeek,
    // vLLM before PR 27752) or delta.reasoning (vLLM after it, Ollama): timed as tokens of their own kind.
    let reasoning = '';
    for (const c of choices) {
      const d = isObject(c) ? c['delta'] : undefined;
      if (!isObject(d)) continue;
      // An empty alias beside the text (reasoning_content "" with reasoning "...") must not hide it.
      const rc = d['reasoning_content'];
      const r = typeof rc === 'string' && rc !== '' ? rc : typeof d['reasoning'] === 'string' ? d['reasoning'] : '';
      reasoning += r;
    }
    if (reasoning !== '') {
      this.timing.reasoning = (this.timing.reasoning ?? '') + reasoning;
      this.timing.contentEvents.push({ arrivedAt: ev.arrivedAt, chunkIndex: ev.chunkIndex, byteOffset: ev.startOffset, chars: reasoning.length, tokens: undefined, reasoning: true });
    }
  }

  /** Close the checks once the reader has ended. */
  finish(end: SseEndState, stats: SseReaderStats): StreamCheckResult {
    if (this.#finished) throw new Error('StreamChecker.finish called twice');
    this.#finished = true;
    this.#ev = undefined;
    if (!this.#indexBroken) {
      for (const f of this.#deferred) this.#keep(f);
      for (const [rule, n] of Object.entries(this.#deferredOver) as [StreamRuleCode, number][]) this.#suppressed[rule] = (this.#suppressed[rule] ?? 0) + n;
    }
    this.#framingFindings(end, stats);
    const atEnd: Where = { at: stats.bytes, chunk: Math.max(0, stats.reads - 1) };
    // An in-stream error ends the stream (chunk-after-error); [DONE] after it is optional.
    if (!this.#done && !this.#errorSeen) this.#add('done-missing', 'stream ended without data: [DONE]', { ...atEnd, expected: '[DONE]', received: 'end of stream' });
    if (this.assembled.chunks === 0 && !this.#errorSeen) this.#add('no-chunks', 'stream carried no completion chunk', { ...atEnd, expected: 'at least one chunk' });
    // A stream cut before [DONE] is reported once, as done-missing, not also as every choice or usage chunk it cut off.
    if (this.#done) {
      const cut = [...this.#choices.values()].some((c) => !c.finished);
      this.#usage.finish(atEnd, this.#lastChoicesEvent, cut, this.#errorSeen);
      this.#finishChoices();
    }
    this.assembled.choices = [...this.#choices.values()].map((s) => s.choice).sort((a, b) => a.index - b.index);
    return { findings: this.#findings, suppressed: this.#suppressed, assembled: this.assembled, timing: this.timing, reader: stats };
  }

  #framingFindings(end: SseEndState, stats: SseReaderStats): void {
    for (const f of end.findings) {
      const where = { at: f.offset, chunk: f.chunkIndex };
      if (f.code === 'ended-mid-line') {
        // An unterminated field line is reported once, as the event it leaves unfinished.
        if (end.partialEvent === undefined) this.#add('comment-lines', `stream ended inside a comment line at byte ${f.offset}`, where);
        continue;
      }
      let detail = f.detail;
      if (f.code === 'ended-mid-event' && end.unterminatedLine !== undefined) detail += ` (unterminated line ${show(end.unterminatedLine.text)})`;
      if (f.code === 'ended-mid-event' && this.#done) {
        this.#add('data-after-done', `an unfinished event follows [DONE]: ${detail}`, where);
        continue;
      }
      this.#add(readerRule[f.code], detail, where);
    }
    if (stats.comments > 0) {
      this.#add('comment-lines', `${stats.comments} comment line(s), first at byte ${stats.firstCommentOffset}`, { at: stats.firstCommentOffset, received: stats.comments });
    }
    if (stats.lineEndings.cr > 0 || stats.lineEndings.crlf > 0) {
      this.#add('line-endings', `line endings ${JSON.stringify(stats.lineEndings)}`, { at: 0, received: stats.lineEndings });
    }
    if (stats.bom) this.#add('bom', 'stream starts with a UTF-8 byte order mark', { at: 0 });
    if (stats.splitEvents > 0) this.#add('split-reads', `${stats.splitEvents} event(s) arrived split across reads`, { at: 0, received: stats.splitEvents });
    if (stats.dataNoSpace > 0) this.#add('data-no-space', `${stats.dataNoSpace} data line(s) without a space after the colon`, { at: 0, received: stats.dataNoSpace });
  }

  #markDone(ev: SseEvent): void {
    this.#done = true;
    this.assembled.done = true;
    this.timing.doneAt = ev.arrivedAt;
  }

  #onError(payload: Json): void {
    const err = payload['error'];
    this.assembled.error = err ?? payload;
    if (this.assembled.chunks === 0 && !this.#errorSeen) {
      this.#add('error-before-chunks', `error sent inside a 200 stream before any chunk: ${show(err)}`, {
        pointer: '/error',
        expected: 'a 4xx/5xx status with an error body',
        received: payload,
      });
    }
    this.#errorSeen = true;
    const ok =
      isObject(err) &&
      typeof err['message'] === 'string' &&
      typeof err['type'] === 'string' &&
      'param' in err &&
      (err['param'] === null || typeof err['param'] === 'string') &&
      'code' in err &&
      (err['code'] === null || typeof err['code'] === 'string');
    if (!ok) {
      this.#add('error-shape', `in-stream error is not {"error":{message,type,param,code}}: ${show(payload)}`, {
        pointer: '/error',
        expected: '{"error":{"message","type","param","code"}}',
        received: payload,
      });
    }
  }

  #checkChoice(raw: unknown, position: number, ev: SseEvent): string | undefined {
    const ptr = `/choices/${position}`;
    if (!isObject(raw)) {
      this.#add('choices-invalid', `choices[${position}] is ${show(raw)}, not an object`, { pointer: ptr, expected: 'an object', received: raw });
      return undefined;
    }
    const index = raw['index'];
    if (!isNonNegInt(index) || index >= this.#n) {
      this.#indexBroken = true;
      this.#add('choice-index-invalid', `choices[${position}].index is ${'index' in raw ? show(index) : 'absent'} (n=${this.#n})`, {
        pointer: `${ptr}/index`,
        expected: `integer in [0, ${this.#n})`,
        received: index ?? 'absent',
      });
    }
    // An out-of-range index is assembled by its position (what lenient clients do), so one drift is reported once.
    const key = isNonNegInt(index) && index < this.#n ? index : position;
    let state = this.#choices.get(key);
    if (state === undefined) {
      state = { choice: newChoice(key), deltas: 0, finished: false, lastOffset: 0, lastChunkIndex: 0, lastEventIndex: -1, tools: new Map(), highestToolIndex: -1, invalidFinish: false };
      this.#choices.set(key, state);
    }
    state.lastOffset = ev.startOffset;
    state.lastChunkIndex = ev.chunkIndex;
    state.lastEventIndex = ev.index;
    return checkChoiceDelta(state, raw, ptr, this.#report);
  }

  #finishChoices(): void {
    if (this.#errorSeen) return;
    for (const s of this.#choices.values()) {
      const c = s.choice;
      const where = { at: s.lastOffset, chunk: s.lastChunkIndex, event: s.lastEventIndex };
      // A choice that only got an invalid finish_reason (e.g. "") is reported once, as finish-reason-invalid.
      if (!s.finished && !s.invalidFinish) this.#add('finish-reason-count', `choice ${c.index} never got a non-null finish_reason`, { ...where, expected: 'one finish_reason', received: null });
      for (const call of c.toolCalls) {
        const bounded = parseJsonBounded(call.arguments);
        if (!bounded.ok && bounded.tooDeep) this.#add('json-too-deep', `joined arguments of tool call ${call.index}: ${bounded.error}`, { ...where, expected: `at most ${responseLimits.jsonDepth} levels` });
        const parsed = bounded.ok ? bounded.value : undefined;
        if (!isObject(parsed)) {
          this.#add('tool-arguments-not-json', `joined arguments of tool call ${call.index} are not a JSON object: ${show(call.arguments)}`, { ...where, expected: 'a JSON object', received: call.arguments });
        }
      }
      if (c.finishReason === 'tool_calls' && c.toolCalls.length === 0) {
        this.#add('tool-calls-finish-without-calls', `choice ${c.index} finished with tool_calls but carried no tool call`, { ...where, expected: 'tool calls', received: 'none' });
      }
      if (c.finishReason === 'stop' && c.toolCalls.length > 0) {
        this.#add('tool-calls-with-stop', `choice ${c.index} carries ${c.toolCalls.length} tool call(s) but finished with stop (OpenAI does this when a tool is forced)`, {
          ...where,
          expected: 'tool_calls',
          received: 'stop',
        });
      }
    }
    if (this.#n > 1 && this.assembled.chunks > 0) {
      for (let i = 0; i < this.#n; i++) {
        if (!this.#choices.has(i)) this.#add('choice-missing', `choice ${i} of n=${this.#n} never streamed`, { at: this.#lastEndOffset, chunk: this.#lastChunkIndex, expected: i });
      }
    }
  }

  #add(rule: StreamRuleCode, message: string, where: Where): void {
    if (this.#indexBroken && INDEX_DEPENDENT.has(rule)) return;
    const ev = this.#ev;
    const finding: StreamFinding = {
      rule,
      message,
      byteOffset: where.at ?? ev?.startOffset ?? this.#lastEndOffset,
      chunkIndex: where.chunk ?? ev?.chunkIndex ?? this.#lastChunkIndex,
      eventIndex: where.event ?? ev?.index,
      pointer: where.pointer,
      expected: where.expected,
      received: where.received,
    };
    // Per-choice findings wait for the end of the stream: a later index drift makes them unattributable.
    if (INDEX_DEPENDENT.has(rule) && !this.#finished) {
      // Beyond what #keep would keep anyway, deferred findings are only counted (an endless stream cannot grow the list).
      const n = (this.#deferredPerRule.get(rule) ?? 0) + 1;
      this.#deferredPerRule.set(rule, n);
      if (n <= this.#maxPerRule) this.#deferred.push(finding);
      else this.#deferredOver[rule] = (this.#deferredOver[rule] ?? 0) + 1;
    } else this.#keep(finding);
  }

  #keep(finding: StreamFinding): void {
    const rule = finding.rule;
    const count = (this.#perRule.get(rule) ?? 0) + 1;
    this.#perRule.set(rule, count);
    if (count > this.#maxPerRule) this.#suppressed[rule] = (this.#suppressed[rule] ?? 0) + 1;
    else this.#findings.push(finding);
  }

}

/** Reader and checker together: what the load engine and the suites feed with raw reads. */
export class StreamValidator {
  readonly reader: SseReader;
  readonly checker: StreamChecker;

  constructor(options: StreamCheckOptions = {}) {
    this.reader = new SseReader();
    this.checker = new StreamChecker(options);
  }

  feed(chunk: Uint8Array, arrivedAt: bigint): void {
    const events = this.reader.feed(chunk, arrivedAt);
    for (let i = 0; i < events.length; i++) this.checker.onEvent(events[i] as SseEvent);
  }

  end(): StreamCheckResult {
    const end = this.reader.end();
    return this.checker.finish(end, this.reader.stats);
  }
}

/** Check a whole recorded stream given as reads (or one buffer); read i arrives at time i. */
export function checkStream(reads: Uint8Array | readonly Uint8Array[], options: StreamCheckOptions = {}): StreamCheckResult {
  const v = new StreamValidator(options);
  const list = reads instanceof Uint8Array ? [reads] : reads;
  for (let i = 0; i < list.length; i++) v.feed(list[i] as Uint8Array, BigInt(i));
  return v.end();
}

/** gpt-tokenizer's `encode`, loaded on demand (only needed when tokens are counted client-side). */
export async function loadGptTokenCounter(): Promise<(text: string) => number> {
  const { encode } = tokenizer();
  return (text: string) => encode(text).length;
}

/** A choice whose delta carries at least one tool-call entry. */
function carriesToolCall(c: unknown): boolean {
  const d = isObject(c) ? c['delta'] : undefined;
  return isObject(d) && Array.isArray(d['tool_calls']) && d['tool_calls'].length > 0;
}
