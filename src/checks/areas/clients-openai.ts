import type OpenAI from 'openai';
import type { CheckDef } from '../context/check-types.ts';
import type { ChatCompletionMessageParam } from 'openai/resources/chat';
import { unknownModelId } from '../requests/common-requests.ts';
import { OPENAI_NODE, OPENAI_NODE_6, openaiNode, type OpenAINodeMajor } from '../clients/client-libraries.ts';
import { clientOp, clientCaps, CLIENT_MAX_TOKENS, CLIENT_PROMPT, clientWeatherTool, textProblem, TOOL_PROMPT, TOOL_RESULT, toolCallProblem, noToolCall, type OpEnv, type OpResult } from '../clients/client-op.ts';
import { expectClientError, WRONG_KEY, noWrongKey, UNKNOWN_PREFIX, type ErrorExpectation } from '../clients/client-errors.ts';
import type { OpTransport } from '../clients/client-op-env.ts';
import { CHAT_COMPLETIONS_ROUTE } from '../../protocols/chat-completions/chat-request.ts';

// Seed, What the service does: "existing clients for that format work when only the base address
// is changed". The official SDK (openai-node) is the first such client: each check makes one call
// a user makes, with only baseURL and apiKey set, and reports what the SDK itself says. The same
// operations run with the current major (openai 7) and the previous one (openai 6), each its own
// CLIENT requirements.

const forced = { type: 'function', function: { name: clientWeatherTool.function.name } } as const;

/** `max_tokens` where the server offers a length bound (capability max-completion-tokens). */
async function maxTokens(env: Pick<OpEnv, 'caps'>): Promise<{ max_tokens?: number }> {
  return (await env.caps()).bound ? { max_tokens: CLIENT_MAX_TOKENS } : {};
}

