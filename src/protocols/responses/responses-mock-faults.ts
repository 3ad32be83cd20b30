// The mock's faults of POST/GET/DELETE /v1/responses (issue 36), one behaviour each, and the
// Responses legal modes. Each names the requirements a correct `iari test` must fail under it
// (spec/requirements.yaml RESP, RESP-STREAM, RESP-STATE); the real server each copies is in its description.
import type { MockFault } from '../protocol-mock.ts';

const f = (name: string, breaks: string[], description: string): MockFault => ({ name, kind: 'fault', breaks, description });
const legal = (name: string, exercises: string[], description: string): MockFault => ({ name, kind: 'legal', breaks: [], exercises, description });
const range = (area: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${area}-${String(i + 1).padStart(3, '0')}`);

export const RESP_IDS = range('RESP', 14);
export const RESP_STREAM_IDS = range('RESP-STREAM', 14);
export const RESP_STATE_IDS = range('RESP-STATE', 7);

export const responsesFaults: readonly MockFault[] = [
  { ...f('responses-missing', [...RESP_IDS, ...RESP_STREAM_IDS, ...RESP_STATE_IDS], 'POST /v1/responses is not served (404 unknown_url), as on a chat-only server (legal by default; fails under --expect responses).'), expect: ['responses', 'responses-state'] },
  // The Response object
  f('responses-output-missing', ['RESP-001'], 'A non-streamed response has no output member (openai-node walks output to build output_text).'),
  f('responses-object-wrong', ['RESP-002'], 'A non-streamed response has object "responses".'),
  f('responses-content-string', ['RESP-003'], 'A message item carries its text as a plain string content, as chat does, instead of output_text parts.'),
  f('responses-usage-chat-names', ['RESP-004'], 'usage carries chat\'s prompt_tokens and completion_tokens instead of input_tokens and output_tokens (a shim copying chat usage).'),
  f('responses-incomplete-as-completed', ['RESP-005'], 'A response cut at max_output_tokens says status completed, incomplete_details null (SGLang\'s gpt-oss path, sglang PR #29325 review).'),
  f('responses-max-output-tokens-ignored', ['RESP-006'], 'max_output_tokens is ignored: the answer runs to its natural length.'),
  // The request
  f('responses-input-items-rejected', ['RESP-007'], 'An input list holding an assistant message (a multi-turn conversation) is refused with 400, as vLLM does at the second request of Codex and opencode (vllm#33089, #45273).'),
  f('responses-input-last-only', ['RESP-008'], 'Only the last input item reaches the model: the earlier turns of an input list are dropped.'),
  f('responses-instructions-ignored', ['RESP-008'], 'instructions never reach the model.'),
  f('responses-tools-nested-only', ['RESP-009'], 'Function tools in the flat form are refused with 400 naming tools[0].function: the server reads chat\'s nested {"function": {...}} form only.'),
  f('responses-tool-choice-ignored', ['RESP-010'], 'tool_choice is ignored: every request with tools is answered as "auto" (a call is made even with "none").'),
  f('responses-replayed-items-rejected', ['RESP-011'], 'An input item given back with the members the server sent (id, status) is refused with 400, as vLLM refused the Agents SDK\'s replayed items (openai-agents-python #1616).'),
  f('responses-metadata-dropped', ['RESP-012'], 'The response carries metadata null whatever the request attached.'),
  f('responses-error-no-envelope', ['RESP-013', 'RESP-STATE-005'], 'A refused Responses request is answered {"detail": "..."} (FastAPI\'s default), not the OpenAI error envelope.'),
  f('responses-error-param-null', ['RESP-014', 'RESP-STATE-005'], 'A refused Responses request names no param (null), whatever member was wrong.'),
  // The stream
  f('responses-stream-comment-as-data', ['RESP-STREAM-001'], 'A keep-alive is sent as data ("data: : keep-alive") after response.created: not JSON.'),
  f('responses-stream-no-created', ['RESP-STREAM-002'], 'The stream begins with response.in_progress: no response.created.'),
  f('responses-stream-no-in-progress', ['RESP-STREAM-003'], 'No response.in_progress follows response.created.'),
  f('responses-stream-sequence-repeats', ['RESP-STREAM-004'], 'Every output_text delta repeats the sequence_number of the event before it (non-monotonic, llama.cpp PR #24957).'),
  f('responses-stream-output-index-shifted', ['RESP-STREAM-005'], 'output_text deltas name output_index + 1, where no item was added.'),
  f('responses-stream-item-id-changes', ['RESP-STREAM-006'], 'output_text deltas carry an item_id unlike the item announced at their output_index.'),
  f('responses-stream-item-not-done', ['RESP-STREAM-007'], 'A message item is never closed by response.output_item.done (Codex records items from output_item.done only).'),
  f('responses-stream-done-text-differs', ['RESP-STREAM-008'], 'response.output_text.done carries the text without its last delta.'),
  f('responses-stream-arguments-done-differs', ['RESP-STREAM-008'], 'response.function_call_arguments.done carries arguments "{}", not the deltas joined.'),
  f('responses-stream-no-terminal', ['RESP-STREAM-009'], 'The stream ends after the last response.output_item.done: no response.completed.'),
  f('responses-stream-event-after-terminal', ['RESP-STREAM-010'], 'response.completed is sent twice.'),
  f('responses-stream-completed-output-empty', ['RESP-STREAM-011'], 'response.completed carries a response whose output is [] (the items were streamed only).'),
  f('responses-stream-completed-no-usage', ['RESP-STREAM-012'], 'response.completed carries usage null.'),
  f('responses-stream-vendor-event', ['RESP-STREAM-013'], 'A vendor event type, response.prompt_progress, is sent after response.in_progress.'),
  f('responses-stream-done-sentinel', ['RESP-STREAM-014'], 'The stream ends with data: [DONE] after its terminal event, as a chat stream does.'),
  // Stored state
  f('responses-store-not-retrievable', ['RESP-STATE-001'], 'A stored response cannot be retrieved: GET /v1/responses/{id} answers 404 (DigitalOcean, gradient-python #96), while previous_response_id finds it.'),
  f('responses-previous-ignored', ['RESP-STATE-002', 'RESP-STATE-004'], 'previous_response_id is accepted, known or not, and ignored: the turn is answered without the earlier context (mlx-vlm #1046).'),
  f('responses-store-false-kept', ['RESP-STATE-003'], 'A response created with store false is kept and retrievable.'),
  f('responses-previous-unknown-accepted', ['RESP-STATE-004'], 'An unknown previous_response_id is ignored (200, no context); known ones are honoured.'),
  f('responses-previous-unknown-param-null', ['RESP-STATE-005'], 'An unknown previous_response_id is refused with 400 naming no param.'),
  f('responses-delete-noop', ['RESP-STATE-006'], 'DELETE /v1/responses/{id} answers deleted: true and keeps the response.'),
  f('responses-store-shared', ['RESP-STATE-007'], 'GET /v1/responses/{id} answers any token\'s stored response, not only its creator\'s.'),
  f('responses-stateless-refusal-unnamed', ['RESP-STATE-005'], 'A stateless server (as legal-responses-stateless) whose refusal of previous_response_id names no param and says only "Bad request".'),
  legal('legal-responses-stateless', ['RESP-STATE-005'], 'A stateless Responses server (llama.cpp, Ollama): nothing is stored, GET and DELETE /v1/responses/{id} are not served (404), previous_response_id is refused with 400 naming it.'),
  legal('legal-responses-data-only', ['RESP-STREAM-014'], 'Responses stream events carry no event: line, only data (the type is in the JSON).'),
];

/** A stateless server: the legal mode or the fault built on it. */
export function stateless(fs: ReadonlySet<string>): boolean {
  return fs.has('legal-responses-stateless') || fs.has('responses-stateless-refusal-unnamed');
}
