import type { CheckContext } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { at, isRecord } from '../kernel/evidence.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest } from '../context/shared-requests.ts';

/** The small prompt every shared completion sends. */
export const PROMPT = 'Say hello to the conformance suite in a few words.';

export const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
} as const;

export const timeTool = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'Current time in a time zone.',
    parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
  },
} as const;

/** GET /v1/models without credentials (the route is public), shared by the run. */
export const modelList = sharedRequest('models', (ctx: CheckContext): Promise<HttpExchange> => ctx.http.get('/v1/models', { auth: 'none' }));

/** GET /v1/models with the run's token (a server that lists nothing without it). */
const modelListWithToken = sharedRequest('models:with-token', (ctx: CheckContext): Promise<HttpExchange> => ctx.http.get('/v1/models'));

/**
 * The model entries of a list body: `data`, or (leniently, to keep probing) a bare array or the
 * one array member (`models`). Seed, Model list: "Fields of the response: not shown beyond the fact
 * that it carries model identifiers"; the MODELS checks judge the OpenAI shape itself.
 */
export function listedModels(json: unknown): unknown[] | undefined {
  const data = at(json, 'data');
  if (Array.isArray(data)) return data;
  if (Array.isArray(json)) return json;
  const arrays = isRecord(json) ? Object.values(json).filter(Array.isArray) : [];
  return arrays.length === 1 ? arrays[0] : undefined;
}

/** A listed model's identifier: `id`, else `model` or `name` (Ollama), or the entry itself when it is a string. */
export function modelIdOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry.length > 0 ? entry : undefined;
  for (const key of ['id', 'model', 'name']) {
    const v = at(entry, key);
    if (typeof v === 'string' && v.length > 0) return v;
  }
  return undefined;
}

function idsOf(ex: HttpExchange): string[] {
  if (ex.status !== 200) return [];
  return (listedModels(ex.json) ?? []).map(modelIdOf).filter((id): id is string => id !== undefined);
}

/**
 * The listed model ids, for checks that need a model to probe with. Lenient on purpose: a list
 * that needs a token, or is a bare array, is judged by the MODELS/AUTH checks, and the other
 * checks still get a model. Throws (the check fails) only when no id can be found at all.
 */
export async function modelIds(ctx: CheckContext): Promise<string[]> {
  // `iari test --model ID`: that model first, then whatever the list gives (nothing, when it is broken).
  if (ctx.model !== undefined) {
    const chosen = ctx.model;
    const listed = await modelList(ctx).then(idsOf, () => []);
    return [chosen, ...listed.filter((id) => id !== chosen)];
  }
  const ids = idsOf(await modelList(ctx));
  if (ids.length > 0) return ids;
  const withToken = idsOf(await modelListWithToken(ctx));
  if (withToken.length > 0) return withToken;
  throw new Error('GET /v1/models lists no usable model id');
}

/** The model the checks test: `--model`, else the first one the server lists. */
export async function modelUnderTest(ctx: CheckContext): Promise<string> {
  if (ctx.model !== undefined) return ctx.model;
  return (await modelIds(ctx))[0] as string;
}

/**
 * A minimal chat body. Only `model` and `messages` by default: optional parameters (even `seed`)
 * are CHAT-019's to judge, so a server refusing one does not fail every other check.
 */
export function chatBody(_ctx: CheckContext, model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, messages: [{ role: 'user', content: PROMPT }], ...extra };
}

/** GET /v1/me with the run's token (fresh each call: usage changes). */
export function getMe(ctx: CheckContext): Promise<HttpExchange> {
  return ctx.http.get('/v1/me');
}

/** The first /v1/me of the run, for shape checks. */
export const sharedMe = sharedRequest('me', (ctx: CheckContext): Promise<HttpExchange> => getMe(ctx));

/** One minimal non-streaming completion, shared by the shape checks. */
export const basicCompletion = sharedRequest('chat:basic', async (ctx: CheckContext): Promise<HttpExchange> => ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx))));

/** The same request as `basicCompletion`, streamed. */
export const basicStream = sharedRequest('chat:stream', async (ctx: CheckContext): Promise<HttpExchange> => ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { stream: true })));

/** Streamed with `stream_options.include_usage`. */
export const usageStream = sharedRequest('chat:stream-usage', async (ctx: CheckContext): Promise<HttpExchange> =>
  ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { stream: true, stream_options: { include_usage: true } })),
);

/** Streamed with an empty `stream_options` (usage must still not be sent). */
export const emptyOptionsStream = sharedRequest('chat:stream-empty-options', async (ctx: CheckContext): Promise<HttpExchange> =>
  ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { stream: true, stream_options: {} })),
);

/** Streamed with n = 2. */
export const twoChoiceStream = sharedRequest('chat:stream-n2', async (ctx: CheckContext): Promise<HttpExchange> => ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { stream: true, n: 2 })));

/** `body.error` when the body is an OpenAI-shaped error, else undefined. */
export function errorOf(ex: HttpExchange): Record<string, unknown> | undefined {
  const e = at(ex.json, 'error');
  return isRecord(e) ? e : undefined;
}

/**
 * `error[member]` when the server sent an error object whose member is of the profile's type
 * (string, or null where allowed); undefined when the body shape itself is broken, which the
 * ERR checks judge, so other checks do not fail twice for it.
 */
export function errorMember(ex: HttpExchange, member: 'type' | 'code' | 'param'): { value: string | null } | undefined {
  const e = errorOf(ex);
  if (e === undefined || !(member in e)) return undefined;
  const v = e[member];
  if (typeof v === 'string') return { value: v };
  if (v === null && member !== 'type') return { value: null };
  return undefined;
}

/** True unless the error member is judgeable and differs from `expected`. */
export function errorMemberIs(ex: HttpExchange, member: 'type' | 'code' | 'param', expected: readonly (string | null)[]): boolean {
  const m = errorMember(ex, member);
  return m === undefined || expected.includes(m.value);
}

/** A model id that no server lists. */
export function unknownModelId(ctx: CheckContext): string {
  return `iari-no-such-model-${ctx.seed}`;
}

/** A prompt that asks for both declared tools in one turn. */
export const BOTH_TOOLS_PROMPT = 'What is the weather in Zürich, and what time is it there? Use both tools.';

/**
 * The streamed two-tool turn, sent once per run: the parallel-tool-calls probe and TOOLS-024/025
 * read the same exchange, so the capability table and the verdicts cannot disagree.
 */
export const parallelToolStream = sharedRequest('tools:parallel-stream', async (ctx: CheckContext): Promise<HttpExchange> =>
  ctx.http.post(CHAT_COMPLETIONS_PATH, { model: await modelUnderTest(ctx), messages: [{ role: 'user', content: BOTH_TOOLS_PROMPT }], tools: [weatherTool, timeTool], stream: true }),
);
