import type { RuleTable } from '../protocol.ts';

/**
 * Every rule code the Responses checkers can report: what the format expects (one line) and the
 * requirement it decides. Grades are the registry's (spec/requirements.yaml).
 */
export const responsesRules = {
  // The Response object (a 200 answer, a retrieved response, a terminal event's response)
  'body-invalid': { requirement: 'RESP-001', expects: 'the answer is a JSON object' },
  'id-invalid': { requirement: 'RESP-001', expects: 'id is a non-empty string' },
  'object-wrong': { requirement: 'RESP-002', expects: 'object is "response"' },
  'created-at-invalid': { requirement: 'RESP-001', expects: 'created_at is integer Unix seconds' },
  'model-invalid': { requirement: 'RESP-001', expects: 'model is a non-empty string' },
  'output-invalid': { requirement: 'RESP-001', expects: 'output is an array of output items' },
  'item-invalid': { requirement: 'RESP-003', expects: 'every output item has a type; a message has id, role "assistant" and content parts, an output_text part a string text; a function_call has call_id, name and string arguments' },
  'status-invalid': { requirement: 'RESP-005', expects: 'status is completed, incomplete, failed, in_progress, queued or cancelled' },
  'incomplete-details-missing': { requirement: 'RESP-005', expects: 'an incomplete response says why in incomplete_details.reason' },
  'cut-as-completed': { requirement: 'RESP-005', expects: 'a response cut at max_output_tokens has status incomplete, not completed' },
  'output-over-bound': { requirement: 'RESP-006', expects: 'usage.output_tokens is at most max_output_tokens' },
  'usage-missing': { requirement: 'RESP-004', expects: 'usage is an object with input_tokens, output_tokens and total_tokens' },
  'usage-counts': { requirement: 'RESP-004', expects: 'usage counts are integers >= 0 and total_tokens = input_tokens + output_tokens' },
  'metadata-not-echoed': { requirement: 'RESP-012', expects: 'the response carries the metadata the request attached' },
  // The stream, event by event
  'framing-invalid': { requirement: 'RESP-STREAM-001', expects: 'the stream is well-formed UTF-8 server-sent events that end after a complete event' },
  'event-invalid': { requirement: 'RESP-STREAM-001', expects: 'every event data is a JSON object with a string type' },
  'created-not-first': { requirement: 'RESP-STREAM-002', expects: 'the first event is response.created' },
  'snapshot-invalid': { requirement: 'RESP-STREAM-002', expects: 'response.created and response.in_progress carry a response with an id and an output array' },
  'in-progress-missing': { requirement: 'RESP-STREAM-003', expects: 'response.in_progress follows response.created' },
  'sequence-invalid': { requirement: 'RESP-STREAM-004', expects: 'sequence_number is 0 on the first event and grows by 1 with every event' },
  'output-index-invalid': { requirement: 'RESP-STREAM-005', expects: 'an event names an output_index announced by response.output_item.added (the next index when added), of the kind the event is about' },
  'content-index-invalid': { requirement: 'RESP-STREAM-005', expects: 'an event names a content_index announced by response.content_part.added (the next index when added)' },
  'item-id-mismatch': { requirement: 'RESP-STREAM-006', expects: 'item_id and the done item\'s id are the id of the item announced at that output_index' },
  'item-not-done': { requirement: 'RESP-STREAM-007', expects: 'every added output item gets its response.output_item.done before the terminal event' },
  'part-not-done': { requirement: 'RESP-STREAM-007', expects: 'every added content part gets its response.content_part.done before its item is done' },
  'text-mismatch': { requirement: 'RESP-STREAM-008', expects: 'the output_text deltas of a part join to its output_text.done text, its content_part.done part and its done item' },
  'arguments-mismatch': { requirement: 'RESP-STREAM-008', expects: 'the function_call_arguments deltas of an item join to its function_call_arguments.done and its done item' },
  'terminal-missing': { requirement: 'RESP-STREAM-009', expects: 'the stream ends with response.completed, response.incomplete or response.failed' },
  'after-terminal': { requirement: 'RESP-STREAM-010', expects: 'nothing follows the terminal event (one terminal event per stream)' },
  'terminal-status-mismatch': { requirement: 'RESP-STREAM-011', expects: 'the terminal event\'s response has the status the event names' },
  'terminal-output-mismatch': { requirement: 'RESP-STREAM-011', expects: 'the terminal event\'s response holds the output items streamed, with their text and arguments' },
  'terminal-response-invalid': { requirement: 'RESP-STREAM-011', expects: 'the terminal event\'s response is a whole Response object' },
  'response-id-changed': { requirement: 'RESP-STREAM-011', expects: 'every snapshot and the terminal response carry the same response id' },
  'terminal-usage-missing': { requirement: 'RESP-STREAM-012', expects: 'the terminal event\'s response carries usage with integer counts, total = input + output' },
  'vendor-event': { requirement: 'RESP-STREAM-013', expects: 'every event type is one OpenAI documents (openai-node knows)' },
  'done-sentinel': { requirement: 'RESP-STREAM-014', expects: 'no data: [DONE] (OpenAI ends a Responses stream with its terminal event)' },
  'event-line-missing': { requirement: 'RESP-STREAM-014', expects: 'each event names its type in an event: line equal to data.type' },
  // Stored state
  'stored-differs': { requirement: 'RESP-STATE-001', expects: 'a retrieved response is the response created: same id, status and output' },
} as const satisfies RuleTable;

export type ResponsesRuleCode = keyof typeof responsesRules;
export const responsesRuleCodes = Object.keys(responsesRules) as ResponsesRuleCode[];

/** The requirement a rule decides. */
export const requirementOfResponsesRule = (rule: ResponsesRuleCode): string => responsesRules[rule].requirement;

const range = (area: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${area}-${String(i + 1).padStart(3, '0')}`);

/** The client operations on the Responses API: openai-node's and openai-python's (src/checks/areas/clients-*-responses.ts), the Agents SDK's (clients-agents.ts), Codex CLI's (clients-codex.ts). */
export const responsesClientIds: readonly string[] = range('CLIENT-RESP', 11);
/** The requirements of the Responses API judged where the server serves POST /v1/responses (capability responses), its client operations included. */
export const responsesRequirementIds: readonly string[] = [...range('RESP', 14), ...range('RESP-STREAM', 14), 'RESP-STATE-005', ...responsesClientIds];
/** The requirements of stored responses, judged where the server takes previous_response_id (capability responses-state). */
export const responsesStateRequirementIds: readonly string[] = range('RESP-STATE', 7).filter((id) => id !== 'RESP-STATE-005');

/** One rule broken, with where: a JSON pointer into the body or event, and (streams) the byte offset and event index. */
export interface ResponsesFinding {
  rule: ResponsesRuleCode;
  message: string;
  pointer: string;
  expected?: unknown;
  received?: unknown;
  byteOffset?: number;
  eventIndex?: number;
}
