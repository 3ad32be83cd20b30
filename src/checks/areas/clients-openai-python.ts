import type { CheckDef } from '../context/check-types.ts';
import { unknownModelId } from '../requests/common-requests.ts';
import { CLIENT_NAMES } from '../clients/client-libraries.ts';
import { clientOp, type ClientOpDef, CLIENT_MAX_TOKENS, CLIENT_PROMPT, clientWeatherTool, textProblem, TOOL_PROMPT, TOOL_RESULT, toolCallProblem, noToolCall, type LocalOpEnv, type OpResult } from '../clients/client-op.ts';
import { WRONG_KEY, noWrongKey, survivableStatus } from '../clients/client-errors.ts';
import { startClientRelay } from '../clients/client-relay.ts';
import { rateLimitGiveUp } from '../rate-limits/rate-limit-retry.ts';
import { pythonClient, runPython, type PythonJob, type PythonRaised, type PythonSlot } from '../clients/python-worker.ts';

// Seed, What the service does: "existing clients for that format work when only the base address
// is changed". openai-python is the official SDK most chat-completions code outside JavaScript
// calls (LangChain's ChatOpenAI and LiteLLM stream through it). Each check makes one call a
// Python user makes, with only base_url and api_key set (and max_retries=0), in the interpreter
// `iari test --python PATH` names (default python3), and reports what openai-python itself says.
// Where that interpreter or the openai package is missing, the operations are skipped, saying so.

const client = CLIENT_NAMES.python;

/** The run's interpreter: `--python PATH`, else python3 (a context made elsewhere gets its own). */
const fallbackSlots = new WeakMap<LocalOpEnv['ctx'], PythonSlot>();
function slotOf(ctx: LocalOpEnv['ctx']): PythonSlot {
  if (ctx.python !== undefined) return ctx.python;
  let s = fallbackSlots.get(ctx);
  if (s === undefined) fallbackSlots.set(ctx, (s = { interpreter: 'python3' }));
  return s;
}

type Op = PythonJob['op'];

/**
 * An openai-python operation as a check: the run starts the driver process when it starts (prepare),
 * so the interpreter's start and openai's import overlap the checks before the first Python one.
 */
export function pythonOp(def: Omit<ClientOpDef, 'client'> & { run(env: LocalOpEnv): Promise<OpResult | 'not-installed'> }): CheckDef {
  const { run, ...rest } = def;
  return clientOp({ ...rest, client, prepare: (ctx) => void pythonClient(slotOf(ctx)), local: run });
}

function unavailable(reason: string): string {
  return `${client} cannot run: ${reason}; install it (pip install openai) and name the interpreter with --python PATH`;
}

/** Runs one openai-python operation through a relay to the server; its result, what it raised, or why it could not run. */
async function python(env: LocalOpEnv, op: Op, overrides: { key?: string; model?: string } = {}): Promise<{ ok: Record<string, unknown> } | { raised: PythonRaised } | { result: OpResult }> {
  // An interpreter without openai is known from its first start: nothing is sent then.
  const available = await pythonClient(slotOf(env.ctx));
  if ('unavailable' in available) return { result: { skip: unavailable(available.unavailable) } };
  const token = env.ctx.http.tokenForProbe();
  const relay = await startClientRelay(env.t, token);
  try {
    const bound = (await env.caps()).bound;
    const job: PythonJob = {
      op,
      base_url: relay.baseUrl,
      api_key: overrides.key ?? relay.standInKey,
      model: overrides.model ?? env.model,
      ...(bound ? { max_tokens: CLIENT_MAX_TOKENS } : {}),
      ...(op.startsWith('responses_') ? { max_output_tokens: CLIENT_MAX_TOKENS } : {}),
      prompt: CLIENT_PROMPT,
      tool: clientWeatherTool,
      tool_prompt: TOOL_PROMPT,
      tool_result: TOOL_RESULT,
      timeout_s: Math.ceil(env.ctx.http.timeoutMs / 1000) + 5,
    };
    const out = await runPython(slotOf(env.ctx), job, env.ctx.checkTimeoutMs);
    // The run's 429 budget spent under it: thrown, so the runner skips the operation and LIMIT-010 reports it, as for the other libraries.
    const giveUp = relay.errors.map(rateLimitGiveUp).find((e) => e !== undefined);
    if (giveUp !== undefined) throw giveUp;
    if ('unavailable' in out) return { result: { skip: unavailable(out.unavailable) } };
    if ('timedOut' in out) return { result: { problem: out.timedOut } };
    return out;
  } finally {
    await relay.close();
  }
}

function raisedText(r: PythonRaised): string {
  const message = r.message.replace(/\s+/g, ' ').trim();
  return `${r.type}${message === '' ? '' : `: ${message.length > 300 ? `${message.slice(0, 300)}...` : message}`}${r.where === null ? '' : ` (at ${r.where})`}`;
}

/**
 * openai-python's parse helpers (`.stream()`'s final completion, `.parse()`) raise on a finish reason
 * that ends the model's answer, whatever the server did right: lib/_parsing/_completions.py
 * `if choice.finish_reason == "length": raise LengthFinishReasonError(...)`, and
 * `ContentFilterFinishReasonError` for "content_filter". The server said so on the wire, truthfully
 * or not (CHAT-030 judges the bound itself): the model's doing, undecided here (issue 37).
 */
const MODEL_FINISH_ERRORS: Readonly<Record<string, string>> = { LengthFinishReasonError: 'length', ContentFilterFinishReasonError: 'content_filter' };

