/**
 * Every rule code the Responses checkers can report, with what the format expects (one line).
 * Codes only: the requirement each decides and its grade live in the registry
 * (src/checks/registry/responses-rule-ids.ts and spec/requirements.yaml).
 */
export const responsesRules = {
  // The Response object (a 200 answer, a retrieved response, a terminal event's response)
  'body-invalid': 'the answer is a JSON object',
  'id-invalid': 'id is a non-empty string',
  'object-wrong': 'object is "response"',
  'created-at-invalid': 'created_at is integer Unix seconds',
  'model-invalid': 'model is a non-empty string',
  'output-invalid': 'output is an array of output items',
  'item-invalid': 'every output item has a type; a message has id, role "assistant" and content parts, an output_text part a string text; a function_call has call_id, name and string arguments',
  'status-invalid': 'status is completed, incomplete, failed, in_progress, queued or cancelled',
  'incomplete-details-missing': 'an incomplete response says why in incomplete_details.reason',
  'cut-as-completed': 'a response cut at max_output_tokens has status incomplete, not completed',
  'output-over-bound': 'usage.output_tokens is at most max_output_tokens',
  'usage-missing': 'usage is an object with input_tokens, output_tokens and total_tokens',
  'usage-counts': 'usage counts are integers >= 0 and total_tokens = input_tokens + output_tokens',
  'metadata-not-echoed': 'the response carries the metadata the request attached',
  // The stream, event by event
  'framing-invalid': 'the stream is well-formed UTF-8 server-sent events that end after a complete event',
  'event-invalid': 'every event data is a JSON object with a string type',
  'created-not-first': 'the first event is response.created',
  'snapshot-invalid': 'response.created and response.in_progress carry a response with an id and an output array',
  'in-progress-missing': 'response.in_progress follows response.created',
  'sequence-invalid': 'sequence_number is 0 on the first event and grows by 1 with every event',
  'output-index-invalid': 'an event names an output_index announced by response.output_item.added (the next index when added), of the kind the event is about',
  'content-index-invalid': 'an event names a content_index announced by response.content_part.added (the next index when added)',
  'item-id-mismatch': 'item_id and the done item\'s id are the id of the item announced at that output_index',
  'item-not-done': 'every added output item gets its response.output_item.done before the terminal event',
  'part-not-done': 'every added content part gets its response.content_part.done before its item is done',
  'text-mismatch': 'the output_text deltas of a part join to its output_text.done text, its content_part.done part and its done item',
  'arguments-mismatch': 'the function_call_arguments deltas of an item join to its function_call_arguments.done and its done item',
  'terminal-missing': 'the stream ends with response.completed, response.incomplete or response.failed',
  'after-terminal': 'nothing follows the terminal event (one terminal event per stream)',
  'terminal-status-mismatch': 'the terminal event\'s response has the status the event names',
  'terminal-output-mismatch': 'the terminal event\'s response holds the output items streamed, with their text and arguments',
  'terminal-response-invalid': 'the terminal event\'s response is a whole Response object',
  'response-id-changed': 'every snapshot and the terminal response carry the same response id',
  'terminal-usage-missing': 'the terminal event\'s response carries usage with integer counts, total = input + output',
  'vendor-event': 'every event type is one OpenAI documents (openai-node knows)',
  'done-sentinel': 'no data: [DONE] (OpenAI ends a Responses stream with its terminal event)',
  'event-line-missing': 'each event names its type in an event: line equal to data.type',
  // Stored state
  'stored-differs': 'a retrieved response is the response created: same id, status and output',
} as const satisfies Record<string, string>;

export type ResponsesRuleCode = keyof typeof responsesRules;
export const responsesRuleCodes = Object.keys(responsesRules) as ResponsesRuleCode[];

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
