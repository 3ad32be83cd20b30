// The mock's Responses answers are its chat generation written in the Responses format (as
// llama.cpp's server does, a "compatibility shim (Responses <-> Chat completion)", PR #23041):
// the same plan, pacing, billing and cancellation; this file turns the chat route's answer into a
// Response and its stream of events, and applies the Responses faults to them.
import type { StreamEvent } from './types.ts';
import type { Turn } from '../../src/protocols/responses/responses-request.ts';
import { finalResponse, sseFrame, streamEvents, type PlannedItem, type PlannedResponse, type WrittenEvent } from '../../src/protocols/responses/responses-writer.ts';
import { newPrefixedId } from './ids.ts';

type Json = Record<string, unknown>;

interface Piece {
  text: string;
  tokens: number;
  atMs: number;
}

/** What the chat route generated, read back from its answer. */
export interface Generated {
  text: Piece[];
  calls: { callId: string; name: string; nameTokens: number; atMs: number; args: Piece[] }[];
  finishReason: string;
  usage: { prompt: number; completion: number; cached?: number };
  firstAtMs: number;
  lastAtMs: number;
}

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function usageOf(u: unknown): Generated['usage'] {
  const r = isRecord(u) ? u : {};
  const details = r['prompt_tokens_details'];
  const cached = isRecord(details) ? details['cached_tokens'] : undefined;
  return { prompt: Number(r['prompt_tokens'] ?? 0), completion: Number(r['completion_tokens'] ?? 0), ...(typeof cached === 'number' ? { cached } : {}) };
}

/** A non-streamed chat completion's first choice, as one piece per text and call. */
export function fromChatBody(body: string, atMs: number): Generated {
  const b = JSON.parse(body) as Json;
  const choice = (b['choices'] as Json[])[0] ?? {};
  const message = (choice['message'] ?? {}) as Json;
  const content = typeof message['content'] === 'string' ? message['content'] : '';
  const calls = (Array.isArray(message['tool_calls']) ? (message['tool_calls'] as Json[]) : []).map((c) => {
    const fn = c['function'] as Json;
    return { callId: String(c['id']), name: String(fn['name']), nameTokens: 0, atMs, args: [{ text: String(fn['arguments']), tokens: 0, atMs }] };
  });
  return { text: content === '' ? [] : [{ text: content, tokens: 0, atMs }], calls, finishReason: String(choice['finish_reason']), usage: usageOf(b['usage']), firstAtMs: atMs, lastAtMs: atMs };
}

/** A streamed chat completion (with include_usage), event by event: each piece keeps its time and tokens. */
export function fromChatEvents(events: readonly StreamEvent[]): Generated {
  const g: Generated = { text: [], calls: [], finishReason: 'stop', usage: { prompt: 0, completion: 0 }, firstAtMs: events[0]?.atMs ?? 0, lastAtMs: 0 };
  for (const e of events) {
    g.lastAtMs = Math.max(g.lastAtMs, e.atMs);
    if (!e.data.startsWith('data: {')) continue;
    const chunk = JSON.parse(e.data.slice(6)) as Json;
    if (isRecord(chunk['usage'])) g.usage = usageOf(chunk['usage']);
    const choice = (Array.isArray(chunk['choices']) ? (chunk['choices'] as Json[]) : [])[0];
    if (choice === undefined) continue;
    if (typeof choice['finish_reason'] === 'string') g.finishReason = choice['finish_reason'];
    const delta = (choice['delta'] ?? {}) as Json;
    if (typeof delta['content'] === 'string' && delta['content'] !== '') g.text.push({ text: delta['content'], tokens: e.tokens, atMs: e.atMs });
    for (const c of (Array.isArray(delta['tool_calls']) ? delta['tool_calls'] : []) as Json[]) {
      const fn = (c['function'] ?? {}) as Json;
      if (typeof c['id'] === 'string') g.calls.push({ callId: c['id'], name: String(fn['name']), nameTokens: e.tokens, atMs: e.atMs, args: [] });
      else if (typeof fn['arguments'] === 'string') g.calls[g.calls.length - 1]?.args.push({ text: fn['arguments'], tokens: e.tokens, atMs: e.atMs });
    }
  }
  return g;
}

export interface ResponseShape {
  base: Json;
  maxOutputTokens: number | null;
  faults: ReadonlySet<string>;
  createdAt: number;
}

