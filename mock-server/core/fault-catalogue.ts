// The HTTP, stream, auth, account, limit and error-shape faults of the core, and the legal modes.
// Each fault changes exactly one behaviour; `breaks` lists the requirement IDs (spec/requirements.yaml)
// a correct check must fail when the fault is on. Legal modes break nothing: a correct client reads them.

export interface FaultDefinition {
  name: string;
  kind: 'fault' | 'legal';
  breaks: string[];
  description: string;
  /** Legal modes: the requirement IDs whose tolerance they exercise. */
  exercises?: string[];
  /** IDs among `breaks` the fault makes a deviation clients survive: non-strict at most, whatever their grade. */
  deviates?: string[];
  /**
   * Capabilities (src/checks/registry/capabilities.ts) the fault matrix declares with --expect: the fault makes the
   * server ignore or refuse one, which by default only skips its requirements, and fails them when expected.
   */
  expect?: string[];
}

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });
const legal = (name: string, exercises: string[], description: string): FaultDefinition => ({ name, kind: 'legal', breaks: [], exercises, description });

export const coreFaults: readonly FaultDefinition[] = [
  // Stream framing and termination (conformance-anchors §2 #1, #2, #18, #21)
  f('stream-no-done', ['CHAT-STREAM-002'], 'The stream ends without the data: [DONE] event (§2 #1).'),
  f('stream-done-trailing-space', ['CHAT-STREAM-003', 'CHAT-STREAM-038'], 'The last event is "data: [DONE] " with a trailing space (§2 #2).'),
  f('stream-data-after-done', ['CHAT-STREAM-004'], 'A chunk is sent again after [DONE].'),
  f('stream-truncated', ['CHAT-STREAM-019'], 'The finish chunk is never sent; the stream goes straight to [DONE] (error swallowed, §2 #18).'),
  f('stream-disconnect', ['CHAT-STREAM-002', 'CHAT-STREAM-038'], 'The server closes the connection halfway through the content, without [DONE].'),
  f('stream-error-as-200', ['CHAT-STREAM-030'], 'An error before streaming starts (bad body, unknown model) is sent as a 200 event stream (§2 #18).'),
  f('stream-error-swallowed', ['CHAT-STREAM-031'], 'With x-iari-fail-after-events, the failure is not sent as an error event: the stream just ends with [DONE] (§2 #18).'),
  f('stream-empty-data-event', ['CHAT-STREAM-005', 'CHAT-STREAM-038'], 'An event with empty data ("data: ") is sent after the first chunk (§2 #21).'),
  f('stream-comment-as-data', ['CHAT-STREAM-005', 'CHAT-STREAM-038'], 'A keep-alive comment is re-emitted as data ("data: : keep-alive"), not JSON (§2 #21).'),
  f('stream-meta-only-event', ['CHAT-STREAM-033'], 'An event with only id: and retry: fields and no data is sent (§2 #21).'),
  f('stream-content-type-json', ['CHAT-STREAM-001'], 'A stream is answered with Content-Type application/json instead of text/event-stream.'),
  // Chunk identity (§2 #10 to #13, #17, #29)
  f('stream-id-changes', ['CHAT-STREAM-008'], 'The chunk id changes from one chunk to the next (§2 #10).'),
  f('stream-id-empty', ['CHAT-STREAM-007'], 'Every chunk has id "" (§2 #10).'),
  f('choice-index-increments', ['CHAT-STREAM-013', 'CHAT-009'], 'choices[].index grows with every chunk (or is off by one in a completion) (§2 #11).'),
  f('chunk-object-wrong', ['CHAT-STREAM-006'], 'Chunks have object "chat.completions.chunk" (§2 #12).'),
  f('completion-object-wrong', ['CHAT-004'], 'A completion has object "text_completion" (§2 #12).'),
  f('created-milliseconds', ['CHAT-STREAM-009', 'CHAT-005'], 'created is in milliseconds instead of seconds (§2 #13).'),
  f('chunk-no-id-created', ['CHAT-STREAM-007', 'CHAT-STREAM-009', 'CHAT-002', 'CHAT-005'], 'Chunks and completions carry neither id nor created (§2 #29).'),
  f('completion-no-id', ['CHAT-002'], 'A non-streamed completion has no id member.'),
  // Roles and finish reasons (§2 #6 to #9, #28)
  f('role-missing-first-delta', ['CHAT-STREAM-014'], 'The first delta of a choice has no role (§2 #28).'),
  f('role-in-every-delta', ['CHAT-STREAM-015'], 'role: "assistant" is repeated in every delta (§2 #28, non-strict).'),
  f('finish-reason-empty', ['CHAT-STREAM-017', 'CHAT-033'], 'finish_reason is "" instead of a known value (§2 #6).'),
  f('finish-reason-unknown', ['CHAT-STREAM-045', 'CHAT-033'], 'finish_reason is "eos" (a non-empty value outside the enum) instead of stop (§2 #6).'),
  f('finish-reason-missing-interim', ['CHAT-STREAM-018'], 'Interim chunks leave out the finish_reason key instead of null (§2 #7, non-strict).'),
  f('finish-reason-tool-calls-without-calls', ['TOOLS-008'], 'A text answer ends with finish_reason "tool_calls" (§2 #8).'),
  f('finish-reason-stop-after-tool', ['TOOLS-009', 'TOOLS-022'], 'A tool-call answer ends with finish_reason "stop" (§2 #8): non-strict when not streamed, informational when streamed (OpenAI sends it).'),
  f('finish-reason-null-nonstream', ['CHAT-013', 'CHAT-STREAM-040'], 'A non-streamed choice has finish_reason null.'),
  f('finish-chunk-with-content', ['CHAT-STREAM-020'], 'The finish chunk also carries the last piece of content (§2 #9, non-strict).'),
  // Usage (§2 #14 to #17)
  f('usage-chunk-missing', ['CHAT-STREAM-023'], 'No usage chunk although stream_options.include_usage is true (§2 #14).'),
  f('usage-chunk-choices-null', ['CHAT-STREAM-023'], 'The usage chunk has choices null instead of [] (§2 #14).'),
  f('usage-on-every-chunk', ['CHAT-STREAM-025', 'CHAT-STREAM-027'], 'Every chunk carries a non-null running usage object (§2 #15).'),
  f('usage-unrequested', ['CHAT-STREAM-027'], 'A usage chunk is sent although include_usage was not requested (§2 #16).'),
  f('usage-null-omitted', ['CHAT-STREAM-026'], 'With include_usage, other chunks leave out "usage": null (§2 #16, non-strict).'),
  f('usage-chunk-no-id', ['CHAT-STREAM-028'], 'The usage chunk lacks id, created and model (§2 #17).'),
  f('usage-total-mismatch', ['CHAT-016', 'CHAT-STREAM-029'], 'usage.total_tokens is one more than prompt_tokens + completion_tokens.'),
  // Message shape (§2 #26)
  f('content-missing', ['CHAT-011'], 'The completion message has no content member (§2 #26).'),
  f('refusal-missing', ['CHAT-012'], 'The completion message has no refusal member (§2 #26, non-strict).'),
  // Tool calls (§2 #3 to #5)
  f('tool-delta-no-index', ['TOOLS-012', 'TOOLS-024'], 'Streamed tool-call deltas have no index (§2 #3).'),
  f('tool-delta-no-id', ['TOOLS-013', 'TOOLS-003', 'TOOLS-025'], 'The first tool-call delta (and a completion tool call) has no id (§2 #4).'),
  f('tool-identity-changes', ['TOOLS-014', 'TOOLS-024'], 'Later tool-call deltas carry a different id (§2 #4).'),
  f('tool-arguments-object', ['TOOLS-006', 'TOOLS-015'], 'arguments is a JSON object, not a string (§2 #5).'),
  f('tool-arguments-invalid-json', ['TOOLS-007', 'TOOLS-017'], 'The (joined) arguments string is not valid JSON: the closing brace is missing (§2 #5).'),
  // Parameters (§2 #27)
  f('stream-options-without-stream-accepted', ['CHAT-028'], 'stream_options with stream false is accepted instead of 400 (§2 #27, non-strict).'),
  { ...f('documented-param-rejected', ['CHAT-019', 'CHAT-034', 'CHAT-035', 'CHAT-036', 'CHAT-037'], 'Documented parameters (top_p, seed, user, response_format, penalties) are rejected with a 400 that names none of them (§2 #27); response_format fails under --expect json-object,json-schema.'), expect: ['json-object', 'json-schema'] },
  f('unknown-role-accepted', ['CHAT-023'], 'A message with an unknown role is accepted (treated as user).'),
  f('temperature-unvalidated', ['CHAT-025'], 'temperature outside 0..2 is accepted.'),
  f('empty-messages-accepted', ['CHAT-022'], 'An empty messages array is accepted.'),
  // Models (§2 #25)
  f('models-bare-array', ['MODELS-002'], 'GET /v1/models answers a bare array instead of {object:"list", data} (§2 #25).'),
  f('models-owned-by-list', ['MODELS-007'], 'owned_by is a list of strings (§2 #25).'),
  f('models-missing-created', ['MODELS-006'], 'Models have no created member (§2 #25).'),
  f('models-retired-still-listed', ['MODELS-012', 'MODELS-008'], 'Retired models stay in GET /v1/models.'),
  f('retired-model-served', ['MODELS-011'], 'A retired model still answers chat requests.'),
  f('model-not-found-400', ['MODELS-010', 'MODELS-011'], 'An unknown model answers 400 instead of 404.'),
  f('model-not-found-no-code', ['MODELS-010', 'MODELS-011'], 'An unknown model answers 404 with code null instead of model_not_found.'),
  // Headers
  f('no-request-id', ['HDR-001'], 'Responses carry no x-request-id header.'),
  f('request-id-malformed', ['HDR-002', 'HDR-003'], 'x-request-id is a bare number, not req_<hex>.'),
  // Authentication
  f('auth-models-private', ['AUTH-004'], 'GET /v1/models requires a token (private where it must be public).'),
  f('auth-me-public', ['AUTH-001', 'AUTH-002'], '/v1/me and /v1/me/usage answer without credentials (public where they must be private).'),
  f('auth-chat-public', ['AUTH-003'], 'POST chat completions answers without credentials.'),
  f('auth-any-token', ['AUTH-006'], 'Any non-empty bearer token is accepted (as the default account).'),
  f('auth-no-www-authenticate', ['AUTH-010'], '401 responses carry no WWW-Authenticate header.'),
  f('auth-401-as-403', ['AUTH-008'], 'Bad or missing credentials answer 403 instead of 401.'),
  // Account and usage
  f('usage-not-incremented', ['ME-024', 'USAGE-013', 'USAGE-014'], 'Completions are not added to /v1/me or the daily rows.'),
  f('daily-rows-not-summing', ['USAGE-010'], "Today's row reports one request more than was counted in /v1/me."),
  f('me-wrong-types', ['ME-011'], 'usage.requests_this_month is a string.'),
  f('me-renews-at-not-iso', ['ME-008', 'ME-009'], 'plan.renews_at is "YYYY-MM-DD HH:MM:SS" without a zone.'),
  f('me-features-missing', ['ME-021'], 'features has no ember_os flag.'),
  f('usage-days-unvalidated', ['USAGE-005'], 'An out-of-range or non-integer days answers 200 (30 rows) instead of 400.'),
  f('usage-days-ignored', ['USAGE-004'], 'days is ignored: always 30 rows.'),
  f('usage-rows-not-zero-filled', ['USAGE-007', 'USAGE-003', 'USAGE-004'], 'Days without activity are left out of the daily rows.'),
  f('usage-rows-newest-first', ['USAGE-007', 'USAGE-008'], 'Daily rows are ordered newest first.'),
  f('usage-spend-string', ['USAGE-006'], 'Daily rows carry spend_usd as a string.'),
  // Limits
  f('limit-never-429', ['LIMIT-001', 'LIMIT-005'], 'Requests and tokens per minute are never enforced.'),
  f('limit-no-retry-after', ['LIMIT-002'], 'A rate-limit 429 has no Retry-After header.'),
  f('limit-retry-after-invalid', ['LIMIT-002'], 'A rate-limit 429 has Retry-After "0.5" (not an integer >= 1).'),
  f('limit-no-ratelimit-headers', ['LIMIT-003'], 'No x-ratelimit-* headers, on 429 or otherwise.'),
  f('limit-wrong-error-code', ['LIMIT-001', 'LIMIT-005'], 'A rate-limit 429 has code too_many_requests instead of rate_limit_exceeded.'),
  f('spend-cap-ignored', ['LIMIT-006'], 'The monthly spend cap is not enforced.'),
  f('limit-retry-after-too-short', ['LIMIT-004'], 'A rate-limit 429 says Retry-After: 1 although the window frees a slot only later (the x-ratelimit-reset-* headers tell the truth), so the request sent after the wait is refused again.'),
  f('limit-refused-counted', ['LIMIT-007'], 'A request refused with a rate-limit 429 still counts in /v1/me requests_this_month and in today’s usage row.'),
  f('limit-one-below-reported', ['LIMIT-008'], 'The chat route admits one request per minute fewer than /v1/me reports in limits.requests_per_minute.'),
  // Error shape and status (§2 #19, #20)
  f('error-body-detail', ['ERR-001'], 'Error bodies are {"detail": "..."} (FastAPI\'s default) instead of {"error": {...}} (§2 #19).'),
  f('error-body-string', ['ERR-001'], 'Error bodies are {"error": "<message>"}, a string where the error object belongs (vLLM\'s 401, TGI).'),
  f('error-code-integer', ['ERR-005'], 'error.code is the HTTP status as an integer (§2 #19).'),
  f('error-param-missing', ['ERR-004'], 'error.param is left out.'),
  f('error-type-missing', ['ERR-003'], 'error.type is left out.'),
  f('error-message-missing', ['ERR-002'], 'error.message is left out.'),
  f('client-error-as-500', ['ERR-006', 'ERR-010', 'ERR-011', 'ERR-013', 'ERR-014'], 'Client faults (bad JSON, bad fields, 413, 415) answer 500 (§2 #20).'),
  f('body-limit-not-enforced', ['ERR-010'], 'Bodies over 1 MiB are accepted instead of 413.'),
  f('content-type-not-enforced', ['ERR-011'], 'A body sent as text/plain is accepted instead of 415.'),
  // Legal but unusual (§2 #21 to #24): a correct client accepts these.
  legal('legal-crlf', ['CHAT-STREAM-034'], 'Lines end with CRLF (§2 #22).'),
  legal('legal-lone-cr', ['CHAT-STREAM-034'], 'Lines end with a lone CR (§2 #22).'),
  legal('legal-comments', ['CHAT-STREAM-032'], 'Every event is preceded by a ": keep-alive" comment line (§2 #21).'),
  legal('legal-data-no-space', ['CHAT-STREAM-036'], '"data:" without a space after the colon (§2 #24).'),
  legal('legal-tiny-writes', ['CHAT-STREAM-035'], 'The stream is written in pieces of 1 to 7 bytes (§2 #23).'),
  legal('legal-split-utf8', ['CHAT-STREAM-035'], 'Writes are cut inside every multi-byte UTF-8 character (§2 #23).'),
  legal('legal-multiline-data', ['CHAT-STREAM-005'], 'Each JSON payload is split over two data: lines, joined by the reader with a newline.'),
];
