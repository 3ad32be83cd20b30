/**
 * Every rule code the chat-completions stream checker can report, with what the format expects
 * (one line). Codes only: which requirement a code decides, and its grade, live in the registry
 * (src/checks/registry/stream-rule-ids.ts and spec/requirements.yaml).
 */
export const streamRules = {
  // SSE framing, from the reader
  'invalid-utf8': 'every byte of the event stream is valid UTF-8',
  'line-too-long': 'lines are of bounded length',
  'event-too-long': 'the data of one event stays within 8 MiB',
  'json-too-deep': 'JSON nests at most 64 levels deep',
  'ended-mid-event': 'the stream ends with a complete data: [DONE] event (terminated by an empty line)',
  'ignored-field': 'unknown fields, a non-digit retry and NUL in id are legal and ignored',
  'comment-lines': 'comment (keep-alive) lines are legal and ignored',
  'line-endings': 'CRLF and lone CR line endings are legal',
  'bom': 'a leading byte order mark: stripped to judge the rest; openai-python, openai-go and openai-java lose the first event',
  'split-reads': 'events split across reads are reassembled',
  'data-no-space': 'data: without a space is legal',
  'event-field': 'chunk events carry no event name (only an error event may be named "error")',
  'meta-only-event': 'no events carrying only id/retry/event fields',
  // Payloads and the sentinel
  'empty-data': 'every data payload is a JSON object or the literal [DONE]',
  'non-json-data': 'every data payload is a JSON object or the literal [DONE]',
  'done-missing': 'the last event is data: [DONE]',
  'done-not-exact': 'the sentinel is exactly [DONE]',
  'data-after-done': 'nothing follows [DONE]',
  'no-chunks': 'at least one JSON chunk before [DONE]',
  'error-before-chunks': 'an error before streaming starts gets a 4xx/5xx status, not a 200 stream',
  'error-shape': 'an in-stream error is data {"error":{message,type,param,code}}',
  'chunk-after-error': 'the stream ends after an in-stream error',
  // Chunk envelope
  'id-invalid': 'every chunk has a non-empty string id',
  'id-changed': 'every chunk has the same id',
  'object-wrong': 'object is "chat.completion.chunk"',
  'created-invalid': 'created is integer Unix seconds (< 10^10)',
  'created-stale': 'created is within a day of now',
  'created-changed': 'every chunk has the same created',
  'model-invalid': 'every chunk has model, a non-empty string',
  'choices-invalid': 'every chunk has choices, an array of objects',
  'choices-empty': 'choices is empty only in the usage chunk',
  // Choices and deltas
  'choice-index-invalid': 'choices[].index is an integer below n',
  'role-missing-first': 'the first delta of each choice has role "assistant"',
  'role-repeated': 'role appears only on the first delta',
  'delta-invalid': 'delta is an object whose content is a string or null',
  'finish-reason-invalid': 'finish_reason is null or a non-empty string',
  'finish-reason-unknown': 'a non-null finish_reason is stop|length|tool_calls|content_filter|function_call',
  'finish-reason-key-missing': 'interim chunks carry finish_reason: null',
  'finish-reason-count': 'each choice gets exactly one non-null finish_reason',
  'finish-chunk-content': 'the finish chunk has an empty delta',
  'delta-after-finish': 'no content or tool calls for a choice after its finish chunk',
  'choice-missing': 'with n > 1, every index 0..n-1 streams and finishes',
  // Tool calls
  'tool-index-invalid': 'every tool-call delta has an integer index >= 0',
  'tool-index-gap': 'tool-call indexes start at 0 and each new one is the highest + 1',
  'tool-first-delta-incomplete': 'the first delta of each tool call has id, type "function" and function.name',
  'tool-identity-changed': 'later deltas do not repeat or change a tool call id or name, nor change its type',
  'tool-arguments-not-string': 'function.arguments fragments are strings',
  'tool-arguments-not-json': 'the joined arguments parse as a JSON object',
  'tool-calls-finish-without-calls': 'finish_reason tool_calls means the choice carries tool calls',
  'tool-calls-with-stop': 'a streamed choice with tool calls finishes with tool_calls (OpenAI itself sometimes sends stop)',
  // Usage
  'usage-chunk-missing': 'with include_usage, exactly one chunk has choices [] and a usage object',
  'usage-chunk-choices': 'the usage chunk has choices [] (not null, not non-empty)',
  'usage-chunk-multiple': 'exactly one usage chunk',
  'usage-chunk-not-last': 'the usage chunk is the last chunk before [DONE]',
  'usage-non-null-interim': 'usage is null on every chunk but the usage chunk',
  'usage-null-omitted': 'with include_usage, other chunks carry usage: null',
  'usage-unrequested': 'no non-null usage unless include_usage was requested',
  'usage-chunk-envelope': 'the usage chunk has the same id, object, created and model as the other chunks',
  'usage-counts': 'usage has integer counts and total_tokens = prompt_tokens + completion_tokens',
} as const satisfies Record<string, string>;

export type StreamRuleCode = keyof typeof streamRules;
export const streamRuleCodes = Object.keys(streamRules) as StreamRuleCode[];
