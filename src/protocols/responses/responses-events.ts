/**
 * The grammar of a streamed response (POST /v1/responses with stream true), written down once.
 * Sources: OpenAI API reference, "Streaming events" (https://platform.openai.com/docs/api-reference/responses-streaming),
 * and the reference client that reads it, openai-node 6.49 (`ResponseStreamEvent` in
 * resources/responses/responses.d.ts; lib/responses/ResponseAccumulator.js, which folds the
 * events into the Response a caller gets from `responses.stream().finalResponse()`).
 *
 *   stream   := created in_progress? item* terminal
 *   created  := response.created {response: a snapshot, status in_progress|queued, output []}
 *   item     := output_item.added {output_index: next index, item}
 *               ( part | arguments | other-item-event )*
 *               output_item.done {output_index, item: the whole item}
 *   part     := content_part.added {item_id, output_index, content_index: next index, part}
 *               output_text.delta* output_text.done {text: the deltas joined}
 *               content_part.done {part: the whole part}
 *   arguments:= function_call_arguments.delta* function_call_arguments.done {arguments: the deltas joined}
 *   terminal := response.completed | response.incomplete | response.failed {response: the whole response}
 *
 * Every event is one SSE event whose data is a JSON object with `type` and `sequence_number`
 * (0, 1, 2 ... in stream order); OpenAI also names it in an `event:` line and sends no `[DONE]`.
 */

/** The snapshots of the response as it starts. */
export const SNAPSHOT_EVENTS = ['response.created', 'response.in_progress', 'response.queued'] as const;
/** The events that end a stream, each carrying the whole response. */
export const TERMINAL_EVENTS = ['response.completed', 'response.incomplete', 'response.failed'] as const;
export type TerminalEvent = (typeof TERMINAL_EVENTS)[number];

/** The status a terminal event's response carries. */
export const terminalStatus: Readonly<Record<TerminalEvent, string>> = {
  'response.completed': 'completed',
  'response.incomplete': 'incomplete',
  'response.failed': 'failed',
};

/**
 * Every event type openai-node 6.49 knows (the `ResponseStreamEvent` union, plus `keepalive`, which
 * its accumulator skips). Any other type makes its `responses.stream()` throw "Unhandled response
 * stream event" (ResponseAccumulator.js, assertNever): the documented set is the contract.
 */
export const DOCUMENTED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'error',
  'keepalive',
  'response.audio.delta',
  'response.audio.done',
  'response.audio.transcript.delta',
  'response.audio.transcript.done',
  'response.code_interpreter_call.completed',
  'response.code_interpreter_call.in_progress',
  'response.code_interpreter_call.interpreting',
  'response.code_interpreter_call_code.delta',
  'response.code_interpreter_call_code.done',
  'response.completed',
  'response.content_part.added',
  'response.content_part.done',
  'response.created',
  'response.custom_tool_call_input.delta',
  'response.custom_tool_call_input.done',
  'response.failed',
  'response.file_search_call.completed',
  'response.file_search_call.in_progress',
  'response.file_search_call.searching',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'response.image_generation_call.completed',
  'response.image_generation_call.generating',
  'response.image_generation_call.in_progress',
  'response.image_generation_call.partial_image',
  'response.in_progress',
  'response.incomplete',
  'response.mcp_call.completed',
  'response.mcp_call.failed',
  'response.mcp_call.in_progress',
  'response.mcp_call_arguments.delta',
  'response.mcp_call_arguments.done',
  'response.mcp_list_tools.completed',
  'response.mcp_list_tools.failed',
  'response.mcp_list_tools.in_progress',
  'response.output_item.added',
  'response.output_item.done',
  'response.output_text.annotation.added',
  'response.output_text.delta',
  'response.output_text.done',
  'response.queued',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.delta',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.delta',
  'response.reasoning_text.done',
  'response.refusal.delta',
  'response.refusal.done',
  'response.web_search_call.completed',
  'response.web_search_call.in_progress',
  'response.web_search_call.searching',
]);

/** Events that carry generated text of the answer, by the member that holds it. */
export const TEXT_DELTA = 'response.output_text.delta';
export const TEXT_DONE = 'response.output_text.done';
export const ARGUMENTS_DELTA = 'response.function_call_arguments.delta';
export const ARGUMENTS_DONE = 'response.function_call_arguments.done';
/** Reasoning text streamed before the answer (timed as its own kind, not as output). */
export const REASONING_DELTAS: ReadonlySet<string> = new Set(['response.reasoning_text.delta', 'response.reasoning_summary_text.delta']);