/** Arguments parsed the way a user of the SDK parses them (`JSON.parse(call.function.arguments)`). */
function parsedArguments(args: unknown): unknown {
  try {
    return JSON.parse(args as string) as unknown;
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
}

/** The CLIENT requirement each operation decides, for one major of openai-node. */
interface OpenAIOpIds {
  models: string;
  completion: string;
  stream: string;
  tools: string;
  toolsStreamed: string;
  unauthorized: string;
  unknownModel: string;
  unknownRoute: string;
}

/** The operations, run with one major of openai-node (`prefix` names its checks). */
function openaiOps(m: OpenAINodeMajor, prefix: string, ids: OpenAIOpIds): { checks: CheckDef[]; rateLimited: (t: OpTransport, key: string, model: string) => Promise<OpResult | 'not-installed'> } {
  const client = m.client;

  async function sdk(env: OpEnv, key?: string, t: OpTransport = env.t): Promise<OpenAI | 'not-installed'> {
    return (await openaiNode(t, key ?? env.key, m)) ?? 'not-installed';
  }

  /**
   * openai-node's error for a status: the class the SDK documents for it, with the server's
   * `error.message` read into `APIError.error` (a body without it gives "404 status code (no body)").
   */
  async function sdkError(status: 401 | 404 | 429): Promise<ErrorExpectation> {
    const mod = await m.load();
    if (mod === undefined) throw new Error(`${m.client} is not installed`);
    const cls = { 401: mod.AuthenticationError, 404: mod.NotFoundError, 429: mod.RateLimitError }[status];
    return {
      status,
      className: cls.name,
      judge(error) {
        if (!(error instanceof mod.APIError)) return 'not an APIError';
        if (!(error instanceof cls)) return `${error.constructor.name} (status ${String(error.status)}), not ${cls.name}`;
        const message = (error.error as { message?: unknown } | undefined)?.message;
        if (typeof message !== 'string' || message === '') return 'the server\'s error message did not reach the caller (APIError.error has no message)';
        return undefined;
      },
    };
  }

  const models = clientOp({
    name: `${prefix}-models-list`,
    id: ids.models,
    client,
    call: 'client.models.list()',
    title: 'yields the listed models, each with its id',
    needsModel: false,
    async run(env) {
      const c = await sdk(env);
      if (c === 'not-installed') return c;
      const listed: unknown[] = [];
      for await (const model of c.models.list()) listed.push(model.id);
      if (listed.length === 0) return { problem: 'yielded no models and no error', expected: 'at least one model', received: [] };
      if (!listed.every((id) => typeof id === 'string' && id !== '')) return { problem: 'yielded a model without a string id', received: listed };
      return undefined;
    },
  });

  const completion = clientOp({
    name: `${prefix}-completion`,
    id: ids.completion,
    client,
    call: 'client.chat.completions.create()',
    title: 'returns a completion with the assistant text',
    async run(env) {
      const c = await sdk(env);
      if (c === 'not-installed') return c;
      const res = await c.chat.completions.create({ model: env.model, messages: [{ role: 'user', content: CLIENT_PROMPT }], ...(await maxTokens(env)) });
      const choice = res.choices?.[0];
      if (choice === undefined) return { problem: 'returned no choice', received: res };
      return textProblem(choice.message?.content, choice.finish_reason, true);
    },
  });

  const stream = clientOp({
    name: `${prefix}-stream`,
    id: ids.stream,
    client,
    call: 'client.chat.completions.stream()',
    title: 'streams the text and assembles the final completion from it',
    async run(env) {
      const c = await sdk(env);
      if (c === 'not-installed') return c;
      const s = c.chat.completions.stream({ model: env.model, messages: [{ role: 'user', content: CLIENT_PROMPT }], ...(await maxTokens(env)) });
      let text = '';
      for await (const chunk of s) text += chunk.choices[0]?.delta?.content ?? '';
      const final = await s.finalChatCompletion();
      const choice = final.choices[0];
      if ((choice?.message.content ?? '') !== text) return { problem: 'the final completion differs from the streamed text', expected: text, received: choice?.message.content };
      return textProblem(text, choice?.finish_reason, true);
    },
  });

  async function toolRoundTrip(env: OpEnv, streamed: boolean): Promise<OpResult | 'not-installed'> {
    const c = await sdk(env);
    if (c === 'not-installed') return c;
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: TOOL_PROMPT }];
    const request = { model: env.model, messages, tools: [clientWeatherTool], ...(await maxTokens(env)) };
    const first = streamed ? await c.chat.completions.stream({ ...request, tool_choice: forced }).finalChatCompletion() : await c.chat.completions.create({ ...request, tool_choice: forced });
    const message = first.choices?.[0]?.message;
    const call = message?.tool_calls?.[0];
    const problem = call === undefined ? await noToolCall(env) : toolCallProblem(call.type === 'function' ? call.function.name : undefined, call.type === 'function' ? parsedArguments(call.function.arguments) : undefined);
    if (problem !== undefined || message === undefined || call === undefined) return problem ?? { problem: 'returned no tool call', received: message };
    // The documented loop: the assistant message goes back as it came, followed by the tool's result.
    messages.push(message as ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(TOOL_RESULT) });
    if (streamed) {
      const s = c.chat.completions.stream(request);
      const final = await s.finalChatCompletion();
      return textProblem(final.choices[0]?.message.content, final.choices[0]?.finish_reason, true);
    }
    const second = await c.chat.completions.create(request);
    return textProblem(second.choices?.[0]?.message?.content, second.choices?.[0]?.finish_reason, true);
  }

  const tools = clientOp({
    name: `${prefix}-tool-round-trip`,
    id: ids.tools,
    client,
    call: 'client.chat.completions.create({ tools })',
    title: 'returns the forced tool call with JSON arguments, and a text answer once the tool result is sent back',
    run: (env) => toolRoundTrip(env, false),
  });

  const toolsStreamed = clientOp({
    name: `${prefix}-tool-round-trip-stream`,
    id: ids.toolsStreamed,
    client,
    call: 'client.chat.completions.stream({ tools })',
    title: 'assembles the streamed tool call with JSON arguments, and streams a text answer once the tool result is sent back',
    run: (env) => toolRoundTrip(env, true),
  });

  const unauthorized = clientOp({
    name: `${prefix}-401`,
    id: ids.unauthorized,
    client,
    call: 'client.chat.completions.create() with a wrong key',
    title: 'raises AuthenticationError carrying the server error message',
    async run(env) {
      const tokenless = noWrongKey(env);
      if (tokenless !== undefined) return tokenless;
      const c = await sdk(env, WRONG_KEY);
      if (c === 'not-installed') return c;
      const mt = await maxTokens(env);
      return expectClientError(env.t, await sdkError(401), 'the server accepted a wrong key (AUTH-006 judges it)', () =>
        c.chat.completions.create({ model: env.model, messages: [{ role: 'user', content: CLIENT_PROMPT }], ...mt }),
      );
    },
  });

  const unknownModel = clientOp({
    name: `${prefix}-404-model`,
    id: ids.unknownModel,
    client,
    call: 'client.chat.completions.create() with an unknown model',
    title: 'raises NotFoundError carrying the server error message',
    async run(env) {
      const c = await sdk(env);
      if (c === 'not-installed') return c;
      const mt = await maxTokens(env);
      return expectClientError(env.t, await sdkError(404), 'the server answered for a model it does not list (MODELS-010 judges it)', () =>
        c.chat.completions.create({ model: env.unknownModel, messages: [{ role: 'user', content: CLIENT_PROMPT }], ...mt }),
      );
    },
  });

  const unknownRoute = clientOp({
    name: `${prefix}-404-route`,
    id: ids.unknownRoute,
    client,
    call: `client.chat.completions.create() under baseURL …/v1/${UNKNOWN_PREFIX}`,
    title: 'raises NotFoundError carrying the server error message',
    async run(env) {
      const c = await sdk(env);
      if (c === 'not-installed') return c;
      const wrongBase = c.withOptions({ baseURL: `${env.t.baseUrl}/${UNKNOWN_PREFIX}` });
      const mt = await maxTokens(env);
      return expectClientError(env.t, await sdkError(404), `the server answered a route it does not have (…/v1/${UNKNOWN_PREFIX}${CHAT_COMPLETIONS_ROUTE})`, () =>
        wrongBase.chat.completions.create({ model: env.model, messages: [{ role: 'user', content: CLIENT_PROMPT }], ...mt }),
      );
    },
  });

  /** This major's part of the shared 429 check (clients-rate-limit.ts). */
  async function rateLimited(t: OpTransport, key: string, model: string): Promise<OpResult | 'not-installed'> {
    const c = await openaiNode(t, key, m);
    if (c === undefined) return 'not-installed';
    return expectClientError(t, await sdkError(429), 'the server did not answer 429', () =>
      c.chat.completions.create({ model, messages: [{ role: 'user', content: CLIENT_PROMPT }] }),
    );
  }

  return { checks: [models, completion, stream, tools, toolsStreamed, unauthorized, unknownModel, unknownRoute], rateLimited };
}

/** The current major (openai 7). */
export const openaiNodeOps = openaiOps(OPENAI_NODE, 'client-openai', { models: 'CLIENT-001', completion: 'CLIENT-002', stream: 'CLIENT-003', tools: 'CLIENT-004', toolsStreamed: 'CLIENT-005', unauthorized: 'CLIENT-006', unknownModel: 'CLIENT-007', unknownRoute: 'CLIENT-008' });
/** The previous major (openai 6, as `openai-v6`), its own column. */
export const openaiNode6Ops = openaiOps(OPENAI_NODE_6, 'client-openai6', { models: 'CLIENT-036', completion: 'CLIENT-037', stream: 'CLIENT-038', tools: 'CLIENT-039', toolsStreamed: 'CLIENT-040', unauthorized: 'CLIENT-041', unknownModel: 'CLIENT-042', unknownRoute: 'CLIENT-043' });
export const openaiClientChecks: CheckDef[] = openaiNodeOps.checks;
export const openai6ClientChecks: CheckDef[] = openaiNode6Ops.checks;
