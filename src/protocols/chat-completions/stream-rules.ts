import type { RuleTable } from '../protocol.ts';

/**
 * Every rule code the chat-completions stream checker can report: what the format expects (one
 * line) and the requirement it decides. Grades are the registry's (spec/requirements.yaml): a
 * finding's grade is its requirement's, and nothing else grades these findings.
 */
export const streamRules = {
  // SSE framing, from the reader
  'invalid-utf8': { requirement: 'CHAT-STREAM-041', expects: 'every byte of the event stream is valid UTF-8' },
  'line-too-long': { requirement: 'CHAT-STREAM-005', expects: 'lines are of bounded length' },
  'event-too-long': { requirement: 'CHAT-STREAM-046', expects: 'the data of one event stays within 8 MiB' },
  'json-too-deep': { requirement: 'HDR-015', expects: 'JSON nests at most 64 levels deep' },
  'ended-mid-event': { requirement: 'CHAT-STREAM-002', expects: 'the stream ends with a complete data: [DONE] event (terminated by an empty line)' },
  'ignored-field': { requirement: 'CHAT-STREAM-042', expects: 'unknown fields, a non-digit retry and NUL in id are legal and ignored' },
  'comment-lines': { requirement: 'CHAT-STREAM-032', expects: 'comment (keep-alive) lines are legal and ignored' },
  'line-endings': { requirement: 'CHAT-STREAM-034', expects: 'CRLF and lone CR line endings are legal' },
  'bom': { requirement: 'CHAT-STREAM-043', expects: 'a leading byte order mark: stripped to judge the rest; openai-python, openai-go and openai-java lose the first event' },
  'split-reads': { requirement: 'CHAT-STREAM-035', expects: 'events split across reads are reassembled' },
  'data-no-space': { requirement: 'CHAT-STREAM-036', expects: 'data: without a space is legal' },
  'event-field': { requirement: 'CHAT-STREAM-037', expects: 'chunk events carry no event name (only an error event may be named "error")' },
  'meta-only-event': { requirement: 'CHAT-STREAM-033', expects: 'no events carrying only id/retry/event fields' },
  // Payloads and the sentinel
  'empty-data': { requirement: 'CHAT-STREAM-005', expects: 'every data payload is a JSON object or the literal [DONE]' },
  'non-json-data': { requirement: 'CHAT-STREAM-005', expects: 'every data payload is a JSON object or the literal [DONE]' },
  'done-missing': { requirement: 'CHAT-STREAM-002', expects: 'the last event is data: [DONE]' },
  'done-not-exact': { requirement: 'CHAT-STREAM-003', expects: 'the sentinel is exactly [DONE]' },
  'data-after-done': { requirement: 'CHAT-STREAM-004', expects: 'nothing follows [DONE]' },
  'no-chunks': { requirement: 'CHAT-STREAM-022', expects: 'at least one JSON chunk before [DONE]' },
  'error-before-chunks': { requirement: 'CHAT-STREAM-030', expects: 'an error before streaming starts gets a 4xx/5xx status, not a 200 stream' },
  'error-shape': { requirement: 'CHAT-STREAM-031', expects: 'an in-stream error is data {"error":{message,type,param,code}}' },
  'chunk-after-error': { requirement: 'CHAT-STREAM-031', expects: 'the stream ends after an in-stream error' },
  // Chunk envelope
  'id-invalid': { requirement: 'CHAT-STREAM-007', expects: 'every chunk has a non-empty string id' },
  'id-changed': { requirement: 'CHAT-STREAM-008', expects: 'every chunk has the same id' },
  'object-wrong': { requirement: 'CHAT-STREAM-006', expects: 'object is "chat.completion.chunk"' },
  'created-invalid': { requirement: 'CHAT-STREAM-009', expects: 'created is integer Unix seconds (< 10^10)' },
  'created-stale': { requirement: 'CHAT-STREAM-047', expects: 'created is within a day of now' },
  'created-changed': { requirement: 'CHAT-STREAM-010', expects: 'every chunk has the same created' },
  'model-invalid': { requirement: 'CHAT-STREAM-011', expects: 'every chunk has model, a non-empty string' },
  'choices-invalid': { requirement: 'CHAT-STREAM-012', expects: 'every chunk has choices, an array of objects' },
  'choices-empty': { requirement: 'CHAT-STREAM-044', expects: 'choices is empty only in the usage chunk' },
  // Choices and deltas
  'choice-index-invalid': { requirement: 'CHAT-STREAM-013', expects: 'choices[].index is an integer below n' },
  'role-missing-first': { requirement: 'CHAT-STREAM-014', expects: 'the first delta of each choice has role "assistant"' },
  'role-repeated': { requirement: 'CHAT-STREAM-015', expects: 'role appears only on the first delta' },
  'delta-invalid': { requirement: 'CHAT-STREAM-016', expects: 'delta is an object whose content is a string or null' },
  'finish-reason-invalid': { requirement: 'CHAT-STREAM-017', expects: 'finish_reason is null or a non-empty string' },
  'finish-reason-unknown': { requirement: 'CHAT-STREAM-045', expects: 'a non-null finish_reason is stop|length|tool_calls|content_filter|function_call' },
  'finish-reason-key-missing': { requirement: 'CHAT-STREAM-018', expects: 'interim chunks carry finish_reason: null' },
  'finish-reason-count': { requirement: 'CHAT-STREAM-019', expects: 'each choice gets exactly one non-null finish_reason' },
  'finish-chunk-content': { requirement: 'CHAT-STREAM-020', expects: 'the finish chunk has an empty delta' },
  'delta-after-finish': { requirement: 'CHAT-STREAM-021', expects: 'no content or tool calls for a choice after its finish chunk' },
  'choice-missing': { requirement: 'CHAT-STREAM-039', expects: 'with n > 1, every index 0..n-1 streams and finishes' },
  // Tool calls
  'tool-index-invalid': { requirement: 'TOOLS-012', expects: 'every tool-call delta has an integer index >= 0' },
  'tool-index-gap': { requirement: 'TOOLS-016', expects: 'tool-call indexes start at 0 and each new one is the highest + 1' },
  'tool-first-delta-incomplete': { requirement: 'TOOLS-013', expects: 'the first delta of each tool call has id, type "function" and function.name' },
  'tool-identity-changed': { requirement: 'TOOLS-014', expects: 'later deltas do not repeat or change a tool call id or name, nor change its type' },
  'tool-arguments-not-string': { requirement: 'TOOLS-015', expects: 'function.arguments fragments are strings' },
  'tool-arguments-not-json': { requirement: 'TOOLS-017', expects: 'the joined arguments parse as a JSON object' },
  'tool-calls-finish-without-calls': { requirement: 'TOOLS-008', expects: 'finish_reason tool_calls means the choice carries tool calls' },
  'tool-calls-with-stop': { requirement: 'TOOLS-022', expects: 'a streamed choice with tool calls finishes with tool_calls (OpenAI itself sometimes sends stop)' },
  // Usage
  'usage-chunk-missing': { requirement: 'CHAT-STREAM-023', expects: 'with include_usage, exactly one chunk has choices [] and a usage object' },
  'usage-chunk-choices': { requirement: 'CHAT-STREAM-023', expects: 'the usage chunk has choices [] (not null, not non-empty)' },
  'usage-chunk-multiple': { requirement: 'CHAT-STREAM-023', expects: 'exactly one usage chunk' },
  'usage-chunk-not-last': { requirement: 'CHAT-STREAM-024', expects: 'the usage chunk is the last chunk before [DONE]' },
  'usage-non-null-interim': { requirement: 'CHAT-STREAM-025', expects: 'usage is null on every chunk but the usage chunk' },
  'usage-null-omitted': { requirement: 'CHAT-STREAM-026', expects: 'with include_usage, other chunks carry usage: null' },
  'usage-unrequested': { requirement: 'CHAT-STREAM-027', expects: 'no non-null usage unless include_usage was requested' },
  'usage-chunk-envelope': { requirement: 'CHAT-STREAM-028', expects: 'the usage chunk has the same id, object, created and model as the other chunks' },
  'usage-counts': { requirement: 'CHAT-STREAM-029', expects: 'usage has integer counts and total_tokens = prompt_tokens + completion_tokens' },
} as const satisfies RuleTable;

export type StreamRuleCode = keyof typeof streamRules;
export const streamRuleCodes = Object.keys(streamRules) as StreamRuleCode[];

/** The requirement a rule code decides. */
export function requirementOfRule(rule: StreamRuleCode): string {
  return streamRules[rule].requirement;
}

/** The requirement IDs the given rules decide, each once, in the order given. */
export function idsOfRules(rules: readonly StreamRuleCode[]): string[] {
  return [...new Set(rules.map(requirementOfRule))];
}

/** Every requirement some stream rule decides. */
export const streamRequirementIds: readonly string[] = idsOfRules(streamRuleCodes);