/** The plan of the Response: its items, status and usage. */
export function planOf(g: Generated, shape: ResponseShape): PlannedResponse {
  const items: PlannedItem[] = [];
  if (g.text.length > 0 || g.calls.length === 0) items.push({ kind: 'message', id: newPrefixedId('msg'), pieces: g.text.map((p) => p.text) });
  for (const c of g.calls) items.push({ kind: 'function_call', id: newPrefixedId('fc'), callId: c.callId, name: c.name, pieces: c.args.map((p) => p.text) });
  // Compat: a response cut at max_output_tokens is "incomplete" with incomplete_details.reason "max_output_tokens".
  const bound = shape.maxOutputTokens;
  const cut = g.finishReason === 'length' || (bound !== null && g.usage.completion >= bound);
  const status = cut && !shape.faults.has('responses-incomplete-as-completed') ? 'incomplete' : 'completed';
  return {
    base: shape.faults.has('responses-metadata-dropped') ? { ...shape.base, metadata: null } : shape.base,
    items,
    status,
    ...(status === 'incomplete' ? { incompleteReason: 'max_output_tokens' } : {}),
    usage: {
      input_tokens: g.usage.prompt,
      input_tokens_details: { cached_tokens: g.usage.cached ?? 0 },
      output_tokens: g.usage.completion,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: g.usage.prompt + g.usage.completion,
    },
    completedAt: shape.createdAt,
  };
}

/** The turns the response adds to its conversation (what previous_response_id carries next). */
export function outputTurns(plan: PlannedResponse): Turn[] {
  return plan.items.map((i): Turn => (i.kind === 'message' ? { kind: 'message', role: 'assistant', text: i.pieces.join('') } : { kind: 'function_call', callId: i.callId, name: i.name, arguments: i.pieces.join('') }));
}

/** A non-streamed answer, with the body faults. */
export function answerBody(plan: PlannedResponse, fs: ReadonlySet<string>): Json {
  const body = finalResponse(plan);
  if (fs.has('responses-output-missing')) delete body['output'];
  if (fs.has('responses-object-wrong')) body['object'] = 'responses';
  if (fs.has('responses-content-string')) {
    for (const item of (body['output'] ?? []) as Json[]) if (item['type'] === 'message') item['content'] = ((item['content'] as Json[])[0] ?? {})['text'] ?? '';
  }
  if (fs.has('responses-usage-chat-names')) {
    const u = body['usage'] as Json;
    body['usage'] = { prompt_tokens: u['input_tokens'], completion_tokens: u['output_tokens'], total_tokens: u['total_tokens'] };
  }
  return body;
}

const renumber = (list: WrittenEvent[]): WrittenEvent[] => list.map((w, i) => ({ ...w, event: { ...w.event, sequence_number: i } }));
const typeOf = (w: WrittenEvent): unknown => w.event['type'];
const TERMINAL = new Set(['response.completed', 'response.incomplete']);

