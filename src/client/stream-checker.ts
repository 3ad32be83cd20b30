import { SseReader, type SseEndState, type SseEvent, type SseReaderStats } from './sse-reader.ts';
import { streamRules, type StreamRuleCode, type StreamSeverity } from './stream-rules.ts';
import { newChoice, type AssembledChoice, type AssembledCompletion, type AssembledToolCall, type AssembledUsage } from './stream-assembly.ts';

export interface StreamCheckOptions {
  /** `stream_options.include_usage` was requested. */
  includeUsage?: boolean;
  /** `n` of the request (default 1). */
  n?: number;
  /** Reference Unix time (seconds) for `created` (default: now, when the checker is made). */
  nowSeconds?: number;
  /** Count the tokens of each content-bearing event (e.g. `loadGptTokenCounter()`); off by default. */
  countTokens?: (text: string) => number;
  /** Findings kept per rule before further ones are only counted (default 5). */
  maxFindingsPerRule?: number;
}

export interface StreamFinding {
  rule: StreamRuleCode;
  requirementId: string;
  severity: StreamSeverity;
  message: string;
  byteOffset: number;
  chunkIndex: number;
  /** Index of the SSE event (block) it is about, when it is about one. */
  eventIndex: number | undefined;
  /** JSON Pointer into the event's JSON payload, when it applies. */
  pointer: string | undefined;
  expected: unknown;
  received: unknown;
}

export interface ContentEvent {
  arrivedAt: bigint;
  chunkIndex: number;
  byteOffset: number;
  /** Characters of content, refusal and tool-call argument text the event carries. */
  chars: number;
  /** Tokens of that text, when a counter was given. */
  tokens: number | undefined;
}

export interface StreamTiming {
  /** Arrival of the first event carrying JSON (any chunk, the role prelude included). */
  firstChunkAt: bigint | undefined;
  /** Arrival of the first event carrying non-empty content, refusal or a tool-call delta (TTFT anchor). */
  firstTokenAt: bigint | undefined;
  doneAt: bigint | undefined;
  contentEvents: ContentEvent[];
}

export interface StreamCheckResult {
  findings: StreamFinding[];
  /** Findings per rule beyond `maxFindingsPerRule`, which were counted but not kept. */
  suppressed: Partial<Record<StreamRuleCode, number>>;
  /** `fail` if any fail finding, else `non-strict` if any, else `pass` (informational findings do not count). */
  verdict: 'pass' | 'fail' | 'non-strict';
  assembled: AssembledCompletion;
  timing: StreamTiming;
  reader: SseReaderStats;
}

const FINISH_REASONS = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);
const REQUIRED_CHUNK_FIELDS = ['id', 'object', 'created', 'model', 'choices'] as const;
const DAY_SECONDS = 86_400;

interface ChoiceState {
  choice: AssembledChoice;
  deltas: number;
  lastOffset: number;
  lastChunkIndex: number;
  lastEventIndex: number;
  tools: Map<number, AssembledToolCall>;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isNonNegInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? s.slice(0, 77) + '...' : s;
}

/**
 * Consumes reader events of one chat completion stream and reports every rule the format
 * forbids, assembles the message per choice, and keeps the timing facts the load engine uses.
 */
export class StreamChecker {
  readonly #opts: { includeUsage: boolean; n: number; now: number; maxPerRule: number; countTokens: ((t: string) => number) | undefined };
  readonly #findings: StreamFinding[] = [];
  readonly #perRule = new Map<StreamRuleCode, number>();
  readonly #suppressed: Partial<Record<StreamRuleCode, number>> = {};
  readonly #choices = new Map<number, ChoiceState>();
  readonly #usageChunks: { offset: number; chunkIndex: number; eventIndex: number; choicesEmpty: boolean; choices: unknown }[] = [];
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
  #doneEvent: SseEvent | undefined;
  #afterDoneReported = false;
  #errorSeen = false;
  #usageKeyMissing = false;
  #lastEndOffset = 0;
  #lastChunkIndex = 0;
  #lastChoicesEvent = -1;
  #finished = false;
  // Current event, for findings.
  #ev: SseEvent | undefined;

