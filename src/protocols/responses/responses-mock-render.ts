// How the bundled mock writes a generated answer as a Response or its event stream: the plan of
// the mock's generator (text, or function calls, each a list of timed pieces) in the Responses
// format, with the Responses faults (responses-mock-faults.ts) applied.
import type { AnswerPlan, AnswerRenderer, GenerationAsk, RenderContext, WireEvent } from '../protocol-mock.ts';
import { finalResponse, sseFrame, streamEvents, type PlannedItem, type PlannedResponse, type WrittenEvent } from './responses-writer.ts';
import { isRecord, type Json } from './responses-body.ts';

/** The ids of one answer, from the id the mock gave it: resp_, msg_ and fc_ share its tail. */
function ids(ctx: RenderContext): { response: string; message: string; call: (k: number) => string } {
  const tail = ctx.id.slice(ctx.id.indexOf('-') + 1);
  return { response: `resp_${tail}`, message: `msg_${tail}`, call: (k) => `fc_${tail}${k}` };
}

export function responseIdOf(ctx: RenderContext): string {
  return ids(ctx).response;
}

/** A stateless server (the legal mode, or the fault built on it). */
export function stateless(fs: ReadonlySet<string>): boolean {
  return fs.has('legal-responses-stateless') || fs.has('responses-stateless-refusal-unnamed');
}

/** The members every snapshot carries, from the request as received. */
function baseOf(ask: GenerationAsk, ctx: RenderContext): Json {
  const r = ask.raw;
  const tools = Array.isArray(r['tools']) ? (r['tools'] as unknown[]).filter((t) => isRecord(t) && t['type'] === 'function') : [];
  const metadata = isRecord(r['metadata']) ? r['metadata'] : {};
  return {
    id: ids(ctx).response,
    object: 'response',
    created_at: ctx.created,
    model: ctx.model,
    error: null,
    instructions: typeof r['instructions'] === 'string' ? r['instructions'] : null,
    max_output_tokens: typeof r['max_output_tokens'] === 'number' ? r['max_output_tokens'] : null,
    metadata: ctx.faults.has('responses-metadata-dropped') ? null : metadata,
    parallel_tool_calls: r['parallel_tool_calls'] !== false,
    previous_response_id: typeof r['previous_response_id'] === 'string' ? r['previous_response_id'] : null,
    store: r['store'] !== false && !stateless(ctx.faults),
    temperature: typeof r['temperature'] === 'number' ? r['temperature'] : 1,
    text: { format: { type: 'text' } },
    tool_choice: r['tool_choice'] ?? 'auto',
    tools: tools.map((t) => ({ strict: false, description: null, ...(t as Json) })),
    top_p: 1,
    truncation: 'disabled',
  };
}

/** The Response the plan makes: its items, status (incomplete where the bound cut it) and usage. */
export function plannedResponse(plan: AnswerPlan, ask: GenerationAsk, ctx: RenderContext): PlannedResponse {
  const choice = plan.choices[0];
  const id = ids(ctx);
  const items: PlannedItem[] = [];
  if (choice === undefined || choice.toolCalls.length === 0) items.push({ kind: 'message', id: id.message, pieces: (choice?.pieces ?? []).map((p) => p.text) });
  choice?.toolCalls.forEach((c, k) => items.push({ kind: 'function_call', id: id.call(k), callId: c.id, name: c.name, pieces: c.argPieces.map((p) => p.text) }));
  // Compat: a response cut at max_output_tokens is "incomplete" with incomplete_details.reason "max_output_tokens".
  const bound = ask.raw['max_output_tokens'];
  const cut = choice?.finishReason === 'length' || (typeof bound === 'number' && plan.completionTokens >= bound);
  const status = cut && !ctx.faults.has('responses-incomplete-as-completed') ? 'incomplete' : 'completed';
  return {
    base: baseOf(ask, ctx),
    items,
    status,
    ...(status === 'incomplete' ? { incompleteReason: 'max_output_tokens' } : {}),
    usage: {
      input_tokens: plan.promptTokens,
      input_tokens_details: { cached_tokens: plan.cachedTokens ?? 0 },
      output_tokens: plan.completionTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: plan.promptTokens + plan.completionTokens,
    },
    completedAt: ctx.created,
  };
}

