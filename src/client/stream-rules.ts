/**
 * Every rule the stream checker enforces, with the requirement it decides and the severity of a
 * breach. Severity follows the registry grade: MUST -> fail, SHOULD -> non-strict,
 * INFO -> informational (a test keeps this table and `spec/requirements.yaml` in step).
 */
export type StreamSeverity = 'fail' | 'non-strict' | 'informational';

export interface StreamRule {
  requirementId: string;
  severity: StreamSeverity;
  /** What the format expects, one line. */
  expectation: string;
}

export const streamRules = {
  // SSE framing (reader findings)
  'invalid-utf8': { requirementId: 'CHAT-STREAM-002', severity: 'fail', expectation: 'the event stream is valid UTF-8' },
  'ended-mid-event': { requirementId: 'CHAT-STREAM-003', severity: 'fail', expectation: 'every event is terminated by an empty line before the stream ends' },
  'line-too-long': { requirementId: 'CHAT-STREAM-003', severity: 'fail', expectation: 'lines are of reasonable length (the reader caps them)' },
  'unknown-field': { requirementId: 'CHAT-STREAM-004', severity: 'informational', expectation: 'only data, event, id and retry fields (others are ignored by clients)' },
  'invalid-retry': { requirementId: 'CHAT-STREAM-004', severity: 'informational', expectation: 'retry is ASCII digits (else ignored by clients)' },
  'id-contains-nul': { requirementId: 'CHAT-STREAM-004', severity: 'informational', expectation: 'id has no NUL (else ignored by clients)' },
  'comment-lines': { requirementId: 'CHAT-STREAM-005', severity: 'informational', expectation: 'comment (keep-alive) lines are legal and ignored' },
  'line-endings': { requirementId: 'CHAT-STREAM-005', severity: 'informational', expectation: 'CRLF and lone CR line endings are legal' },
  'bom': { requirementId: 'CHAT-STREAM-005', severity: 'informational', expectation: 'a leading BOM is legal and stripped' },
  'event-field': { requirementId: 'CHAT-STREAM-004', severity: 'informational', expectation: 'chunks are sent as unnamed (message) events' },
  'meta-only-event': { requirementId: 'CHAT-STREAM-006', severity: 'non-strict', expectation: 'no events carrying only id/retry/event fields (some SDKs crash on them)' },
  // Payloads
  'empty-data': { requirementId: 'CHAT-STREAM-007', severity: 'fail', expectation: 'every data payload is a JSON object or the literal [DONE]' },
  'non-json-data': { requirementId: 'CHAT-STREAM-007', severity: 'fail', expectation: 'every data payload is a JSON object or the literal [DONE]' },
  'done-missing': { requirementId: 'CHAT-STREAM-008', severity: 'fail', expectation: 'the last event is data: [DONE]' },
  'done-not-exact': { requirementId: 'CHAT-STREAM-009', severity: 'fail', expectation: 'the sentinel is exactly [DONE], no whitespace' },
  'data-after-done': { requirementId: 'CHAT-STREAM-010', severity: 'fail', expectation: 'nothing follows [DONE]' },
  'no-chunks': { requirementId: 'CHAT-STREAM-011', severity: 'fail', expectation: 'at least one completion chunk before [DONE]' },
  'error-before-chunks': { requirementId: 'CHAT-STREAM-012', severity: 'fail', expectation: 'an error before streaming starts gets a 4xx/5xx status, not a 200 stream' },
  'error-shape': { requirementId: 'CHAT-STREAM-012', severity: 'fail', expectation: 'an in-stream error is {"error":{message,type,param,code}}' },
  'chunk-after-error': { requirementId: 'CHAT-STREAM-012', severity: 'fail', expectation: 'the stream ends after an in-stream error' },
  // Chunk envelope
  'missing-field': { requirementId: 'CHAT-STREAM-013', severity: 'fail', expectation: 'every chunk has id, object, created, model, choices' },
  'id-empty': { requirementId: 'CHAT-STREAM-014', severity: 'fail', expectation: 'id is a non-empty string' },
  'id-changed': { requirementId: 'CHAT-STREAM-014', severity: 'fail', expectation: 'every chunk has the same id' },
  'object-wrong': { requirementId: 'CHAT-STREAM-015', severity: 'fail', expectation: 'object is "chat.completion.chunk"' },
  'created-changed': { requirementId: 'CHAT-STREAM-016', severity: 'fail', expectation: 'every chunk has the same created' },
  'created-invalid': { requirementId: 'CHAT-STREAM-017', severity: 'fail', expectation: 'created is integer Unix seconds (< 10^10) within a day of now' },
  'model-invalid': { requirementId: 'CHAT-STREAM-013', severity: 'fail', expectation: 'model is a string' },
  // Choices and deltas
  'choice-index-invalid': { requirementId: 'CHAT-STREAM-018', severity: 'fail', expectation: 'choices[].index is an integer below n and stable' },
  'delta-invalid': { requirementId: 'CHAT-STREAM-019', severity: 'fail', expectation: 'each choice has a delta object with string-or-null content' },
  'finish-reason-invalid': { requirementId: 'CHAT-STREAM-020', severity: 'fail', expectation: 'finish_reason is null or stop|length|tool_calls|content_filter|function_call' },
  'finish-reason-key-missing': { requirementId: 'CHAT-STREAM-021', severity: 'non-strict', expectation: 'interim chunks carry finish_reason: null' },
  'finish-reason-never': { requirementId: 'CHAT-STREAM-022', severity: 'fail', expectation: 'every choice ends with a non-null finish_reason' },
  'role-missing-first': { requirementId: 'CHAT-STREAM-023', severity: 'fail', expectation: 'the first delta of each choice has role "assistant"' },
  'role-repeated': { requirementId: 'CHAT-STREAM-024', severity: 'non-strict', expectation: 'role appears only on the first delta' },
  'finish-chunk-content': { requirementId: 'CHAT-STREAM-025', severity: 'non-strict', expectation: 'the finish chunk has an empty delta' },
  // Tool calls
  'tool-index-invalid': { requirementId: 'TOOLS-001', severity: 'fail', expectation: 'every tool-call delta has an integer index >= 0' },
  'tool-first-delta-incomplete': { requirementId: 'TOOLS-002', severity: 'fail', expectation: 'the first delta of each tool call has id, type "function" and function.name' },
  'tool-identity-changed': { requirementId: 'TOOLS-003', severity: 'fail', expectation: 'later deltas do not change a tool call id, type or name' },
  'tool-arguments-not-string': { requirementId: 'TOOLS-004', severity: 'fail', expectation: 'function.arguments is a string fragment' },
  'tool-arguments-not-json': { requirementId: 'TOOLS-005', severity: 'fail', expectation: 'the joined arguments parse as JSON' },
  'tool-calls-finish-without-calls': { requirementId: 'TOOLS-006', severity: 'fail', expectation: 'finish_reason tool_calls means the choice carries tool calls' },
  'tool-calls-with-stop': { requirementId: 'TOOLS-007', severity: 'non-strict', expectation: 'a choice with tool calls finishes with tool_calls' },
  // Usage
  'usage-non-null-interim': { requirementId: 'CHAT-STREAM-026', severity: 'fail', expectation: 'usage is null on every chunk but the final usage chunk' },
  'usage-null-omitted': { requirementId: 'CHAT-STREAM-027', severity: 'non-strict', expectation: 'with include_usage, interim chunks carry usage: null' },
  'usage-chunk-missing': { requirementId: 'CHAT-STREAM-028', severity: 'fail', expectation: 'with include_usage, one usage chunk comes just before [DONE]' },
  'usage-chunk-choices': { requirementId: 'CHAT-STREAM-029', severity: 'fail', expectation: 'the usage chunk has choices: []' },
  'usage-unrequested': { requirementId: 'CHAT-STREAM-030', severity: 'fail', expectation: 'no usage object unless include_usage was requested' },
  'usage-fields': { requirementId: 'CHAT-STREAM-031', severity: 'fail', expectation: 'usage has integer prompt_tokens, completion_tokens, total_tokens' },
  'usage-total-mismatch': { requirementId: 'CHAT-STREAM-031', severity: 'fail', expectation: 'total_tokens = prompt_tokens + completion_tokens' },
} as const satisfies Record<string, StreamRule>;

export type StreamRuleCode = keyof typeof streamRules;
export const streamRuleCodes = Object.keys(streamRules) as StreamRuleCode[];