/** The events of the stream with the stream faults applied (before framing). */
function faultedEvents(plan: PlannedResponse, fs: ReadonlySet<string>): WrittenEvent[] {
  let list = streamEvents(plan);
  if (fs.size === 0) return list;
  const has = (n: string): boolean => fs.has(n);
  const map = (type: string, edit: (e: Json) => Json): void => {
    list = list.map((w) => (typeOf(w) === type ? { ...w, event: edit({ ...w.event }) } : w));
  };
  const terminal = (edit: (r: Json) => void): void => {
    list = list.map((w) => {
      if (!TERMINAL.has(String(typeOf(w)))) return w;
      const response = structuredClone(w.event['response']) as Json;
      edit(response);
      return { ...w, event: { ...w.event, response } };
    });
  };
  if (has('responses-stream-no-created')) list = renumber(list.filter((w) => typeOf(w) !== 'response.created'));
  if (has('responses-stream-no-in-progress')) list = renumber(list.filter((w) => typeOf(w) !== 'response.in_progress'));
  if (has('responses-stream-vendor-event')) {
    const at = list.findIndex((w) => typeOf(w) === 'response.in_progress') + 1;
    list = renumber([...list.slice(0, at), { event: { type: 'response.prompt_progress', processed_tokens: plan.usage['input_tokens'], total_tokens: plan.usage['input_tokens'] } }, ...list.slice(at)]);
  }
  if (has('responses-stream-sequence-repeats')) map('response.output_text.delta', (e) => ({ ...e, sequence_number: (e['sequence_number'] as number) - 1 }));
  if (has('responses-stream-output-index-shifted')) map('response.output_text.delta', (e) => ({ ...e, output_index: (e['output_index'] as number) + 1 }));
  if (has('responses-stream-item-id-changes')) map('response.output_text.delta', (e) => ({ ...e, item_id: `${String(e['item_id'])}_other` }));
  if (has('responses-stream-done-text-differs')) {
    map('response.output_text.done', (e) => {
      const pieces = plan.items.find((i) => i.id === e['item_id'])?.pieces ?? [];
      return { ...e, text: pieces.length > 1 ? pieces.slice(0, -1).join('') : `${String(e['text'])}.` };
    });
  }
  if (has('responses-stream-arguments-done-differs')) map('response.function_call_arguments.done', (e) => ({ ...e, arguments: e['arguments'] === '{}' ? '{"x":1}' : '{}' }));
  if (has('responses-stream-item-not-done')) list = renumber(list.filter((w) => !(typeOf(w) === 'response.output_item.done' && (w.event['item'] as Json)['type'] === 'message')));
  if (has('responses-stream-completed-output-empty')) terminal((r) => { r['output'] = []; });
  if (has('responses-stream-completed-no-usage')) terminal((r) => { r['usage'] = null; });
  if (has('responses-stream-no-terminal')) list = list.filter((w) => !TERMINAL.has(String(typeOf(w))));
  if (has('responses-stream-event-after-terminal')) {
    const last = list[list.length - 1] as WrittenEvent;
    list = [...list, { event: { ...last.event, sequence_number: list.length } }];
  }
  return list;
}

/**
 * The paced events of the stream: each delta at the time (and with the tokens) of the chat piece it
 * carries, an item's opening events with its first piece, its closing ones with its last.
 */
export function streamOf(plan: PlannedResponse, g: Generated, fs: ReadonlySet<string>): StreamEvent[] {
  const list = faultedEvents(plan, fs);
  const message = g.text.length > 0 || g.calls.length === 0 ? 1 : 0;
  const piecesOf = (item: number): Piece[] => (item < message ? g.text : (g.calls[item - message]?.args ?? []));
  const frame = fs.has('legal-responses-data-only') ? (e: Json): string => `data: ${JSON.stringify(e)}\n\n` : sseFrame;
  const out: StreamEvent[] = [];
  const opened = new Set<number>();
  for (const w of list) {
    const type = String(typeOf(w));
    let atMs = TERMINAL.has(type) ? g.lastAtMs : g.firstAtMs;
    let tokens = 0;
    const e: StreamEvent = { atMs, data: frame(w.event), tokens, content: false };
    if (w.item !== undefined) {
      const pieces = piecesOf(w.item);
      const call = w.item - message;
      if (w.piece !== undefined) {
        const p = pieces[w.piece];
        atMs = p?.atMs ?? atMs;
        tokens = p?.tokens ?? 0;
        e.text = p?.text ?? '';
        e.choice = 0;
        if (call >= 0) e.call = call;
      } else if (type.endsWith('.done')) atMs = pieces[pieces.length - 1]?.atMs ?? g.calls[call]?.atMs ?? atMs;
      else {
        atMs = g.calls[call]?.atMs ?? pieces[0]?.atMs ?? atMs;
        // The call's name is generated with its head: its tokens come with the item's announcement.
        if (call >= 0 && type === 'response.output_item.added' && !opened.has(w.item)) tokens = g.calls[call]?.nameTokens ?? 0;
      }
      opened.add(w.item);
    }
    e.atMs = atMs;
    e.tokens = tokens;
    e.content = tokens > 0;
    out.push(e);
  }
  if (fs.has('responses-stream-comment-as-data')) out.splice(1, 0, { atMs: g.firstAtMs, data: 'data: : keep-alive\n\n', tokens: 0, content: false });
  if (fs.has('responses-stream-done-sentinel')) out.push({ atMs: g.lastAtMs, data: 'data: [DONE]\n\n', tokens: 0, content: false });
  // Events are written in time order; a fault's rearranging never moves one before the one it follows.
  for (let i = 1; i < out.length; i++) if ((out[i] as StreamEvent).atMs < (out[i - 1] as StreamEvent).atMs) (out[i] as StreamEvent).atMs = (out[i - 1] as StreamEvent).atMs;
  return out;
}
