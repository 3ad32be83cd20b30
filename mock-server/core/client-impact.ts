import type { FaultDefinition } from './fault-catalogue.ts';

// The faults that prove the CLIENT checks can fail: real client libraries (openai-node, the Vercel
// AI SDK, LangChain) run against the mock with the fault on, and these are the CLIENT requirements
// whose operation then fails, exactly as observed by `npx tsx scripts/client-fault-sweep.ts NAME`.
// The fault matrix asserts them like any other `breaks` (and that no other CLIENT verdict moves).
// Every CLIENT requirement is broken by at least one of them; docs/clients.md has the full table
// of what every fault does to the three clients.

const clientBreaks: Readonly<Record<string, readonly string[]>> = {
  // openai-node's page reads body.data: a bare array yields no models and no error.
  'models-bare-array': ['CLIENT-001'],
  // A completion message without content: every client hands the caller no text.
  'content-missing': ['CLIENT-002', 'CLIENT-004', 'CLIENT-010', 'CLIENT-012', 'CLIENT-018', 'CLIENT-020'],
  // A stream cut before the end: every client's stream throws (openai-node "terminated", the AI SDK APICallError).
  'stream-disconnect': ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-019', 'CLIENT-021', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028'],
  // {"detail": ...} error bodies: openai-node says "401 status code (no body)", the AI SDK has no data.
  'error-body-detail': ['CLIENT-006', 'CLIENT-007', 'CLIENT-008', 'CLIENT-009', 'CLIENT-014', 'CLIENT-015', 'CLIENT-016', 'CLIENT-017', 'CLIENT-022', 'CLIENT-023', 'CLIENT-024', 'CLIENT-025'],
  // Broken tool arguments: openai-node's caller cannot JSON.parse them, the AI SDK marks the call invalid,
  // LangChain moves it to invalid_tool_calls (its streamed path parses partial JSON and survives).
  'tool-arguments-invalid-json': ['CLIENT-004', 'CLIENT-005', 'CLIENT-012', 'CLIENT-013', 'CLIENT-020'],
  // A wrong key answered 403: PermissionDeniedError / statusCode 403, not the 401 class callers catch
  // (message and code intact: a deviation, non-strict at most; see `deviations`).
  'auth-401-as-403': ['CLIENT-006', 'CLIENT-014', 'CLIENT-022'],
  // An unknown model answered 400: BadRequestError, not NotFoundError / MODEL_NOT_FOUND (likewise a deviation).
  'model-not-found-400': ['CLIENT-007', 'CLIENT-015', 'CLIENT-023'],
  // The reasoning model's thinking also sent in content: every client hands it to the caller as the answer.
  'reasoning-leaked': ['CLIENT-026', 'CLIENT-027', 'CLIENT-028'],
  // A stream without its finish chunk: ChatCompletionStream and the AI SDK refuse it.
  'stream-truncated': ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-027'],
};

/**
 * Faults whose CLIENT breaks are a different legal status with the server's message intact: clients
 * raise another error class and callers survive it, so the CLIENT verdict is non-strict, never fail
 * (src/checks/clients/client-errors.ts LEGAL_ALTERNATIVES).
 */
const deviations: ReadonlySet<string> = new Set(['auth-401-as-403', 'model-not-found-400']);

/** The streamed operations of the three clients. */
const STREAMED = ['CLIENT-003', 'CLIENT-005', 'CLIENT-011', 'CLIENT-013', 'CLIENT-019', 'CLIENT-021'];

/**
 * Legal-but-unusual streams that the real clients must read as they read the faithful one: the
 * fault matrix runs the CLIENT checks under these modes too, and none may fail.
 */
const clientExercises: Readonly<Record<string, readonly string[]>> = {
  'legal-crlf': STREAMED,
  'legal-lone-cr': STREAMED,
  'legal-comments': STREAMED,
  'legal-data-no-space': STREAMED,
  'legal-tiny-writes': STREAMED,
  'legal-split-utf8': STREAMED,
  'legal-multiline-data': STREAMED,
  'legal-reasoning-field': ['CLIENT-026', 'CLIENT-027', 'CLIENT-028'],
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