/** A non-streamed answer, with the body faults. */
function answerBody(planned: PlannedResponse, fs: ReadonlySet<string>): Json {
  const body = finalResponse(planned);
  if (fs.size === 0) return body;
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
const typeOf = (w: WrittenEvent): string => String(w.event['type']);
const TERMINAL = new Set(['response.completed', 'response.incomplete']);

/** The events of the stream with the stream faults applied (before framing). */
function faultedEvents(planned: PlannedResponse, fs: ReadonlySet<string>): WrittenEvent[] {
  let list = streamEvents(planned);
  if (fs.size === 0) return list;
  const has = (n: string): boolean => fs.has(n);
  const map = (type: string, edit: (e: Json) => Json): void => {
    list = list.map((w) => (typeOf(w) === type ? { ...w, event: edit({ ...w.event }) } : w));
  };
  const terminal = (edit: (r: Json) => void): void => {
    list = list.map((w) => {
      if (!TERMINAL.has(typeOf(w))) return w;
      const response = structuredClone(w.event['response']) as Json;
      edit(response);
      return { ...w, event: { ...w.event, response } };
    });
  };
  if (has('responses-stream-no-created')) list = renumber(list.filter((w) => typeOf(w) !== 'response.created'));
  if (has('responses-stream-no-in-progress')) list = renumber(list.filter((w) => typeOf(w) !== 'response.in_progress'));
  if (has('responses-stream-vendor-event')) {
    const at = list.findIndex((w) => typeOf(w) === 'response.in_progress') + 1;
    list = renumber([...list.slice(0, at), { event: { type: 'response.prompt_progress', processed_tokens: planned.usage['input_tokens'], total_tokens: planned.usage['input_tokens'] } }, ...list.slice(at)]);
  }
  if (has('responses-stream-sequence-repeats')) map('response.output_text.delta', (e) => ({ ...e, sequence_number: (e['sequence_number'] as number) - 1 }));
  if (has('responses-stream-output-index-shifted')) map('response.output_text.delta', (e) => ({ ...e, output_index: (e['output_index'] as number) + 1 }));
  if (has('responses-stream-item-id-changes')) map('response.output_text.delta', (e) => ({ ...e, item_id: `${String(e['item_id'])}_other` }));
  if (has('responses-stream-done-text-differs')) {
    map('response.output_text.done', (e) => {
      const pieces = planned.items.find((i) => i.id === e['item_id'])?.pieces ?? [];
      return { ...e, text: pieces.length > 1 ? pieces.slice(0, -1).join('') : `${String(e['text'])}.` };
    });
  }
  if (has('responses-stream-arguments-done-differs')) map('response.function_call_arguments.done', (e) => ({ ...e, arguments: e['arguments'] === '{}' ? '{"x":1}' : '{}' }));
  if (has('responses-stream-item-not-done')) list = renumber(list.filter((w) => !(typeOf(w) === 'response.output_item.done' && (w.event['item'] as Json)['type'] === 'message')));
  if (has('responses-stream-completed-output-empty')) terminal((r) => { r['output'] = []; });
  if (has('responses-stream-completed-no-usage')) terminal((r) => { r['usage'] = null; });
  if (has('responses-stream-no-terminal')) list = list.filter((w) => !TERMINAL.has(typeOf(w)));
  if (has('responses-stream-event-after-terminal')) {
    const last = list[list.length - 1] as WrittenEvent;
    list = [...list, { event: { ...last.event, sequence_number: list.length } }];
  }
  return list;
}

/**
 * The timed units of a plan, one per step: a text answer's pieces; a call's head (its name) and
 * then its argument pieces, call after call.
 */
function units(plan: AnswerPlan): { item: number; piece: number | 'head'; tokens: number; text: string }[] {
  const choice = plan.choices[0];
  if (choice === undefined) return [];
  if (choice.toolCalls.length === 0) return choice.pieces.map((p, k) => ({ item: 0, piece: k, tokens: p.tokens, text: p.text }));
  return choice.toolCalls.flatMap((c, k) => [{ item: k, piece: 'head' as const, tokens: c.nameTokens, text: '' }, ...c.argPieces.map((p, j) => ({ item: k, piece: j, tokens: p.tokens, text: p.text }))]);
}

/**
 * The paced events of the stream: each delta at the time (and with the tokens) of the piece it
 * carries, an item's opening events with its first step, its closing ones with its last.
 */
function streamOf(plan: AnswerPlan, planned: PlannedResponse, fs: ReadonlySet<string>, times: readonly number[]): WireEvent[] {
  const steps = units(plan);
  const calls = (plan.choices[0]?.toolCalls.length ?? 0) > 0;
  const stepOf = new Map(steps.map((u, s) => [`${u.item}/${u.piece}`, s]));
  const lastStep = Math.max(0, steps.length - 1);
  const timeOf = (s: number): number => times[Math.min(s, times.length - 1)] ?? 0;
  const firstOf = (item: number): number => stepOf.get(calls ? `${item}/head` : `${item}/0`) ?? 0;
  const lastOf = (item: number): number => {
    const pieces = planned.items[item]?.pieces.length ?? 0;
    return pieces > 0 ? (stepOf.get(`${item}/${pieces - 1}`) ?? firstOf(item)) : firstOf(item);
  };
  const frame = fs.has('legal-responses-data-only') ? (e: Json): string => `data: ${JSON.stringify(e)}\n\n` : sseFrame;
  const out: WireEvent[] = [];
  for (const w of faultedEvents(planned, fs)) {
    const type = typeOf(w);
    const e: WireEvent = { atMs: TERMINAL.has(type) ? timeOf(lastStep) : timeOf(0), data: frame(w.event), tokens: 0, content: false };
    if (w.item !== undefined) {
      if (w.piece !== undefined) {
        const s = stepOf.get(`${w.item}/${w.piece}`) ?? 0;
        const u = steps[s];
        e.atMs = timeOf(s);
        e.tokens = u?.tokens ?? 0;
        e.text = u?.text ?? '';
        e.choice = 0;
        if (calls) e.call = w.item;
      } else if (type.endsWith('.done')) e.atMs = timeOf(lastOf(w.item));
      else {
        e.atMs = timeOf(firstOf(w.item));
        // A call's name is generated with its head: its tokens come with the item's announcement.
        if (calls && type === 'response.output_item.added') e.tokens = steps[firstOf(w.item)]?.tokens ?? 0;
      }
    }
    e.content = e.tokens > 0;
    out.push(e);
  }
  if (fs.has('responses-stream-comment-as-data')) out.splice(1, 0, { atMs: timeOf(0), data: 'data: : keep-alive\n\n', tokens: 0, content: false });
  if (fs.has('responses-stream-done-sentinel')) out.push({ atMs: timeOf(lastStep), data: 'data: [DONE]\n\n', tokens: 0, content: false });
  // Written in time order: a fault's rearranging never moves an event before the one it follows.
  for (let i = 1; i < out.length; i++) if ((out[i] as WireEvent).atMs < (out[i - 1] as WireEvent).atMs) (out[i] as WireEvent).atMs = (out[i - 1] as WireEvent).atMs;
  return out;
}

export const responsesRenderer: AnswerRenderer = {
  steps: (plan) => Math.max(1, units(plan).length),
  whole: (plan, ask, ctx) => JSON.stringify(answerBody(plannedResponse(plan, ask, ctx), ctx.faults)),
  stream: (plan, ask, ctx, times) => streamOf(plan, plannedResponse(plan, ask, ctx), ctx.faults, times),
  failure(at, errorBody) {
    if (errorBody === null) return [];
    // Compat, Streaming events: an error after the stream started is an `error` event {type, code, message, param}.
    const error = (JSON.parse(errorBody) as { error?: Json }).error ?? {};
    return [{ atMs: at, data: sseFrame({ type: 'error', code: error['code'] ?? null, message: error['message'] ?? 'error', param: error['param'] ?? null }), tokens: 0, content: false }];
  },
};
