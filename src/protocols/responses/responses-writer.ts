import type { Json } from './responses-body.ts';

/**
 * Writes a Response and its stream by the grammar of responses-events.ts, as OpenAI sends them:
 * one writer for the mock and for the tests' generated streams.
 */

export type PlannedItem =
  | { kind: 'message'; id: string; pieces: readonly string[] }
  | { kind: 'function_call'; id: string; callId: string; name: string; pieces: readonly string[] };

export interface PlannedResponse {
  /** The members every snapshot carries (id, object, created_at, model, instructions, tools, metadata ...), without status, output and usage. */
  base: Json;
  items: readonly PlannedItem[];
  status: 'completed' | 'incomplete';
  /** Compat, incomplete_details.reason: "max_output_tokens" or "content_filter". */
  incompleteReason?: string;
  usage: Json;
  completedAt: number;
}

/** One event in stream order, with the item and piece it carries (pieces are what the mock paces). */
export interface WrittenEvent {
  event: Json;
  item?: number;
  piece?: number;
}

export function outputItem(item: PlannedItem, status: 'in_progress' | 'completed' | 'incomplete', whole: boolean): Json {
  const text = whole ? item.pieces.join('') : '';
  if (item.kind === 'message') {
    return { id: item.id, type: 'message', status, role: 'assistant', content: whole ? [outputText(text)] : [] };
  }
  return { id: item.id, type: 'function_call', status, call_id: item.callId, name: item.name, arguments: text };
}

function outputText(text: string): Json {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** The whole Response: a 200 answer, a stored response, a terminal event's. */
export function finalResponse(plan: PlannedResponse): Json {
  const itemStatus = plan.status === 'completed' ? 'completed' : 'incomplete';
  return {
    ...plan.base,
    status: plan.status,
    completed_at: plan.status === 'completed' ? plan.completedAt : null,
    incomplete_details: plan.status === 'incomplete' ? { reason: plan.incompleteReason ?? 'max_output_tokens' } : null,
    output: plan.items.map((i) => outputItem(i, itemStatus, true)),
    usage: plan.usage,
  };
}

/** The snapshot of a response in progress (response.created, response.in_progress). */
export function snapshotResponse(plan: PlannedResponse): Json {
  return { ...plan.base, status: 'in_progress', completed_at: null, incomplete_details: null, output: [], usage: null };
}

/** Every event of the stream, sequence numbers from 0, ending with response.completed (or .incomplete). */
export function streamEvents(plan: PlannedResponse): WrittenEvent[] {
  const out: WrittenEvent[] = [];
  const push = (event: Json, item?: number, piece?: number): void => {
    out.push({ event: { ...event, sequence_number: out.length }, ...(item === undefined ? {} : { item }), ...(piece === undefined ? {} : { piece }) });
  };
  push({ type: 'response.created', response: snapshotResponse(plan) });
  push({ type: 'response.in_progress', response: snapshotResponse(plan) });
  const itemStatus = plan.status === 'completed' ? 'completed' : 'incomplete';
  plan.items.forEach((item, i) => {
    push({ type: 'response.output_item.added', output_index: i, item: outputItem(item, 'in_progress', false) }, i);
    const text = item.pieces.join('');
    if (item.kind === 'message') {
      const at = { item_id: item.id, output_index: i, content_index: 0 };
      push({ type: 'response.content_part.added', ...at, part: outputText('') }, i);
      item.pieces.forEach((delta, k) => push({ type: 'response.output_text.delta', ...at, delta, logprobs: [] }, i, k));
      push({ type: 'response.output_text.done', ...at, text, logprobs: [] }, i);
      push({ type: 'response.content_part.done', ...at, part: outputText(text) }, i);
    } else {
      const at = { item_id: item.id, output_index: i };
      item.pieces.forEach((delta, k) => push({ type: 'response.function_call_arguments.delta', ...at, delta }, i, k));
      push({ type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: text }, i);
    }
    push({ type: 'response.output_item.done', output_index: i, item: outputItem(item, itemStatus, true) }, i);
  });
  push({ type: plan.status === 'completed' ? 'response.completed' : 'response.incomplete', response: finalResponse(plan) });
  return out;
}

/** One event in OpenAI's framing: its type in an event: line, then its data. */
export function sseFrame(event: Json): string {
  return `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`;
}