  constructor(options: StreamCheckOptions = {}) {
    this.#opts = {
      includeUsage: options.includeUsage ?? false,
      n: options.n ?? 1,
      now: options.nowSeconds ?? Date.now() / 1000,
      maxPerRule: options.maxFindingsPerRule ?? 5,
      countTokens: options.countTokens,
    };
  }

  /** Check one reader event (a dispatched block). */
  onEvent(ev: SseEvent): void {
    this.#ev = ev;
    this.#lastEndOffset = ev.endOffset;
    this.#lastChunkIndex = ev.chunkIndex;
    if (ev.kind === 'meta') {
      this.#report('meta-only-event', `event carries no data field (id=${show(ev.id)}, retry=${show(ev.retry)}, event=${show(ev.event)})`, { received: { id: ev.id, retry: ev.retry, event: ev.event } });
      return;
    }
    if (ev.event !== undefined && ev.event !== 'message' && ev.event !== 'error') {
      this.#report('event-field', `event named ${show(ev.event)}; OpenAI clients treat only unnamed events as chunks`, { received: ev.event, expected: 'no event field' });
    }
    const data = ev.data;
    if (this.#doneEvent !== undefined) {
      if (!this.#afterDoneReported) {
        this.#afterDoneReported = true;
        this.#report('data-after-done', `data after [DONE]: ${show(data)}`, { received: data });
      }
      return;
    }
    // Spec, Streamed chunk: "The final event is the literal string [DONE], not JSON."
    if (data === '[DONE]') {
      this.#done(ev);
      return;
    }
    if (data.trim() === '[DONE]') {
      this.#report('done-not-exact', `sentinel ${show(data)} is not exactly [DONE]`, { expected: '[DONE]', received: data });
      this.#done(ev);
      return;
    }
    if (data === '') {
      this.#report('empty-data', 'data field is empty', { expected: 'a JSON object or [DONE]', received: '' });
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch (e) {
      this.#report('non-json-data', `data is not JSON (${(e as Error).message}): ${show(data)}`, { expected: 'a JSON object or [DONE]', received: data.length > 200 ? data.slice(0, 200) + '...' : data });
      return;
    }
    if (!isObject(payload)) {
      this.#report('non-json-data', `data is JSON but not an object: ${show(payload)}`, { expected: 'a JSON object', received: payload });
      return;
    }
    if (this.timing.firstChunkAt === undefined) this.timing.firstChunkAt = ev.arrivedAt;
    if ('error' in payload || ev.event === 'error') {
      this.#onError(payload);
      return;
    }
    if (this.#errorSeen) this.#report('chunk-after-error', 'a chunk follows an in-stream error', {});
    this.assembled.chunks++;
    this.#checkEnvelope(payload);
    this.#checkUsage(payload);
    const choices = payload['choices'];
    if (Array.isArray(choices)) {
      if (choices.length > 0) this.#lastChoicesEvent = ev.index;
      let bearing = false;
      let text = '';
      for (let i = 0; i < choices.length; i++) {
        const r = this.#checkChoice(choices[i], i);
        if (r !== undefined) {
          bearing = true;
          text += r;
        }
      }
      if (bearing) {
        if (this.timing.firstTokenAt === undefined) this.timing.firstTokenAt = ev.arrivedAt;
        this.timing.contentEvents.push({
          arrivedAt: ev.arrivedAt,
          chunkIndex: ev.chunkIndex,
          byteOffset: ev.startOffset,
          chars: text.length,
          tokens: this.#opts.countTokens === undefined ? undefined : this.#opts.countTokens(text),
        });
      }
    }
  }

  /** Close the checks after the reader has ended. */
  finish(end: SseEndState, stats: SseReaderStats): StreamCheckResult {
    if (this.#finished) throw new Error('StreamChecker.finish called twice');
    this.#finished = true;
    this.#ev = undefined;
    const endOffset = stats.bytes;
    for (const f of end.findings) {
      const rule: StreamRuleCode = f.code === 'ended-mid-line' ? 'ended-mid-event' : f.code;
      if (f.code === 'ended-mid-line' && end.partialEvent !== undefined) continue;
      if (f.code === 'ended-mid-line') {
        this.#report('comment-lines', `stream ended inside a comment line: ${f.detail}`, { at: f.offset, chunk: f.chunkIndex });
        continue;
      }
      const tail = f.code === 'ended-mid-event' && end.unterminatedLine !== undefined ? ` (unterminated line: ${show(end.unterminatedLine.text)})` : '';
      this.#report(rule, f.detail + tail, { at: f.offset, chunk: f.chunkIndex });
    }
    if (stats.comments > 0) {
      this.#report('comment-lines', `${stats.comments} comment line(s), first at byte ${stats.firstCommentOffset}`, { at: stats.firstCommentOffset, received: stats.comments });
    }
    if (stats.lineEndings.cr > 0 || stats.lineEndings.crlf > 0) {
      this.#report('line-endings', `line endings: ${JSON.stringify(stats.lineEndings)}`, { at: 0, received: stats.lineEndings });
    }
    if (stats.bom) this.#report('bom', 'stream starts with a UTF-8 byte order mark', { at: 0 });

    const atEnd = { at: endOffset, chunk: Math.max(0, stats.reads - 1) };
    if (this.#doneEvent === undefined) {
      this.#report('done-missing', 'stream ended without data: [DONE]', { ...atEnd, expected: '[DONE]', received: 'end of stream' });
    }
    if (this.assembled.chunks === 0 && !this.#errorSeen) {
      this.#report('no-chunks', 'stream carried no completion chunk', atEnd);
    }
    this.#finishUsage(atEnd);
    this.#finishChoices(atEnd);
    this.assembled.choices = [...this.#choices.values()].map((s) => s.choice).sort((a, b) => a.index - b.index);
    let verdict: StreamCheckResult['verdict'] = 'pass';
    for (const f of this.#findings) {
      if (f.severity === 'fail') verdict = 'fail';
      else if (f.severity === 'non-strict' && verdict === 'pass') verdict = 'non-strict';
    }
    return { findings: this.#findings, suppressed: this.#suppressed, verdict, assembled: this.assembled, timing: this.timing, reader: stats };
  }

  #done(ev: SseEvent): void {
    this.#doneEvent = ev;
    this.assembled.done = true;
    this.timing.doneAt = ev.arrivedAt;
  }

  #onError(payload: Json): void {
    const err = payload['error'];
    this.assembled.error = err ?? payload;
    if (this.assembled.chunks === 0 && !this.#errorSeen) {
      this.#report('error-before-chunks', `error sent inside a 200 stream before any chunk: ${show(err)}`, { expected: 'a 4xx/5xx status with an error body', received: payload, pointer: '/error' });
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
      this.#report('error-shape', `in-stream error is not {"error":{message,type,param,code}}: ${show(payload)}`, { expected: '{"error":{"message","type","param","code"}}', received: payload, pointer: '/error' });
    }
  }

  #checkEnvelope(p: Json): void {
    const a = this.assembled;
    for (const field of REQUIRED_CHUNK_FIELDS) {
      if (!(field in p)) this.#report('missing-field', `chunk lacks required field ${field}`, { pointer: `/${field}`, expected: field });
    }
    // Compat, CreateChatCompletionStreamResponse.id: "Each chunk has the same ID."
    if ('id' in p) {
      const id = p['id'];
      if (typeof id !== 'string' || id === '') this.#report('id-empty', `id is ${show(id)}`, { pointer: '/id', expected: 'a non-empty string', received: id });
      else if (a.id === undefined) a.id = id;
      else if (id !== a.id) this.#report('id-changed', `id changed from ${show(a.id)} to ${show(id)}`, { pointer: '/id', expected: a.id, received: id });
    }
    if ('object' in p && p['object'] !== 'chat.completion.chunk') {
      this.#report('object-wrong', `object is ${show(p['object'])}`, { pointer: '/object', expected: 'chat.completion.chunk', received: p['object'] });
    }
    if (a.object === undefined && 'object' in p) a.object = p['object'];
    // Compat, CreateChatCompletionStreamResponse.created: "Each chunk has the same timestamp."
    if ('created' in p) {
      const c = p['created'];
      if (a.created === undefined) {
        a.created = c;
        if (!isNonNegInt(c) || c >= 1e10 || Math.abs(c - this.#opts.now) > DAY_SECONDS) {
          const why = !isNonNegInt(c) ? 'not a non-negative integer' : c >= 1e10 ? 'looks like milliseconds' : 'more than a day from now';
          this.#report('created-invalid', `created ${show(c)} is ${why}`, { pointer: '/created', expected: `integer Unix seconds near ${Math.round(this.#opts.now)}`, received: c });
        }
      } else if (c !== a.created) {
        this.#report('created-changed', `created changed from ${show(a.created)} to ${show(c)}`, { pointer: '/created', expected: a.created, received: c });
      }
    }
    if ('model' in p) {
      if (typeof p['model'] !== 'string') this.#report('model-invalid', `model is ${show(p['model'])}`, { pointer: '/model', expected: 'a string', received: p['model'] });
      else if (a.model === undefined) a.model = p['model'];
    }
    if ('system_fingerprint' in p && a.systemFingerprint === undefined) a.systemFingerprint = p['system_fingerprint'];
    if ('choices' in p && !Array.isArray(p['choices']) && !(isObject(p['usage']))) {
      this.#report('missing-field', `choices is ${show(p['choices'])}, not an array`, { pointer: '/choices', expected: 'an array', received: p['choices'] });
    }
  }

  #checkUsage(p: Json): void {
    const ev = this.#ev;
    if (ev === undefined) return;
    if (!('usage' in p)) {
      if (this.#opts.includeUsage && !this.#usageKeyMissing) {
        this.#usageKeyMissing = true;
        this.#report('usage-null-omitted', 'chunk omits usage; with include_usage every chunk carries usage (null until the last)', { pointer: '/usage', expected: null, received: 'absent' });
      }
      return;
    }
    const u = p['usage'];
    if (u === null) return;
    if (!this.#opts.includeUsage) {
      this.#report('usage-unrequested', `usage ${show(u)} sent although include_usage was not requested`, { pointer: '/usage', expected: 'absent or null', received: u });
    }
    const choices = p['choices'];
    this.#usageChunks.push({
      offset: ev.startOffset,
      chunkIndex: ev.chunkIndex,
      eventIndex: ev.index,
      choicesEmpty: Array.isArray(choices) && choices.length === 0,
      choices,
    });
    if (!isObject(u)) {
      this.#report('usage-fields', `usage is ${show(u)}, not an object`, { pointer: '/usage', expected: 'an object', received: u });
      return;
    }
    this.assembled.usage = u as AssembledUsage;
    const pt = u['prompt_tokens'];
    const ct = u['completion_tokens'];
    const tt = u['total_tokens'];
    if (!isNonNegInt(pt) || !isNonNegInt(ct) || !isNonNegInt(tt)) {
      this.#report('usage-fields', `usage counts are not all non-negative integers: ${show(u)}`, { pointer: '/usage', expected: '{prompt_tokens, completion_tokens, total_tokens} integers', received: u });
    } else if (tt !== pt + ct) {
      this.#report('usage-total-mismatch', `total_tokens ${tt} != prompt_tokens ${pt} + completion_tokens ${ct}`, { pointer: '/usage/total_tokens', expected: pt + ct, received: tt });
    }
  }

  #finishUsage(atEnd: { at: number; chunk: number }): void {
    const list = this.#usageChunks;
    const last = list[list.length - 1];
    if (this.#opts.includeUsage) {
      for (let i = 0; i < list.length - 1; i++) {
        const u = list[i];
        if (u === undefined) continue;
        this.#report('usage-non-null-interim', 'a chunk before the final usage chunk carries a non-null usage', { at: u.offset, chunk: u.chunkIndex, event: u.eventIndex, pointer: '/usage', expected: null });
      }
      if (last === undefined) {
        if (this.assembled.chunks > 0 && !this.#errorSeen) {
          this.#report('usage-chunk-missing', 'include_usage was requested but no chunk carried usage', { ...atEnd, expected: 'a final chunk with choices: [] and usage' });
        }
      } else {
        if (!last.choicesEmpty) {
          this.#report('usage-chunk-choices', `the usage chunk has choices ${show(last.choices)}`, { at: last.offset, chunk: last.chunkIndex, event: last.eventIndex, pointer: '/choices', expected: [], received: last.choices });
        }
        if (this.#lastChoicesEvent > last.eventIndex) {
          this.#report('usage-chunk-missing', 'the usage chunk is not the last chunk before [DONE]', { at: last.offset, chunk: last.chunkIndex, event: last.eventIndex, expected: 'usage chunk last' });
        }
      }
    }
  }

  /** Returns the text the choice's delta carried ('' when it carried only a tool-call delta without text), or undefined. */
  #checkChoice(raw: unknown, position: number): string | undefined {
    const ev = this.#ev;
    if (ev === undefined) return undefined;
    const ptr = `/choices/${position}`;
    if (!isObject(raw)) {
      this.#report('delta-invalid', `choice is ${show(raw)}, not an object`, { pointer: ptr, received: raw });
      return undefined;
    }
    const index = raw['index'];
    if (!isNonNegInt(index) || index >= this.#opts.n) {
      this.#report('choice-index-invalid', `choices[${position}].index is ${show(index)} (n=${this.#opts.n})`, { pointer: `${ptr}/index`, expected: `integer in [0, ${this.#opts.n})`, received: index });
      if (!isNonNegInt(index) || this.#choices.size >= this.#opts.n + 16) return undefined;
    }
    let state = this.#choices.get(index);
    if (state === undefined) {
      state = { choice: newChoice(index), deltas: 0, lastOffset: 0, lastChunkIndex: 0, lastEventIndex: -1, tools: new Map() };
      this.#choices.set(index, state);
    }
    const first = state.deltas === 0;
    state.deltas++;
    state.lastOffset = ev.startOffset;
    state.lastChunkIndex = ev.chunkIndex;
    state.lastEventIndex = ev.index;
    const choice = state.choice;

    let finish: unknown = null;
    if (!('finish_reason' in raw)) {
      this.#report('finish-reason-key-missing', `choices[${position}] omits finish_reason`, { pointer: `${ptr}/finish_reason`, expected: null, received: 'absent' });
    } else {
      finish = raw['finish_reason'];
      if (finish !== null && (typeof finish !== 'string' || !FINISH_REASONS.has(finish))) {
        this.#report('finish-reason-invalid', `finish_reason ${show(finish)} is not in the enum`, { pointer: `${ptr}/finish_reason`, expected: [...FINISH_REASONS, null], received: finish });
      }
      if (finish !== null) choice.finishReason = finish;
    }

    const delta = raw['delta'];
    if (!isObject(delta)) {
      this.#report('delta-invalid', `choices[${position}].delta is ${show(delta)}`, { pointer: `${ptr}/delta`, expected: 'an object', received: delta });
      return undefined;
    }
    const role = delta['role'];
    if (first) {
      if (role !== 'assistant') {
        this.#report('role-missing-first', `first delta of choice ${index} has role ${show(role)}`, { pointer: `${ptr}/delta/role`, expected: 'assistant', received: role === undefined ? 'absent' : role });
      }
    } else if (role !== undefined) {
      this.#report('role-repeated', `role repeated on a later delta of choice ${index}`, { pointer: `${ptr}/delta/role`, expected: 'absent', received: role });
    }
    if (typeof role === 'string' && choice.role === undefined) choice.role = role;

    let text: string | undefined;
    const content = delta['content'];
    if (content !== undefined && content !== null) {
      if (typeof content !== 'string') {
        this.#report('delta-invalid', `delta.content is ${show(content)}, not a string or null`, { pointer: `${ptr}/delta/content`, expected: 'string or null', received: content });
      } else {
        choice.content = choice.content === null ? content : choice.content + content;
        if (content !== '') text = content;
      }
    }
    const refusal = delta['refusal'];
    if (typeof refusal === 'string') {
      choice.refusal = choice.refusal === null ? refusal : choice.refusal + refusal;
      if (refusal !== '') text = (text ?? '') + refusal;
    }
    const toolCalls = delta['tool_calls'];
    let toolDelta = false;
    if (toolCalls !== undefined && toolCalls !== null) {
      if (!Array.isArray(toolCalls)) {
        this.#report('tool-index-invalid', `delta.tool_calls is ${show(toolCalls)}, not an array`, { pointer: `${ptr}/delta/tool_calls`, expected: 'an array', received: toolCalls });
      } else {
        for (let k = 0; k < toolCalls.length; k++) {
          const args = this.#checkToolDelta(state, toolCalls[k], `${ptr}/delta/tool_calls/${k}`);
          toolDelta = true;
          if (args !== '') text = (text ?? '') + args;
        }
      }
    }
    if (finish !== null && (text !== undefined || toolDelta)) {
      this.#report('finish-chunk-content', `the finish chunk of choice ${index} also carries content or tool calls`, { pointer: `${ptr}/delta`, expected: {}, received: delta });
    }
    return text ?? (toolDelta ? '' : undefined);
  }

  /** Returns the argument text the tool-call delta carried. */
  #checkToolDelta(state: ChoiceState, raw: unknown, ptr: string): string {
    if (!isObject(raw)) {
      this.#report('tool-index-invalid', `tool-call delta is ${show(raw)}`, { pointer: ptr, expected: 'an object with an integer index', received: raw });
      return '';
    }
    const index = raw['index'];
    if (!isNonNegInt(index)) {
      this.#report('tool-index-invalid', `tool-call delta index is ${show(index)}`, { pointer: `${ptr}/index`, expected: 'an integer >= 0', received: index === undefined ? 'absent' : index });
      return '';
    }
    const fn = raw['function'];
    const fnObj = isObject(fn) ? fn : undefined;
    const id = raw['id'];
    const type = raw['type'];
    const name = fnObj?.['name'];
    let call = state.tools.get(index);
    if (call === undefined) {
      const missing: string[] = [];
      if (typeof id !== 'string' || id === '') missing.push('id');
      if (type !== 'function') missing.push('type');
      if (typeof name !== 'string' || name === '') missing.push('function.name');
      if (missing.length > 0) {
        this.#report('tool-first-delta-incomplete', `first delta of tool call ${index} lacks ${missing.join(', ')}`, { pointer: ptr, expected: { id: 'non-empty string', type: 'function', function: { name: 'non-empty string' } }, received: raw });
      }
      call = {
        index,
        id: typeof id === 'string' ? id : undefined,
        type: typeof type === 'string' ? type : undefined,
        name: typeof name === 'string' ? name : undefined,
        arguments: '',
      };
      state.tools.set(index, call);
      state.choice.toolCalls.push(call);
    } else {
      const changed: string[] = [];
      if (id !== undefined && id !== call.id && !(id === '' || id === null)) changed.push(`id ${show(call.id)} -> ${show(id)}`);
      if (type !== undefined && type !== null && type !== call.type) changed.push(`type ${show(call.type)} -> ${show(type)}`);
      if (name !== undefined && name !== null && name !== '' && name !== call.name) changed.push(`name ${show(call.name)} -> ${show(name)}`);
      if (changed.length > 0) {
        this.#report('tool-identity-changed', `tool call ${index} changed identity: ${changed.join('; ')}`, { pointer: ptr, expected: { id: call.id, type: call.type, name: call.name }, received: { id, type, name } });
      }
      if (call.id === undefined && typeof id === 'string' && id !== '') call.id = id;
      if (call.name === undefined && typeof name === 'string' && name !== '') call.name = name;
      if (call.type === undefined && typeof type === 'string') call.type = type;
    }
    if (fnObj !== undefined && 'arguments' in fnObj) {
      const args = fnObj['arguments'];
      if (typeof args === 'string') {
        call.arguments += args;
        return args;
      }
      if (args !== null) {
        this.#report('tool-arguments-not-string', `function.arguments is ${show(args)}, not a string`, { pointer: `${ptr}/function/arguments`, expected: 'a string', received: args });
        call.arguments += JSON.stringify(args) ?? '';
      }
    }
    return '';
  }

  #finishChoices(atEnd: { at: number; chunk: number }): void {
    if (this.#errorSeen) return;
    for (const s of this.#choices.values()) {
      const c = s.choice;
      const at = { at: s.lastOffset, chunk: s.lastChunkIndex, event: s.lastEventIndex };
      if (c.finishReason === null) {
        this.#report('finish-reason-never', `choice ${c.index} never got a non-null finish_reason`, { ...at, pointer: '/choices', expected: 'a finish_reason', received: null });
      }
      for (const call of c.toolCalls) {
        try {
          JSON.parse(call.arguments);
        } catch {
          this.#report('tool-arguments-not-json', `joined arguments of tool call ${call.index} are not JSON: ${show(call.arguments)}`, { ...at, expected: 'JSON text', received: call.arguments });
        }
      }
      if (c.finishReason === 'tool_calls' && c.toolCalls.length === 0) {
        this.#report('tool-calls-finish-without-calls', `choice ${c.index} finished with tool_calls but carried no tool call`, { ...at, expected: 'tool calls', received: 'none' });
      }
      if (c.finishReason === 'stop' && c.toolCalls.length > 0) {
        this.#report('tool-calls-with-stop', `choice ${c.index} carries ${c.toolCalls.length} tool call(s) but finished with stop (OpenAI does this when a tool is forced)`, { ...at, expected: 'tool_calls', received: 'stop' });
      }
    }
    if (this.#choices.size === 0 && this.assembled.chunks > 0) {
      this.#report('finish-reason-never', 'no chunk carried a choice', { ...atEnd, expected: 'at least one choice' });
    }
  }

  #report(
    rule: StreamRuleCode,
    message: string,
    where: { at?: number; chunk?: number; event?: number; pointer?: string; expected?: unknown; received?: unknown },
  ): void {
    const count = (this.#perRule.get(rule) ?? 0) + 1;
    this.#perRule.set(rule, count);
    if (count > this.#opts.maxPerRule) {
      this.#suppressed[rule] = (this.#suppressed[rule] ?? 0) + 1;
      return;
    }
    const def = streamRules[rule];
    const ev = this.#ev;
    this.#findings.push({
      rule,
      requirementId: def.requirementId,
      severity: def.severity,
      message,
      byteOffset: where.at ?? ev?.startOffset ?? this.#lastEndOffset,
      chunkIndex: where.chunk ?? ev?.chunkIndex ?? this.#lastChunkIndex,
      eventIndex: where.event ?? ev?.index,
      pointer: where.pointer,
      expected: where.expected,
      received: where.received,
    });
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

/** Check a whole recorded stream given as reads (or one buffer). */
export function checkStream(reads: Uint8Array | readonly Uint8Array[], options: StreamCheckOptions = {}): StreamCheckResult {
  const v = new StreamValidator(options);
  const list = reads instanceof Uint8Array ? [reads] : reads;
  for (let i = 0; i < list.length; i++) v.feed(list[i] as Uint8Array, BigInt(i));
  return v.end();
}

/** gpt-tokenizer's `encode`, loaded on demand (it is only needed when tokens are counted client-side). */
export async function loadGptTokenCounter(): Promise<(text: string) => number> {
  const { encode } = await import('gpt-tokenizer');
  return (text: string) => encode(text).length;
}
