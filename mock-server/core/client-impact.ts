import type { FaultDefinition } from './fault-catalogue.ts';

// The faults that prove the CLIENT checks can fail: real client libraries (openai-node 7 and 6, the
// Vercel AI SDK 7 and 6, LangChain, and openai-python where its venv exists) run against the mock with the fault on, and these are the CLIENT requirements
// whose operation then fails, exactly as observed by `npx tsx scripts/client-fault-sweep.ts NAME`.
// The fault matrix asserts them like any other `breaks` (and that no other CLIENT verdict moves).
// Every CLIENT requirement is broken by at least one of them; docs/clients.md has the full table
// of what every fault does to the four clients.

const clientBreaks: Readonly<Record<string, readonly string[]>> = {
  // openai-node's page reads body.data: a bare array yields no models and no error.
  'models-bare-array': ['CLIENT-001', 'CLIENT-036'],
  // A completion message without content: every client hands the caller no text.
  'content-missing': ['CLIENT-002', 'CLIENT-004', 'CLIENT-010', 'CLIENT-012', 'CLIENT-018', 'CLIENT-020', 'CLIENT-029', 'CLIENT-032', 'CLIENT-037', 'CLIENT-039', 'CLIENT-046', 'CLIENT-048'],
  // A stream cut before the end: every client's stream throws (openai-node "terminated", the AI SDK APICallError).
  'stream-disconnect': ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-019', 'CLIENT-021', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-030', 'CLIENT-031', 'CLIENT-033', 'CLIENT-038', 'CLIENT-040', 'CLIENT-045', 'CLIENT-047', 'CLIENT-049', 'CLIENT-054'],
  // {"detail": ...} error bodies: openai-node says "401 status code (no body)", the AI SDK has no data.
  'error-body-detail': ['CLIENT-006', 'CLIENT-007', 'CLIENT-008', 'CLIENT-009', 'CLIENT-014', 'CLIENT-015', 'CLIENT-016', 'CLIENT-017', 'CLIENT-022', 'CLIENT-023', 'CLIENT-024', 'CLIENT-025', 'CLIENT-034', 'CLIENT-035', 'CLIENT-041', 'CLIENT-042', 'CLIENT-043', 'CLIENT-044', 'CLIENT-050', 'CLIENT-051', 'CLIENT-052', 'CLIENT-053'],
  // Broken tool arguments: openai-node's caller cannot JSON.parse them, the AI SDK marks the call invalid,
  // LangChain moves it to invalid_tool_calls (its streamed path parses partial JSON and survives).
  'tool-arguments-invalid-json': ['CLIENT-004', 'CLIENT-005', 'CLIENT-012', 'CLIENT-013', 'CLIENT-020', 'CLIENT-032', 'CLIENT-033', 'CLIENT-039', 'CLIENT-040', 'CLIENT-048', 'CLIENT-049'],
  // A wrong key answered 403: PermissionDeniedError / statusCode 403, not the 401 class callers catch
  // (message and code intact: a deviation, non-strict at most; see `deviations`).
  'auth-401-as-403': ['CLIENT-006', 'CLIENT-014', 'CLIENT-022', 'CLIENT-034', 'CLIENT-041', 'CLIENT-050'],
  // An unknown model answered 400: BadRequestError, not NotFoundError / MODEL_NOT_FOUND (likewise a deviation).
  'model-not-found-400': ['CLIENT-007', 'CLIENT-015', 'CLIENT-023', 'CLIENT-035', 'CLIENT-042', 'CLIENT-051'],
  // The reasoning model's thinking also sent in content: every client hands it to the caller as the answer.
  'reasoning-leaked': ['CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-045', 'CLIENT-054'],
  // "data: [DONE] " (a trailing space): openai 7 (and LangChain through it) throws "malformed server-sent event JSON", the AI SDK a JSONParseError; openai 6 and openai-python read it as the end.
  'stream-done-trailing-space': ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-019', 'CLIENT-021', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-047', 'CLIENT-049', 'CLIENT-054'],
  // A stream without its finish chunk: ChatCompletionStream and the AI SDK refuse it.
  'stream-truncated': ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-027', 'CLIENT-038', 'CLIENT-040', 'CLIENT-047', 'CLIENT-049', 'CLIENT-054'],
  // an event with an empty data field: openai-python's Stream parses it with sse.json() and raises JSONDecodeError; the JavaScript clients fail too (docs/clients.md says how).
  'stream-empty-data-event': ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-019', 'CLIENT-021', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-030', 'CLIENT-031', 'CLIENT-033', 'CLIENT-038', 'CLIENT-040', 'CLIENT-045', 'CLIENT-047', 'CLIENT-049', 'CLIENT-054'],
  // a comment sent as data: openai-python raises JSONDecodeError; the JavaScript clients fail too (docs/clients.md says how).
  'stream-comment-as-data': ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-019', 'CLIENT-021', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-030', 'CLIENT-031', 'CLIENT-033', 'CLIENT-038', 'CLIENT-040', 'CLIENT-045', 'CLIENT-047', 'CLIENT-049', 'CLIENT-054'],
  // an event with only id:/retry: lines: openai-python raises JSONDecodeError from both stream forms (the JS clients skip it).
  'stream-meta-only-event': ['CLIENT-030', 'CLIENT-031', 'CLIENT-033'],
  // each chunk at another choice index: openai-python's .stream() builds the final completion from choice 0 only; the JavaScript clients fail too (docs/clients.md says how).
  'choice-index-increments': ['CLIENT-003', 'CLIENT-005', 'CLIENT-031', 'CLIENT-033', 'CLIENT-038', 'CLIENT-040'],
  // chunks whose object is not chat.completion.chunk: openai-python's .stream() skips them and get_final_completion() raises AssertionError.
  'chunk-object-wrong': ['CLIENT-031', 'CLIENT-033'],
  // no role in the first delta: openai-python's .stream() final message has no role, so the tool round trip is refused (400); the JavaScript clients fail too (docs/clients.md says how).
  'role-missing-first-delta': ['CLIENT-003', 'CLIENT-005', 'CLIENT-021', 'CLIENT-033', 'CLIENT-038', 'CLIENT-040'],
  // the role in every delta: openai-python's .stream() concatenates it ('assistantassistant'), so the round trip is refused.
  'role-in-every-delta': ['CLIENT-033'],
  // tool-call deltas without index: openai-python's .stream() raises TypeError, openai 7 throws "invalid tool call index", openai 6 loses the call; LangChain fails too.
  'tool-delta-no-index': ['CLIENT-005', 'CLIENT-021', 'CLIENT-033', 'CLIENT-040'],
  // tool calls without id: openai-python sends the call back without one and the round trip is refused; the JavaScript clients fail too (docs/clients.md says how).
  'tool-delta-no-id': ['CLIENT-004', 'CLIENT-020', 'CLIENT-021', 'CLIENT-032', 'CLIENT-033', 'CLIENT-039'],
  // arguments sent as an object: openai-python's caller cannot json.loads() them; the JavaScript clients fail too (docs/clients.md says how).
  'tool-arguments-object': ['CLIENT-004', 'CLIENT-005', 'CLIENT-012', 'CLIENT-013', 'CLIENT-020', 'CLIENT-021', 'CLIENT-032', 'CLIENT-033', 'CLIENT-039', 'CLIENT-040', 'CLIENT-048', 'CLIENT-049'],
  // error as a string: openai-python's APIStatusError.body carries no message; the JavaScript clients fail too (docs/clients.md says how).
  'error-body-string': ['CLIENT-006', 'CLIENT-007', 'CLIENT-008', 'CLIENT-009', 'CLIENT-014', 'CLIENT-015', 'CLIENT-016', 'CLIENT-017', 'CLIENT-022', 'CLIENT-023', 'CLIENT-024', 'CLIENT-025', 'CLIENT-034', 'CLIENT-035', 'CLIENT-041', 'CLIENT-042', 'CLIENT-043', 'CLIENT-044', 'CLIENT-050', 'CLIENT-051', 'CLIENT-052', 'CLIENT-053'],
  // error without message: likewise; the JavaScript clients fail too (docs/clients.md says how).
  'error-message-missing': ['CLIENT-006', 'CLIENT-007', 'CLIENT-008', 'CLIENT-009', 'CLIENT-014', 'CLIENT-015', 'CLIENT-016', 'CLIENT-017', 'CLIENT-022', 'CLIENT-023', 'CLIENT-024', 'CLIENT-025', 'CLIENT-034', 'CLIENT-035', 'CLIENT-041', 'CLIENT-042', 'CLIENT-043', 'CLIENT-044', 'CLIENT-050', 'CLIENT-051', 'CLIENT-052', 'CLIENT-053'],
  // Tool messages refused: every client's round trip gets the 400 as an error.
  'tool-messages-rejected': ['CLIENT-004', 'CLIENT-005', 'CLIENT-012', 'CLIENT-013', 'CLIENT-020', 'CLIENT-021', 'CLIENT-032', 'CLIENT-033', 'CLIENT-039', 'CLIENT-040', 'CLIENT-048', 'CLIENT-049'],
  // A body that is not a completion: openai-python's create() returns no choice; the JavaScript clients fail too (docs/clients.md says how).
  'completion-not-object': ['CLIENT-002', 'CLIENT-010', 'CLIENT-012', 'CLIENT-018', 'CLIENT-020', 'CLIENT-029', 'CLIENT-037', 'CLIENT-046', 'CLIENT-048'],
  // No choices: likewise; the JavaScript clients fail too (docs/clients.md says how).
  'completion-choices-empty': ['CLIENT-002', 'CLIENT-010', 'CLIENT-012', 'CLIENT-018', 'CLIENT-020', 'CLIENT-029', 'CLIENT-037', 'CLIENT-046', 'CLIENT-048'],
  // A message role that is not assistant: openai-python sends it back and the round trip is refused; the JavaScript clients fail too (docs/clients.md says how).
  'completion-role-wrong': ['CLIENT-004', 'CLIENT-010', 'CLIENT-012', 'CLIENT-020', 'CLIENT-032', 'CLIENT-039', 'CLIENT-046', 'CLIENT-048'],
  // a tool call whose type is not function: openai-python sends it back and the round trip is refused; the JavaScript clients fail too (docs/clients.md says how).
  'tool-type-wrong': ['CLIENT-004', 'CLIENT-032', 'CLIENT-039'],
  // A call of a function never declared: openai-python reports no call of the forced tool; the JavaScript clients fail too (docs/clients.md says how).
  'tool-name-undeclared': ['CLIENT-004', 'CLIENT-020', 'CLIENT-032', 'CLIENT-039'],
  // chunks without choices: openai-python's .stream() raises TypeError; the JavaScript clients fail too (docs/clients.md says how).
  'stream-choices-missing': ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-026', 'CLIENT-027', 'CLIENT-031', 'CLIENT-033', 'CLIENT-038', 'CLIENT-040', 'CLIENT-045', 'CLIENT-047', 'CLIENT-049', 'CLIENT-054'],
  // content as a number: openai-python's .stream() raises TypeError (str + int), openai 6's final completion differs from the streamed text, the AI SDK 7 and 6 report a TypeValidationError; openai 7 reads it.
  'stream-content-number': ['CLIENT-011', 'CLIENT-013', 'CLIENT-027', 'CLIENT-031', 'CLIENT-033', 'CLIENT-038', 'CLIENT-047', 'CLIENT-049', 'CLIENT-054'],
  // A stream without chunks: openai-python's iteration gives nothing, .stream() raises AssertionError; the JavaScript clients fail too (docs/clients.md says how).
  'stream-no-chunks': ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-019', 'CLIENT-021', 'CLIENT-030', 'CLIENT-031', 'CLIENT-033', 'CLIENT-038', 'CLIENT-040', 'CLIENT-047', 'CLIENT-049'],
  // Tool-call indexes from 1: openai-python's .stream() raises IndexError; the JavaScript clients fail too (docs/clients.md says how).
  'stream-tool-index-from-1': ['CLIENT-005', 'CLIENT-033', 'CLIENT-040'],
  // bytes that are not UTF-8: openai-python raises UnicodeDecodeError from both stream forms.
  'stream-invalid-utf8': ['CLIENT-030', 'CLIENT-031', 'CLIENT-033'],
  // a leading byte order mark: openai-python loses the first event (its role), so the .stream() tool round trip is refused (400).
  'stream-bom': ['CLIENT-033'],
  // The Responses API (issue 36), openai-node's (CLIENT-RESP-001..004), openai-python's (005..008), the Agents SDK's (009, 010) and Codex CLI's (011) operations, as `scripts/client-fault-sweep.ts --ids=CLIENT-RESP 'responses-*'` observed them.
  // POST /v1/responses not served: under --expect responses every operation fails (without it, skipped as the capability's).
  'responses-missing': ['CLIENT-RESP-001', 'CLIENT-RESP-002', 'CLIENT-RESP-003', 'CLIENT-RESP-004', 'CLIENT-RESP-005', 'CLIENT-RESP-006', 'CLIENT-RESP-007', 'CLIENT-RESP-008', 'CLIENT-RESP-009', 'CLIENT-RESP-010', 'CLIENT-RESP-011'],
  // No output list: responses.create() throws TypeError "rsp.output is not iterable" (ResponsesParser addOutputText); so does the Agents SDK's run().
  'responses-output-missing': ['CLIENT-RESP-001', 'CLIENT-RESP-004', 'CLIENT-RESP-005', 'CLIENT-RESP-008', 'CLIENT-RESP-009'],
  // object "responses": openai-node adds output_text only to an object "response", so the caller's output_text is undefined.
  'responses-object-wrong': ['CLIENT-RESP-001', 'CLIENT-RESP-004'],
  // Message content as a plain string: output_text joins output_text parts only, so the caller gets "" (a silent wrong result); the Agents SDK's run() throws TypeError "content.map is not a function".
  'responses-content-string': ['CLIENT-RESP-001', 'CLIENT-RESP-004', 'CLIENT-RESP-005', 'CLIENT-RESP-008', 'CLIENT-RESP-009'],
  // Flat function tools refused (400 naming tools[0].function): the round trip gets BadRequestError; Codex, which declares its own tools flat, fails its first turn.
  'responses-tools-nested-only': ['CLIENT-RESP-004', 'CLIENT-RESP-008', 'CLIENT-RESP-009', 'CLIENT-RESP-010', 'CLIENT-RESP-011'],
  // The first answer's output items sent back as they came (id, status) refused: the round trip gets BadRequestError; Codex sends an id on every input item, so its first request is refused.
  'responses-replayed-items-rejected': ['CLIENT-RESP-004', 'CLIENT-RESP-008', 'CLIENT-RESP-009', 'CLIENT-RESP-010', 'CLIENT-RESP-011'],
  // A keep-alive sent as data: both stream forms throw (SyntaxError / OpenAIError, not valid JSON).
  'responses-stream-comment-as-data': ['CLIENT-RESP-002', 'CLIENT-RESP-003', 'CLIENT-RESP-006', 'CLIENT-RESP-007', 'CLIENT-RESP-010'],
  // No response.created: responses.stream() throws "When snapshot hasn't been set yet, expected 'response.created' event".
  'responses-stream-no-created': ['CLIENT-RESP-003', 'CLIENT-RESP-007'],
  // Deltas at an output_index never added: responses.stream() throws "missing output at index 1".
  'responses-stream-output-index-shifted': ['CLIENT-RESP-003', 'CLIENT-RESP-007'],
  // A delta's item_id unlike its item's: openai-node 7's responses.stream() throws "expected item_id '<id>', got '<id>_other'" (6 survives).
  'responses-stream-item-id-changes': ['CLIENT-RESP-003'],
  // No terminal event: streamed create never yields the Response; finalResponse() returns one still in_progress; the Agents SDK raises ModelBehaviorError "Model did not produce a final response!"; Codex fails the turn ("stream disconnected before completion").
  'responses-stream-no-terminal': ['CLIENT-RESP-002', 'CLIENT-RESP-003', 'CLIENT-RESP-006', 'CLIENT-RESP-007', 'CLIENT-RESP-010', 'CLIENT-RESP-011'],
  // response.completed with output []: the final Response has no text though the deltas had it (wrong data); the streamed agent sees no call and no answer and loops to MaxTurnsExceededError.
  'responses-stream-completed-output-empty': ['CLIENT-RESP-002', 'CLIENT-RESP-003', 'CLIENT-RESP-006', 'CLIENT-RESP-007', 'CLIENT-RESP-010'],
  // A message item never closed by response.output_item.done: Codex (which builds its items from it) completes the turn and prints no answer.
  'responses-stream-item-not-done': ['CLIENT-RESP-011'],
  // A vendor event type: responses.stream() throws "Unhandled response stream event" (streamed create passes it on).
  'responses-stream-vendor-event': ['CLIENT-RESP-003'],
};

