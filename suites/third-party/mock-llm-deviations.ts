// What @dwmkerr/mock-llm 0.1.29 really does differently from the interface, with its default
// configuration (config.js getDefaultConfig: one chat rule that echoes the last message through a
// JSON template, one /v1/models rule), each with the line of its own source or README that shows
// it. `iari test` must report exactly these requirements as deviating, and nothing else. Profile
// choices (INFO under the default profile, D-GRADE-04) are not deviations; the usage cross-checks
// (USAGE-010..012) are skipped when there is no /v1/me/usage to discover, USAGE-001 reports that.
// Features beyond the seed's core that it does not offer (response_format, n, stream_options.include_usage,
// tool_choice: every variant is answered as without it) are skipped by the capability model, not
// deviations: the capability table says which; but an accepted tool_choice must be enforced (TOOLS-027,
// issue 37), so ignoring it is one. HDR-009 is not one either: /v1/me and /me both answer
// 404, so it is undecided and names ME-001, its root cause (issue 27). Nor are TOOLS-002/012 and
// the client tool round trips (CLIENT-004/005/012/013/020/021): mock-llm answers every tool request
// with text (NO_TOOLS) and ignores tool_choice, so nothing forced a call and its absence is the
// "model's" choice: undecided (issue 27, judge the server, not the model).
// Source paths are under node_modules/@dwmkerr/mock-llm/.

export interface Deviation {
  verdict: 'fail' | 'non-strict';
  /** Why mock-llm really deviates, from its own docs or source. */
  reason: string;
}

const NO_ME = 'dist/server.js: no rule or route serves /v1/me or /v1/me/usage; the catch-all answers 404 {"error":"Not Found","message":"Cannot GET …","status":404}';
const NO_AUTH = 'dist/server.js: no middleware reads Authorization; README: "The default rule for incoming requests is to reply with the user\'s exact message"';
const TEMPLATE = 'dist/config.js getDefaultConfig: the completion template is {id, object, model, choices:[{message:{role, content}, finish_reason}]}';
const NO_VALIDATION = 'dist/server.js: every POST to /v1/chat/completions matches the default rule (match "@"); the body is never validated';
const STREAM = 'dist/streaming.js createChunks: chunks are {id, object, model, choices:[{index, delta, finish_reason}]}; the last content chunk carries finish_reason "stop"';
const NO_TOOLS = 'dist/config.js getDefaultConfig: the only chat rule answers with text; nothing produces tool_calls';
const ERRORS = 'dist/server.js: the 404 catch-all and the error handler answer {"error": "<name>", "message": …, "status": …}, error is a string';
const MODEL_BY_ID = 'dist/server.js: a rule matches when new RegExp(rule.path).test(req.path), so the /v1/models rule (config.js) also answers GET /v1/models/{id} with the whole list';
const ECHO_NOT_JSON = `${TEMPLATE}; the content is the last message echoed, response_format is never read`;
const UNKNOWN_ROUTE = 'dist/server.js catch-all 404 {"error":"Not Found",…}: the clients find no error.message to report';

export const mockLlmDeviations: Readonly<Record<string, Deviation>> = {
  'AUTH-003': { verdict: 'fail', reason: NO_AUTH },
  'AUTH-005': { verdict: 'fail', reason: NO_ME },
  'AUTH-006': { verdict: 'fail', reason: NO_AUTH },
  'AUTH-007': { verdict: 'non-strict', reason: NO_AUTH },
  'AUTH-008': { verdict: 'non-strict', reason: `${NO_ME} (no 401 for missing credentials)` },
  'CHAT-005': { verdict: 'fail', reason: `${TEMPLATE}: no created` },
  'CHAT-009': { verdict: 'fail', reason: `${TEMPLATE}: no choices[].index` },
  'CHAT-012': { verdict: 'non-strict', reason: `${TEMPLATE}: no message.refusal` },
  'CHAT-014': { verdict: 'non-strict', reason: `${TEMPLATE}: no choices[].logprobs` },
  'CHAT-015': { verdict: 'fail', reason: `${TEMPLATE}: no usage` },
  'CHAT-016': { verdict: 'fail', reason: `${TEMPLATE}: no usage` },
  'CHAT-017': { verdict: 'non-strict', reason: `${TEMPLATE}: no usage` },
  'CHAT-021': { verdict: 'non-strict', reason: `${NO_VALIDATION}: a request without model is answered` },
  'CHAT-022': { verdict: 'non-strict', reason: `${NO_VALIDATION}: a request without messages is answered` },
  'CHAT-023': { verdict: 'non-strict', reason: `${NO_VALIDATION}: an unknown role is answered` },
  'CHAT-025': { verdict: 'non-strict', reason: `${NO_VALIDATION}: temperature 2.5 is answered` },
  'CHAT-027': { verdict: 'non-strict', reason: `${NO_VALIDATION}: a tool message without tool_call_id is answered` },
  'CHAT-030': { verdict: 'non-strict', reason: `${TEMPLATE}: the echo is never cut, max_completion_tokens is ignored` },
  'CHAT-STREAM-009': { verdict: 'fail', reason: `${STREAM}: no created` },
  'CHAT-STREAM-020': { verdict: 'non-strict', reason: STREAM },
  'CHAT-STREAM-030': { verdict: 'non-strict', reason: `${NO_VALIDATION}: an unknown model is streamed` },
  'CLIENT-008': { verdict: 'fail', reason: UNKNOWN_ROUTE },
  'CLIENT-016': { verdict: 'fail', reason: UNKNOWN_ROUTE },
  'CLIENT-024': { verdict: 'fail', reason: UNKNOWN_ROUTE },
  // The previous majors' columns (issue 38): openai-node 6 and the AI SDK 6 read the same 404 alike.
  'CLIENT-043': { verdict: 'fail', reason: UNKNOWN_ROUTE },
  'CLIENT-052': { verdict: 'fail', reason: UNKNOWN_ROUTE },
  'ERR-001': { verdict: 'fail', reason: ERRORS },
  'ERR-006': { verdict: 'non-strict', reason: `${NO_VALIDATION}: n out of range is answered 200` },
  'ERR-015': { verdict: 'non-strict', reason: `dist/template.js renderTemplate pastes values into the JSON unescaped; JSON.parse of the result throws and ${ERRORS}` },
  'HDR-001': { verdict: 'non-strict', reason: 'dist/server.js: no response sets x-request-id' },
  'ME-001': { verdict: 'fail', reason: NO_ME },
  'MODELS-006': { verdict: 'non-strict', reason: 'dist/config.js getDefaultConfig: the model entry is {"id", "object", "owned_by"}, no created' },
  'MODELS-015': { verdict: 'fail', reason: `${MODEL_BY_ID}: the body is the list, not a model whose id is the one asked for` },
  'MODELS-017': { verdict: 'fail', reason: `${MODEL_BY_ID}: an id never listed is answered 200 too` },
  'MODELS-018': { verdict: 'non-strict', reason: `${MODEL_BY_ID}: no 404 model_not_found for an id never listed` },
  'TOOLS-021': { verdict: 'non-strict', reason: `${NO_VALIDATION}: tool definitions are never read` },
  // Issue 37: tool_choice is the server's to enforce or refuse, never to drop (TOOLS-027).
  'TOOLS-027': { verdict: 'fail', reason: `${NO_TOOLS}; ${NO_VALIDATION}: tool_choice "required" and a named function are accepted (200) and answered with text` },
  'USAGE-001': { verdict: 'fail', reason: NO_ME },
};
