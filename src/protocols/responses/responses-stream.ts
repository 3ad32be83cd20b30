import { SseReader, type SseEndState, type SseEvent, type SseReaderStats } from '../../client/sse-reader.ts';
import { parseJsonBounded, parseJsonPrescanned } from '../../client/json-depth.ts';
import type { ResponsesFinding, ResponsesRuleCode } from './responses-rules.ts';
import { ARGUMENTS_DELTA, ARGUMENTS_DONE, DOCUMENTED_EVENT_TYPES, REASONING_DELTAS, SNAPSHOT_EVENTS, TERMINAL_EVENTS, TEXT_DELTA, TEXT_DONE, terminalStatus, type TerminalEvent } from './responses-events.ts';
import { checkOutputItem, checkPart, checkResponseObject, checkUsage, isRecord, judgeAgainstRequest, messageText, responseFacts, show, type Add, type Json } from './responses-body.ts';
import type { OutputEvent, ResponsesStreamFacts, ResponsesStreamOptions, ResponsesStreamResult } from './responses-stream-types.ts';

export type { OutputEvent, ResponsesStreamFacts, ResponsesStreamOptions, ResponsesStreamResult } from './responses-stream-types.ts';

interface PartState {
  text: string;
  done: boolean;
}

interface ItemState {
  id: unknown;
  type: string;
  done: boolean;
  parts: PartState[];
  args: string;
  name: string;
  callId: string;
  /** The output_item.done item. */
  final?: Json;
}

const SNAPSHOTS: ReadonlySet<string> = new Set(SNAPSHOT_EVENTS);
/** Rules that assume the events found their item and part: after an index drift they are its echoes, reported once as the drift. */
const INDEX_DEPENDENT: ReadonlySet<ResponsesRuleCode> = new Set(['text-mismatch', 'arguments-mismatch', 'item-not-done', 'part-not-done', 'terminal-output-mismatch', 'item-id-mismatch']);
const TERMINALS: ReadonlySet<string> = new Set(TERMINAL_EVENTS);
const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * Reads the events of one Responses stream as the state machine of responses-events.ts: sequence
 * numbers, output and content indexes, item ids, every added item and part done, deltas adding up
 * to the done events and the terminal response, one terminal event. Reports rule codes
 * (responses-rules.ts) and keeps the facts load and the checks use. Never throws on the stream.
 */
export class ResponsesStreamChecker {
  readonly facts: ResponsesStreamFacts = {
    events: 0,
    firstEventAt: undefined,
    firstOutputAt: undefined,
    firstFunctionCallAt: undefined,
    terminalAt: undefined,
    terminal: undefined,
    outputEvents: [],
    responseId: undefined,
    text: '',
    functionCalls: [],
    final: undefined,
    usage: undefined,
    error: undefined,
    doneSentinel: false,
  };
  readonly #options: ResponsesStreamOptions;
  readonly #findings: ResponsesFinding[] = [];
  readonly #perRule = new Map<ResponsesRuleCode, number>();
  readonly #suppressed: Partial<Record<ResponsesRuleCode, number>> = {};
  readonly #items: ItemState[] = [];
  #ev: SseEvent | undefined;
  #lastSeq: number | undefined;
  #sawCreated = false;
  #sawInProgress = false;
  #afterReported = false;
  #finished = false;

  constructor(options: ResponsesStreamOptions = {}) {
    this.#options = options;
  }