/**
 * Faults whose CLIENT breaks are a different legal status with the server's message intact: clients
 * raise another error class and callers survive it, so the CLIENT verdict is non-strict, never fail
 * (src/checks/clients/client-errors.ts LEGAL_ALTERNATIVES).
 */
const deviations: ReadonlySet<string> = new Set(['auth-401-as-403', 'model-not-found-400']);

/** The streamed operations of the clients (both majors of openai-node and the AI SDK). */
const STREAMED = ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-019', 'CLIENT-021', 'CLIENT-030', 'CLIENT-031', 'CLIENT-033', 'CLIENT-038', 'CLIENT-040', 'CLIENT-047', 'CLIENT-049'];

/**
 * Legal-but-unusual streams that the real clients must read as they read the faithful one: the
 * fault matrix runs the CLIENT checks under these modes too, and none may fail.
 */
/** The streamed Responses operations of openai-node, openai-python, the Agents SDK and Codex CLI. */
const RESPONSES_STREAMED = ['CLIENT-RESP-002', 'CLIENT-RESP-003', 'CLIENT-RESP-006', 'CLIENT-RESP-007', 'CLIENT-RESP-010', 'CLIENT-RESP-011'];

const clientExercises: Readonly<Record<string, readonly string[]>> = {
  'legal-crlf': STREAMED,
  'legal-lone-cr': STREAMED,
  'legal-comments': STREAMED,
  'legal-data-no-space': STREAMED,
  'legal-tiny-writes': STREAMED,
  'legal-split-utf8': STREAMED,
  'legal-multiline-data': STREAMED,
  'legal-reasoning-field': ['CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-045', 'CLIENT-054'],
  'legal-responses-data-only': RESPONSES_STREAMED,
  'legal-responses-stateless': ['CLIENT-RESP-001', 'CLIENT-RESP-002', 'CLIENT-RESP-003', 'CLIENT-RESP-004', 'CLIENT-RESP-005', 'CLIENT-RESP-006', 'CLIENT-RESP-007', 'CLIENT-RESP-008', 'CLIENT-RESP-009', 'CLIENT-RESP-010', 'CLIENT-RESP-011'],
};

/** The fault definitions with the CLIENT requirements each one breaks added to `breaks` (legal modes: to `exercises`). */
export function withClientBreaks(list: readonly FaultDefinition[]): FaultDefinition[] {
  return list.map((f) => {
    const extra = clientBreaks[f.name];
    if (extra !== undefined) return { ...f, breaks: [...f.breaks, ...extra.filter((id) => !f.breaks.includes(id))], ...(deviations.has(f.name) ? { deviates: [...extra] } : {}) };
    const exercised = clientExercises[f.name];
    if (exercised !== undefined) return { ...f, exercises: [...(f.exercises ?? []), ...exercised.filter((id) => !(f.exercises ?? []).includes(id))] };
    return f;
  });
}

/** Fault names the table names (a test keeps them in step with the catalogue). */
export const clientImpactFaults: readonly string[] = Object.keys(clientBreaks);

/** Legal-mode names the table names. */
export const clientExercisedModes: readonly string[] = Object.keys(clientExercises);
