/**
 * Every rule the stream checker enforces, with the requirement (spec/requirements.yaml) it
 * decides. Severity follows the registry grade: MUST -> fail, SHOULD -> non-strict,
 * INFO -> informational; `stream-rules.test.ts` keeps this table and the registry in step.
 */
export type StreamSeverity = 'fail' | 'non-strict' | 'informational';
type Grade = 'MUST' | 'SHOULD' | 'INFO';

export interface StreamRule {
  requirementId: string;
  grade: Grade;
  /** What the format expects, one line. */
  expectation: string;
}

export const streamRules = {
  // SSE framing, from the reader
  'invalid-utf8': { requirementId: 'CHAT-STREAM-041', grade: 'MUST', expectation: 'every byte of the event stream is valid UTF-8' },
  'line-too-long': { requirementId: 'CHAT-STREAM-005', grade: 'MUST', expectation: 'lines are of bounded length' },
  'event-too-long': { requirementId: 'CHAT-STREAM-046', grade: 'SHOULD', expectation: 'the data of one event stays within 8 MiB' },
  'json-too-deep': { requirementId: 'HDR-015', grade: 'MUST', expectation: 'JSON nests at most 64 levels deep' },
  'ended-mid-event': { requirementId: 'CHAT-STREAM-002', grade: 'MUST', expectation: 'the stream ends with a complete data: [DONE] event (terminated by an empty line)' },
  'ignored-field': { requirementId: 'CHAT-STREAM-042', grade: 'INFO', expectation: 'unknown fields, a non-digit retry and NUL in id are legal and ignored' },
  'comment-lines': { requirementId: 'CHAT-STREAM-032', grade: 'INFO', expectation: 'comment (keep-alive) lines are legal and ignored' },
  'line-endings': { requirementId: 'CHAT-STREAM-034', grade: 'INFO', expectation: 'CRLF and lone CR line endings are legal' },
  'bom': { requirementId: 'CHAT-STREAM-043', grade: 'INFO', expectation: 'a leading byte order mark is legal and stripped' },
  'split-reads': { requirementId: 'CHAT-STREAM-035', grade: 'INFO', expectation: 'events split across reads are reassembled' },
  'data-no-space': { requirementId: 'CHAT-STREAM-036', grade: 'INFO', expectation: 'data: without a space is legal' },
  'event-field': { requirementId: 'CHAT-STREAM-037', grade: 'SHOULD', expectation: 'chunk events carry no event name (only an error event may be named "error")' },
  'meta-only-event': { requirementId: 'CHAT-STREAM-033', grade: 'SHOULD', expectation: 'no events carrying only id/retry/event fields' },
  // Payloads and the sentinel
  'empty-data': { requirementId: 'CHAT-STREAM-005', grade: 'MUST', expectation: 'every data payload is a JSON object or the literal [DONE]' },
  'non-json-data': { requirementId: 'CHAT-STREAM-005', grade: 'MUST', expectation: 'every data payload is a JSON object or the literal [DONE]' },
  'done-missing': { requirementId: 'CHAT-STREAM-002', grade: 'MUST', expectation: 'the last event is data: [DONE]' },
  'done-not-exact': { requirementId: 'CHAT-STREAM-003', grade: 'MUST', expectation: 'the sentinel is exactly [DONE]' },
  'data-after-done': { requirementId: 'CHAT-STREAM-004', grade: 'MUST', expectation: 'nothing follows [DONE]' },
  'no-chunks': { requirementId: 'CHAT-STREAM-022', grade: 'MUST', expectation: 'at least one JSON chunk before [DONE]' },
  'error-before-chunks': { requirementId: 'CHAT-STREAM-030', grade: 'SHOULD', expectation: 'an error before streaming starts gets a 4xx/5xx status, not a 200 stream' },
  'error-shape': { requirementId: 'CHAT-STREAM-031', grade: 'MUST', expectation: 'an in-stream error is data {"error":{message,type,param,code}}' },
  'chunk-after-error': { requirementId: 'CHAT-STREAM-031', grade: 'MUST', expectation: 'the stream ends after an in-stream error' },
  // Chunk envelope
  'id-invalid': { requirementId: 'CHAT-STREAM-007', grade: 'SHOULD', expectation: 'every chunk has a non-empty string id' },
  'id-changed': { requirementId: 'CHAT-STREAM-008', grade: 'MUST', expectation: 'every chunk has the same id' },
  'object-wrong': { requirementId: 'CHAT-STREAM-006', grade: 'SHOULD', expectation: 'object is "chat.completion.chunk"' },
  'created-invalid': { requirementId: 'CHAT-STREAM-009', grade: 'MUST', expectation: 'created is integer Unix seconds (< 10^10)' },
  'created-stale': { requirementId: 'CHAT-STREAM-047', grade: 'SHOULD', expectation: 'created is within a day of now' },
  'created-changed': { requirementId: 'CHAT-STREAM-010', grade: 'SHOULD', expectation: 'every chunk has the same created' },
  'model-invalid': { requirementId: 'CHAT-STREAM-011', grade: 'SHOULD', expectation: 'every chunk has model, a non-empty string' },
  'choices-invalid': { requirementId: 'CHAT-STREAM-012', grade: 'MUST', expectation: 'every chunk has choices, an array of objects' },
  'choices-empty': { requirementId: 'CHAT-STREAM-044', grade: 'SHOULD', expectation: 'choices is empty only in the usage chunk' },
  // Choices and deltas
  'choice-index-invalid': { requirementId: 'CHAT-STREAM-013', grade: 'MUST', expectation: 'choices[].index is an integer below n' },
  'role-missing-first': { requirementId: 'CHAT-STREAM-014', grade: 'MUST', expectation: 'the first delta of each choice has role "assistant"' },
  'role-repeated': { requirementId: 'CHAT-STREAM-015', grade: 'SHOULD', expectation: 'role appears only on the first delta' },
  'delta-invalid': { requirementId: 'CHAT-STREAM-016', grade: 'MUST', expectation: 'delta is an object whose content is a string or null' },
  'finish-reason-invalid': { requirementId: 'CHAT-STREAM-017', grade: 'MUST', expectation: 'finish_reason is null or a non-empty string' },
  'finish-reason-unknown': { requirementId: 'CHAT-STREAM-045', grade: 'MUST', expectation: 'a non-null finish_reason is stop|length|tool_calls|content_filter|function_call' },
  'finish-reason-key-missing': { requirementId: 'CHAT-STREAM-018', grade: 'SHOULD', expectation: 'interim chunks carry finish_reason: null' },
  'finish-reason-count': { requirementId: 'CHAT-STREAM-019', grade: 'MUST', expectation: 'each choice gets exactly one non-null finish_reason' },
  'finish-chunk-content': { requirementId: 'CHAT-STREAM-020', grade: 'SHOULD', expectation: 'the finish chunk has an empty delta' },
  'delta-after-finish': { requirementId: 'CHAT-STREAM-021', grade: 'MUST', expectation: 'no content or tool calls for a choice after its finish chunk' },
  'choice-missing': { requirementId: 'CHAT-STREAM-039', grade: 'SHOULD', expectation: 'with n > 1, every index 0..n-1 streams and finishes' },
  // Tool calls
  'tool-index-invalid': { requirementId: 'TOOLS-012', grade: 'MUST', expectation: 'every tool-call delta has an integer index >= 0' },
  'tool-index-gap': { requirementId: 'TOOLS-016', grade: 'MUST', expectation: 'tool-call indexes start at 0 and each new one is the highest + 1' },
  'tool-first-delta-incomplete': { requirementId: 'TOOLS-013', grade: 'MUST', expectation: 'the first delta of each tool call has id, type "function" and function.name' },
  'tool-identity-changed': { requirementId: 'TOOLS-014', grade: 'MUST', expectation: 'later deltas do not repeat or change a tool call id or name, nor change its type' },
  'tool-arguments-not-string': { requirementId: 'TOOLS-015', grade: 'MUST', expectation: 'function.arguments fragments are strings' },
  'tool-arguments-not-json': { requirementId: 'TOOLS-017', grade: 'INFO', expectation: 'the joined arguments parse as a JSON object' },
  'tool-calls-finish-without-calls': { requirementId: 'TOOLS-008', grade: 'SHOULD', expectation: 'finish_reason tool_calls means the choice carries tool calls' },
  'tool-calls-with-stop': { requirementId: 'TOOLS-009', grade: 'SHOULD', expectation: 'a choice with tool calls finishes with tool_calls' },
  // Usage
  'usage-chunk-missing': { requirementId: 'CHAT-STREAM-023', grade: 'MUST', expectation: 'with include_usage, exactly one chunk has choices [] and a usage object' },
  'usage-chunk-choices': { requirementId: 'CHAT-STREAM-023', grade: 'MUST', expectation: 'the usage chunk has choices [] (not null, not non-empty)' },
  'usage-chunk-multiple': { requirementId: 'CHAT-STREAM-023', grade: 'MUST', expectation: 'exactly one usage chunk' },
  'usage-chunk-not-last': { requirementId: 'CHAT-STREAM-024', grade: 'MUST', expectation: 'the usage chunk is the last chunk before [DONE]' },
  'usage-non-null-interim': { requirementId: 'CHAT-STREAM-025', grade: 'MUST', expectation: 'usage is null on every chunk but the usage chunk' },
  'usage-null-omitted': { requirementId: 'CHAT-STREAM-026', grade: 'SHOULD', expectation: 'with include_usage, other chunks carry usage: null' },
  'usage-unrequested': { requirementId: 'CHAT-STREAM-027', grade: 'SHOULD', expectation: 'no non-null usage unless include_usage was requested' },
  'usage-chunk-envelope': { requirementId: 'CHAT-STREAM-028', grade: 'SHOULD', expectation: 'the usage chunk has the same id, object, created and model as the other chunks' },
  'usage-counts': { requirementId: 'CHAT-STREAM-029', grade: 'MUST', expectation: 'usage has integer counts and total_tokens = prompt_tokens + completion_tokens' },
} as const satisfies Record<string, StreamRule>;

export type StreamRuleCode = keyof typeof streamRules;
export const streamRuleCodes = Object.keys(streamRules) as StreamRuleCode[];

export function severityOfGrade(grade: Grade): StreamSeverity {
  return grade === 'MUST' ? 'fail' : grade === 'SHOULD' ? 'non-strict' : 'informational';
}