  /** Counts a finding of `rule`; false once the rule has its kept number (the rest are only counted). */
  #keeps(rule: ResponsesRuleCode): boolean {
    const count = (this.#perRule.get(rule) ?? 0) + 1;
    this.#perRule.set(rule, count);
    if (count <= (this.#options.maxFindingsPerRule ?? 5)) return true;
    this.#suppressed[rule] = (this.#suppressed[rule] ?? 0) + 1;
    return false;
  }

  readonly #add: Add = (rule, message, pointer, expected, received) => {
    const ev = this.#ev;
    if (!this.#keeps(rule)) return;
    this.#findings.push({ rule, message, pointer, ...(expected === undefined ? {} : { expected }), ...(received === undefined ? {} : { received }), ...(ev === undefined ? {} : { byteOffset: ev.startOffset, eventIndex: ev.index }) });
  };

  onEvent(ev: SseEvent): void {
    this.#ev = ev;
    // An event with no data dispatches nothing (SSE): clients skip it.
    if (ev.kind === 'meta') return;
    const data = ev.data;
    if (data.trim() === '[DONE]') {
      // openai-node skips it and everything after; openai-python stops reading at it.
      if (!this.facts.doneSentinel) this.#add('done-sentinel', 'the stream carries data: [DONE] (OpenAI ends a Responses stream with its terminal event)', '', 'no [DONE]', data);
      this.facts.doneSentinel = true;
      return;
    }
    if (this.facts.doneSentinel) {
      this.#after(`an event follows data: [DONE], where clients stop reading: ${show(data)}`);
      return;
    }
    const parsed = this.#options.jsonDepthChecked === true ? parseJsonPrescanned(data) : parseJsonBounded(data);
    if (!parsed.ok || !isRecord(parsed.value) || typeof parsed.value['type'] !== 'string') {
      // openai-node and openai-python JSON.parse every data payload: one that is not JSON throws.
      this.#add('event-invalid', parsed.ok ? `event data is ${show(parsed.value)}, not an object with a string type` : `event data is not JSON (${parsed.error}): ${show(data)}`, '', 'a JSON object with a string type', data.length > 200 ? `${data.slice(0, 200)}...` : data);
      return;
    }
    const e = parsed.value;
    const type = e['type'] as string;
    this.facts.events++;
    this.facts.firstEventAt ??= ev.arrivedAt;
    if (ev.event !== type) this.#add('event-line-missing', ev.event === undefined ? `event ${type} has no event: line` : `event ${type} is named ${show(ev.event)} in its event: line`, '', type, ev.event ?? 'absent');
    this.#sequence(e);
    if (this.facts.terminal !== undefined) {
      this.#after(`${type} follows the terminal event ${this.facts.terminal}`);
      return;
    }
    if (this.facts.events === 1 && type !== 'response.created') this.#add('created-not-first', `the first event is ${type}, not response.created`, '/type', 'response.created', type);
    if (!DOCUMENTED_EVENT_TYPES.has(type)) {
      this.#add('vendor-event', `event type ${show(type)} is not one OpenAI documents: openai-node's responses.stream() throws "Unhandled response stream event" on it`, '/type', 'a documented event type', type);
      return;
    }
    if (SNAPSHOTS.has(type)) this.#snapshot(type, e);
    else if (TERMINALS.has(type)) this.#terminal(type as TerminalEvent, e);
    else if (type === 'error') {
      this.facts.error = e;
      this.facts.terminal = 'error';
      this.facts.terminalAt = ev.arrivedAt;
    } else if (type === 'response.output_item.added') this.#itemAdded(e);
    else if (type === 'response.output_item.done') this.#itemDone(e);
    else if (type === 'response.content_part.added') this.#partAdded(e);
    else if (type === 'response.content_part.done') this.#partDone(e);
    else if (type === TEXT_DELTA || type === TEXT_DONE) this.#text(type, e);
    else if (type === ARGUMENTS_DELTA || type === ARGUMENTS_DONE) this.#arguments(type, e);
    else if ('output_index' in e) {
      const item = this.#item(e, type);
      if (item !== undefined && REASONING_DELTAS.has(type) && typeof e['delta'] === 'string') this.#output(e['delta'], 'reasoning');
    }
  }

  finish(end: SseEndState, stats: SseReaderStats): ResponsesStreamResult {
    if (this.#finished) throw new Error('ResponsesStreamChecker.finish called twice');
    this.#finished = true;
    this.#ev = undefined;
    for (const f of end.findings) {
      if (f.code === 'unknown-field' || f.code === 'invalid-retry' || f.code === 'id-contains-nul') continue;
      if (this.#keeps('framing-invalid')) this.#findings.push({ rule: 'framing-invalid', message: f.detail, pointer: '', byteOffset: f.offset });
    }
    if (this.facts.events === 0) this.#add('created-not-first', 'the stream carried no event', '', 'response.created', 'no event');
    else if (this.#sawCreated && !this.#sawInProgress) this.#add('in-progress-missing', 'no response.in_progress followed response.created', '', 'response.in_progress', 'absent');
    // A stream cut before its terminal event is reported once, as that, not also as every item it left open.
    if (this.facts.terminal === undefined) this.#add('terminal-missing', `the stream ended after ${this.facts.events} event(s) without response.completed, response.incomplete or response.failed`, '', 'a terminal event', 'end of stream');
    const drifted = this.#perRule.has('output-index-invalid') || this.#perRule.has('content-index-invalid');
    const findings = drifted ? this.#findings.filter((f) => !INDEX_DEPENDENT.has(f.rule)) : this.#findings;
    if (drifted) for (const rule of INDEX_DEPENDENT) delete this.#suppressed[rule];
    const messages = this.#items.filter((i) => i.type === 'message');
    this.facts.text = messages.map((i) => i.parts.map((p) => p.text).join('')).join('');
    this.facts.functionCalls = this.#items.filter((i) => i.type === 'function_call').map((i) => ({ callId: i.callId, name: i.name, arguments: i.args }));
    return { findings, suppressed: this.#suppressed, facts: this.facts, reader: stats };
  }

  #after(message: string): void {
    if (this.#afterReported) return;
    this.#afterReported = true;
    this.#add('after-terminal', message, '', 'end of stream', 'another event');
  }

  #sequence(e: Json): void {
    const n = e['sequence_number'];
    const expected = this.#lastSeq === undefined ? 0 : this.#lastSeq + 1;
    if (!isIndex(n)) {
      this.#add('sequence-invalid', `sequence_number is ${'sequence_number' in e ? show(n) : 'absent'} on ${String(e['type'])}`, '/sequence_number', expected, n ?? 'absent');
      this.#lastSeq = expected;
      return;
    }
    if (n !== expected) this.#add('sequence-invalid', `sequence_number is ${n} on ${String(e['type'])}, after ${this.#lastSeq ?? 'none'}`, '/sequence_number', expected, n);
    this.#lastSeq = n;
  }

  #responseId(response: Json, where: string): void {
    const id = response['id'];
    if (typeof id !== 'string') return;
    if (this.facts.responseId === undefined) this.facts.responseId = id;
    else if (id !== this.facts.responseId) this.#add('response-id-changed', `${where} carries response id ${show(id)}, the stream began with ${show(this.facts.responseId)}`, '/response/id', this.facts.responseId, id);
  }

  #snapshot(type: string, e: Json): void {
    if (type === 'response.created') this.#sawCreated = true;
    else this.#sawInProgress = true;
    const r = e['response'];
    // openai-node builds its snapshot from response.created's response and pushes every added item onto its output.
    if (!isRecord(r) || typeof r['id'] !== 'string' || !Array.isArray(r['output'])) {
      this.#add('snapshot-invalid', `${type} carries response ${show(r ?? 'absent')}, not one with an id and an output array`, '/response', '{id, output: [], status: "in_progress"}', r ?? 'absent');
      return;
    }
    this.#responseId(r, type);
  }

  #item(e: Json, type: string, kind?: string): ItemState | undefined {
    const oi = e['output_index'];
    const item = isIndex(oi) ? this.#items[oi] : undefined;
    if (item === undefined || item.done || (kind !== undefined && item.type !== kind)) {
      const why = item === undefined ? 'no output item was added at that index' : item.done ? 'that item is already done' : `that item is a ${item.type}, not a ${kind ?? ''}`;
      this.#add('output-index-invalid', `${type} names output_index ${show(oi ?? 'absent')}: ${why} (openai-node throws "missing output at index")`, '/output_index', `one of 0..${this.#items.length - 1}`, oi ?? 'absent');
      return undefined;
    }
    if ('item_id' in e && e['item_id'] !== item.id) this.#add('item-id-mismatch', `${type} names item_id ${show(e['item_id'])}, the item at output_index ${String(oi)} is ${show(item.id)}`, '/item_id', item.id, e['item_id']);
    return item;
  }

  #part(item: ItemState, e: Json, type: string): PartState | undefined {
    const ci = e['content_index'];
    const part = isIndex(ci) ? item.parts[ci] : undefined;
    if (part === undefined || part.done) {
      this.#add('content-index-invalid', `${type} names content_index ${show(ci ?? 'absent')}: ${part === undefined ? 'no content part was added there' : 'that part is already done'}`, '/content_index', `one of 0..${item.parts.length - 1}`, ci ?? 'absent');
      return undefined;
    }
    return part;
  }

  #itemAdded(e: Json): void {
    const oi = e['output_index'];
    const raw = e['item'];
    if (oi !== this.#items.length) this.#add('output-index-invalid', `output_item.added has output_index ${show(oi ?? 'absent')}, the next is ${this.#items.length}`, '/output_index', this.#items.length, oi ?? 'absent');
    const item = isRecord(raw) ? raw : {};
    if (!isRecord(raw) || typeof raw['type'] !== 'string') this.#add('item-invalid', `output_item.added carries item ${show(raw ?? 'absent')}, not one with a type`, '/item', 'an output item', raw ?? 'absent');
    else if (raw['type'] === 'function_call') checkOutputItem({ ...raw, arguments: typeof raw['arguments'] === 'string' ? raw['arguments'] : '' }, '/item', this.#add);
    else if (raw['type'] === 'message' && typeof raw['id'] !== 'string') checkOutputItem({ ...raw, content: [] }, '/item', this.#add);
    const state: ItemState = { id: item['id'], type: typeof item['type'] === 'string' ? item['type'] : '?', done: false, parts: [], args: '', name: typeof item['name'] === 'string' ? item['name'] : '', callId: typeof item['call_id'] === 'string' ? item['call_id'] : '' };
    // The item is kept at the index the client keeps it at: the end of its output list.
    this.#items.push(state);
    if (state.type === 'function_call') this.facts.firstFunctionCallAt ??= this.#ev?.arrivedAt;
  }

  #partAdded(e: Json): void {
    const item = this.#item(e, 'content_part.added', 'message');
    if (item === undefined) return;
    const ci = e['content_index'];
    if (ci !== item.parts.length) this.#add('content-index-invalid', `content_part.added has content_index ${show(ci ?? 'absent')}, the next is ${item.parts.length}`, '/content_index', item.parts.length, ci ?? 'absent');
    checkPart(e['part'], '/part', this.#add);
    item.parts.push({ text: '', done: false });
  }

  #text(type: string, e: Json): void {
    const item = this.#item(e, type, 'message');
    const part = item === undefined ? undefined : this.#part(item, e, type);
    if (part === undefined) return;
    if (type === TEXT_DELTA) {
      const delta = e['delta'];
      if (typeof delta !== 'string') {
        this.#add('event-invalid', `output_text.delta carries delta ${show(delta ?? 'absent')}, not a string`, '/delta', 'a string', delta ?? 'absent');
        return;
      }
      part.text += delta;
      this.#output(delta, 'text');
      return;
    }
    if (e['text'] !== part.text) this.#add('text-mismatch', `output_text.done has text ${show(e['text'])}, the deltas joined ${show(part.text)}`, '/text', part.text, e['text']);
  }

  #partDone(e: Json): void {
    const item = this.#item(e, 'content_part.done', 'message');
    const part = item === undefined ? undefined : this.#part(item, e, 'content_part.done');
    if (part === undefined) return;
    const p = e['part'];
    checkPart(p, '/part', this.#add);
    if (isRecord(p) && p['type'] === 'output_text' && p['text'] !== part.text) this.#add('text-mismatch', `content_part.done has text ${show(p['text'])}, the deltas joined ${show(part.text)}`, '/part/text', part.text, p['text']);
    part.done = true;
  }

  #arguments(type: string, e: Json): void {
    const item = this.#item(e, type, 'function_call');
    if (item === undefined) return;
    if (type === ARGUMENTS_DELTA) {
      const delta = e['delta'];
      if (typeof delta !== 'string') {
        this.#add('event-invalid', `function_call_arguments.delta carries delta ${show(delta ?? 'absent')}, not a string`, '/delta', 'a string', delta ?? 'absent');
        return;
      }
      item.args += delta;
      this.#output(delta, 'arguments');
      return;
    }
    if (e['arguments'] !== item.args) this.#add('arguments-mismatch', `function_call_arguments.done has arguments ${show(e['arguments'])}, the deltas joined ${show(item.args)}`, '/arguments', item.args, e['arguments']);
  }

  #itemDone(e: Json): void {
    const item = this.#item(e, 'output_item.done');
    if (item === undefined) return;
    const raw = e['item'];
    checkOutputItem(raw, '/item', this.#add);
    item.done = true;
    if (!isRecord(raw)) return;
    item.final = raw;
    if (raw['id'] !== item.id) this.#add('item-id-mismatch', `output_item.done carries item id ${show(raw['id'])}, the item added at that index was ${show(item.id)}`, '/item/id', item.id, raw['id']);
    if (item.type === 'message') {
      item.parts.forEach((p, k) => {
        if (!p.done) this.#add('part-not-done', `content part ${k} of item ${show(item.id)} was never done (no response.content_part.done)`, '/item', 'content_part.done', 'absent');
      });
      const streamed = item.parts.map((p) => p.text).join('');
      const text = messageText(raw);
      if (text !== streamed) this.#add('text-mismatch', `the done message holds text ${show(text)}, the deltas joined ${show(streamed)}`, '/item/content', streamed, text);
    } else if (item.type === 'function_call') {
      if (raw['arguments'] !== item.args) this.#add('arguments-mismatch', `the done function_call holds arguments ${show(raw['arguments'])}, the deltas joined ${show(item.args)}`, '/item/arguments', item.args, raw['arguments']);
      if (typeof raw['name'] === 'string') item.name = raw['name'];
      if (typeof raw['call_id'] === 'string') item.callId = raw['call_id'];
    }
  }

  #terminal(type: TerminalEvent, e: Json): void {
    const ev = this.#ev;
    this.facts.terminal = type;
    this.facts.terminalAt = ev?.arrivedAt;
    this.#items.forEach((item, i) => {
      if (!item.done) this.#add('item-not-done', `output item ${i} (${item.type} ${show(item.id)}) was never done before ${type}`, `/response/output/${i}`, 'response.output_item.done', 'absent');
    });
    const r = e['response'];
    // The terminal response is what responses.stream().finalResponse() returns (openai-node) and get_final_response() (openai-python).
    const relabel: Add = (_rule, message, pointer, expected, received) => this.#add('terminal-response-invalid', `${type}: ${message}`, `/response${pointer}`, expected, received);
    checkResponseObject(r, relabel);
    if (!isRecord(r)) return;
    this.#responseId(r, type);
    const facts = responseFacts(r);
    this.facts.final = facts;
    if (facts.status !== terminalStatus[type]) this.#add('terminal-status-mismatch', `${type} carries a response with status ${show(facts.status ?? 'absent')}`, '/response/status', terminalStatus[type], facts.status ?? 'absent');
    if (type !== 'response.failed') this.facts.usage = checkUsage(r['usage'], (_rule, message, pointer, expected, received) => this.#add('terminal-usage-missing', `${type}: ${message}`, `/response${pointer}`, expected, received));
    judgeAgainstRequest(facts, { ...(this.#options.maxOutputTokens === undefined ? {} : { maxOutputTokens: this.#options.maxOutputTokens }), ...(this.#options.metadata === undefined ? {} : { metadata: this.#options.metadata }) }, this.#add);
    this.#compareOutput(r['output'], type);
  }

  #compareOutput(output: unknown, type: string): void {
    if (!Array.isArray(output)) return;
    const streamed = this.#items;
    if (output.length !== streamed.length) {
      this.#add('terminal-output-mismatch', `${type} carries ${output.length} output item(s), the stream added ${streamed.length}`, '/response/output', streamed.length, output.length);
      return;
    }
    streamed.forEach((s, i) => {
      const got = output[i] as unknown;
      const ptr = `/response/output/${i}`;
      if (!isRecord(got) || got['type'] !== s.type || got['id'] !== s.id) {
        this.#add('terminal-output-mismatch', `${type}: output[${i}] is ${show(isRecord(got) ? { type: got['type'], id: got['id'] } : got)}, the stream's item ${i} is ${show({ type: s.type, id: s.id })}`, ptr, { type: s.type, id: s.id }, got);
        return;
      }
      if (s.type === 'message') {
        const text = s.parts.map((p) => p.text).join('');
        if (messageText(got) !== text) this.#add('terminal-output-mismatch', `${type}: output[${i}] holds text ${show(messageText(got))}, the stream's deltas ${show(text)}`, `${ptr}/content`, text, messageText(got));
      } else if (s.type === 'function_call' && got['arguments'] !== s.args) {
        this.#add('terminal-output-mismatch', `${type}: output[${i}] holds arguments ${show(got['arguments'])}, the stream's deltas ${show(s.args)}`, `${ptr}/arguments`, s.args, got['arguments']);
      }
    });
  }

  #output(delta: string, kind: OutputEvent['kind']): void {
    const ev = this.#ev;
    if (delta === '' || ev === undefined) return;
    if (kind !== 'reasoning') this.facts.firstOutputAt ??= ev.arrivedAt;
    const count = this.#options.countTokens;
    this.facts.outputEvents.push({ arrivedAt: ev.arrivedAt, chunkIndex: ev.chunkIndex, byteOffset: ev.startOffset, chars: delta.length, tokens: count === undefined ? undefined : count(delta), kind });
  }
}

/** Reader and checker together: what the load engines and the checks feed with raw reads. */
export class ResponsesStreamValidator {
  readonly reader = new SseReader();
  readonly checker: ResponsesStreamChecker;

  constructor(options: ResponsesStreamOptions = {}) {
    this.checker = new ResponsesStreamChecker(options);
  }

  feed(chunk: Uint8Array, arrivedAt: bigint): void {
    for (const ev of this.reader.feed(chunk, arrivedAt)) this.checker.onEvent(ev);
  }

  end(): ResponsesStreamResult {
    const end = this.reader.end();
    return this.checker.finish(end, this.reader.stats);
  }
}

/** Checks a whole recorded stream given as reads (or one buffer); read i arrives at time i. */
export function checkResponsesStream(reads: Uint8Array | readonly Uint8Array[], options: ResponsesStreamOptions = {}): ResponsesStreamResult {
  const v = new ResponsesStreamValidator(options);
  const list = reads instanceof Uint8Array ? [reads] : reads;
  for (let i = 0; i < list.length; i++) v.feed(list[i] as Uint8Array, BigInt(i));
  return v.end();
}