/** The common shape: what raised becomes the problem in openai-python's words; a result is judged by `judge`. */
export async function judged(env: LocalOpEnv, op: Op, judge: (ok: Record<string, unknown>) => Promise<OpResult> | OpResult): Promise<OpResult> {
  const out = await python(env, op);
  if ('result' in out) return out.result;
  if ('raised' in out) {
    const finish = MODEL_FINISH_ERRORS[out.raised.type];
    if (finish !== undefined) return { skip: `undecided: the server ended the answer with finish_reason "${finish}" (the model ran to its bound or was filtered) and openai-python's helper raises ${out.raised.type} on it; nothing on the wire is the server's fault` };
    return { problem: `raised ${raisedText(out.raised)}` };
  }
  return judge(out.ok);
}

const create = pythonOp({
  name: 'client-openai-python-create',
  id: 'CLIENT-029',
  call: 'client.chat.completions.create()',
  title: 'returns a completion with the assistant text',
  run: (env) =>
    judged(env, 'create', (ok) => {
      if (ok['choice'] !== true) return { problem: 'returned no choice' };
      return textProblem(ok['text'], ok['finish'], true);
    }),
});

const stream = pythonOp({
  name: 'client-openai-python-stream',
  id: 'CLIENT-030',
  call: 'client.chat.completions.create(stream=True)',
  title: 'yields chunks whose deltas join to the text, without raising',
  run: (env) => judged(env, 'stream', (ok) => textProblem(ok['text'], ok['finish'], true)),
});

const streamHelper = pythonOp({
  name: 'client-openai-python-stream-helper',
  id: 'CLIENT-031',
  call: 'client.chat.completions.stream() with get_final_completion()',
  title: 'streams the text and assembles the final completion from it',
  run: (env) =>
    judged(env, 'stream_helper', (ok) => {
      if ((ok['final_text'] ?? '') !== ok['text']) return { problem: 'the final completion differs from the streamed text', expected: ok['text'], received: ok['final_text'] };
      return textProblem(ok['text'], ok['finish'], true);
    }),
});

async function roundTrip(env: LocalOpEnv, ok: Record<string, unknown>): Promise<OpResult> {
  const call = ok['call'] as { name?: unknown; parsed?: unknown } | null;
  if (call === null || call === undefined) return noToolCall(env);
  const problem = toolCallProblem(call.name, call.parsed);
  if (problem !== undefined) return problem;
  return textProblem(ok['text'], ok['finish'], true);
}

const tools = pythonOp({
  name: 'client-openai-python-tool-round-trip',
  id: 'CLIENT-032',
  call: 'client.chat.completions.create(tools=...)',
  title: 'returns the forced tool call with JSON arguments, and a text answer once the tool result is sent back',
  run: (env) => judged(env, 'tools', (ok) => roundTrip(env, ok)),
});

const toolsStreamed = pythonOp({
  name: 'client-openai-python-tool-round-trip-stream',
  id: 'CLIENT-033',
  call: 'client.chat.completions.stream(tools=...)',
  title: 'assembles the streamed tool call with JSON arguments, and a text answer once the tool result is sent back',
  run: (env) => judged(env, 'tools_stream_helper', (ok) => roundTrip(env, ok)),
});

/**
 * openai-python's error for a status (`_client.py` `_make_status_error`): the class for it, an
 * APIStatusError subclass that keeps `status_code`, with the server's `error` object as `body`.
 */
async function errorOp(env: LocalOpEnv, status: 401 | 404, className: string, overrides: { key?: string; model?: string }, unprovoked: string): Promise<OpResult> {
  const out = await python(env, 'error', overrides);
  if ('result' in out) return out.result;
  if ('ok' in out) return { skip: unprovoked };
  const r = out.raised;
  const answered = env.t.last()?.status;
  if (answered !== undefined && answered < 400) return { skip: unprovoked };
  const wrong = !r.bases.includes('APIStatusError')
    ? 'not an APIStatusError'
    : r.type !== className
      ? `${r.type} (status ${String(r.status)}), not ${className}`
      : r.status !== status
        ? `status_code ${String(r.status)}`
        : typeof r.body_message !== 'string' || r.body_message === ''
          ? 'the server\'s error message did not reach the caller (APIStatusError.body has no message)'
          : undefined;
  if (wrong === undefined) return undefined;
  const body = env.t.last()?.errorBody;
  const deviation = answered !== undefined && typeof r.body_message === 'string' && r.body_message !== '' && survivableStatus(status, answered);
  return {
    ...(deviation ? { deviation: true as const } : {}),
    problem: `raised ${raisedText(r)}: ${wrong}`,
    expected: `${className} (an APIStatusError, status_code ${status}) with the server's error message`,
    received: answered === undefined ? 'no response' : `the server answered ${answered}${body === undefined || body === '' ? '' : ` ${body}`}`,
  };
}

const unauthorized = pythonOp({
  name: 'client-openai-python-401',
  id: 'CLIENT-034',
  call: 'client.chat.completions.create() with a wrong key',
  title: 'raises AuthenticationError (an APIStatusError with status_code 401) carrying the server error message',
  run: async (env) => noWrongKey(env) ?? errorOp(env, 401, 'AuthenticationError', { key: WRONG_KEY }, 'the server accepted a wrong key (AUTH-006 judges it)'),
});

const unknownModel = pythonOp({
  name: 'client-openai-python-404-model',
  id: 'CLIENT-035',
  call: 'client.chat.completions.create() with an unknown model',
  title: 'raises NotFoundError (an APIStatusError with status_code 404) carrying the server error message',
  run: (env) => errorOp(env, 404, 'NotFoundError', { model: env.unknownModel }, 'the server answered for a model it does not list (MODELS-010 judges it)'),
});

export const openaiPythonClientChecks: CheckDef[] = [create, stream, streamHelper, tools, toolsStreamed, unauthorized, unknownModel];
