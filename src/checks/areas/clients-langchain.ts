import type { AIMessage, AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import type { CheckDef } from '../context/check-types.ts';
import { unknownModelId } from '../requests/common-requests.ts';
import { CLIENT_NAMES, langchain } from '../clients/client-libraries.ts';
import { clientOp, clientCaps, CLIENT_PROMPT, clientWeatherTool, textProblem, TOOL_PROMPT, TOOL_RESULT, toolCallProblem, noToolCall, type OpEnv, type OpResult } from '../clients/client-op.ts';
import { expectClientError, UNKNOWN_PREFIX, WRONG_KEY, noWrongKey, type ErrorExpectation } from '../clients/client-errors.ts';
import type { OpTransport } from '../clients/client-op-env.ts';
import { CHAT_COMPLETIONS_ROUTE } from '../../protocols/chat-completions/chat-request.ts';

// Seed, What the service does: "existing clients for that format work when only the base address
// is changed". LangChain's @langchain/openai chat model is pointed at such servers with
// `configuration.baseURL`. LangChain has no call to list models.

const client = CLIENT_NAMES.langchain;
type LangChain = Exclude<NonNullable<Awaited<ReturnType<typeof langchain>>>, { skip: string }>;

async function lc(env: OpEnv, options: { key?: string; model?: string; baseURL?: string } = {}): Promise<LangChain | { skip: string } | 'not-installed'> {
  return (await langchain(env.t, options.key ?? env.key, options.model ?? env.model, options.baseURL, await env.caps())) ?? 'not-installed';
}

/** LangChain passes openai-node's error on, marked with its own `lc_error_code` for the status. */
const lcCodes = { 401: 'MODEL_AUTHENTICATION', 404: 'MODEL_NOT_FOUND', 429: 'MODEL_RATE_LIMIT' } as const;

function lcError(status: 401 | 404 | 429): ErrorExpectation {
  return {
    status,
    className: `an error with lc_error_code ${lcCodes[status]}`,
    judge(error) {
      const e = error as { status?: unknown; lc_error_code?: unknown; error?: { message?: unknown } } | undefined;
      if (e?.status !== status) return `status ${String(e?.status)}, not ${status}`;
      if (e.lc_error_code !== lcCodes[status]) return `lc_error_code ${String(e.lc_error_code)}, not ${lcCodes[status]}`;
      if (typeof e.error?.message !== 'string' || e.error.message === '') return 'the server\'s error message did not reach the caller (error.error has no message)';
      return undefined;
    },
  };
}

function finishOf(m: BaseMessage | undefined): unknown {
  return (m?.response_metadata as { finish_reason?: unknown } | undefined)?.finish_reason;
}

async function concatStream(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk | undefined> {
  let full: AIMessageChunk | undefined;
  for await (const chunk of stream) full = full === undefined ? chunk : full.concat(chunk);
  return full;
}

const completion = clientOp({
  name: 'client-langchain-invoke',
  id: 'CLIENT-018',
  client,
  call: 'ChatOpenAI.invoke()',
  title: 'returns an AIMessage with the assistant text',
  async run(env) {
    const l = await lc(env);
    if (l === 'not-installed' || 'skip' in l) return l;
    const res = await l.chat.invoke([new l.messages.HumanMessage(CLIENT_PROMPT)]);
    return textProblem(res.content, finishOf(res));
  },
});

const stream = clientOp({
  name: 'client-langchain-stream',
  id: 'CLIENT-019',
  client,
  call: 'ChatOpenAI.stream()',
  title: 'streams AIMessageChunks that concatenate to the assistant text',
  async run(env) {
    const l = await lc(env);
    if (l === 'not-installed' || 'skip' in l) return l;
    const full = await concatStream(await l.chat.stream([new l.messages.HumanMessage(CLIENT_PROMPT)]));
    if (full === undefined) return { problem: 'the stream yielded no chunk' };
    return textProblem(full.content, finishOf(full));
  },
});

async function toolRoundTrip(env: OpEnv, streamed: boolean): Promise<OpResult | 'not-installed'> {
  const l = await lc(env);
  if (l === 'not-installed' || 'skip' in l) return l;
  const messages: BaseMessage[] = [new l.messages.HumanMessage(TOOL_PROMPT)];
  const forced = (await env.caps()).forceTool ? l.chat.bindTools([clientWeatherTool], { tool_choice: clientWeatherTool.function.name }) : l.chat.bindTools([clientWeatherTool]);
  const first: AIMessage | AIMessageChunk | undefined = streamed ? await concatStream(await forced.stream(messages)) : await forced.invoke(messages);
  if (first === undefined) return { problem: 'the stream yielded no chunk' };
  const invalid = first.invalid_tool_calls ?? [];
  if (invalid.length > 0) return { problem: `LangChain could not parse the tool call (invalid_tool_calls: ${invalid.map((c) => c.error ?? 'invalid').join('; ')})`, received: invalid };
  const call = first.tool_calls?.[0];
  const problem = call === undefined ? await noToolCall(env) : toolCallProblem(call.name, call.args);
  if (problem !== undefined || call === undefined) return problem ?? { problem: 'no tool call' };
  // The documented loop: the AIMessage goes back as it came, followed by a ToolMessage for its call id.
  messages.push(first, new l.messages.ToolMessage({ tool_call_id: call.id ?? '', content: JSON.stringify(TOOL_RESULT) }));
  const auto = l.chat.bindTools([clientWeatherTool]);
  const answer = streamed ? await concatStream(await auto.stream(messages)) : await auto.invoke(messages);
  if (answer === undefined) return { problem: 'the answer stream yielded no chunk' };
  return textProblem(answer.content, finishOf(answer));
}

const tools = clientOp({
  name: 'client-langchain-tool-round-trip',
  id: 'CLIENT-020',
  client,
  call: 'ChatOpenAI.bindTools().invoke()',
  title: 'returns the forced tool call in tool_calls with parsed args, and a text answer to the ToolMessage',
  run: (env) => toolRoundTrip(env, false),
});

const toolsStreamed = clientOp({
  name: 'client-langchain-tool-round-trip-stream',
  id: 'CLIENT-021',
  client,
  call: 'ChatOpenAI.bindTools().stream()',
  title: 'streams chunks that concatenate to the forced tool call with parsed args, and a text answer to the ToolMessage',
  run: (env) => toolRoundTrip(env, true),
});

function invoke(l: LangChain): Promise<unknown> {
  return l.chat.invoke([new l.messages.HumanMessage(CLIENT_PROMPT)]);
}

const unauthorized = clientOp({
  name: 'client-langchain-401',
  id: 'CLIENT-022',
  client,
  call: 'ChatOpenAI.invoke() with a wrong key',
  title: 'throws with status 401, lc_error_code MODEL_AUTHENTICATION and the server error message',
  async run(env) {
    const tokenless = noWrongKey(env);
    if (tokenless !== undefined) return tokenless;
    const l = await lc(env, { key: WRONG_KEY });
    if (l === 'not-installed' || 'skip' in l) return l;
    return expectClientError(env.t, lcError(401), 'the server accepted a wrong key (AUTH-006 judges it)', () => invoke(l));
  },
});

const unknownModel = clientOp({
  name: 'client-langchain-404-model',
  id: 'CLIENT-023',
  client,
  call: 'ChatOpenAI.invoke() with an unknown model',
  title: 'throws with status 404, lc_error_code MODEL_NOT_FOUND and the server error message',
  async run(env) {
    const l = await lc(env, { model: env.unknownModel });
    if (l === 'not-installed' || 'skip' in l) return l;
    return expectClientError(env.t, lcError(404), 'the server answered for a model it does not list (MODELS-010 judges it)', () => invoke(l));
  },
});

const unknownRoute = clientOp({
  name: 'client-langchain-404-route',
  id: 'CLIENT-024',
  client,
  call: `ChatOpenAI.invoke() under baseURL …/v1/${UNKNOWN_PREFIX}`,
  title: 'throws with status 404, lc_error_code MODEL_NOT_FOUND and the server error message',
  async run(env) {
    const l = await lc(env, { baseURL: `${env.t.baseUrl}/${UNKNOWN_PREFIX}` });
    if (l === 'not-installed' || 'skip' in l) return l;
    return expectClientError(env.t, lcError(404), `the server answered a route it does not have (…/v1/${UNKNOWN_PREFIX}${CHAT_COMPLETIONS_ROUTE})`, () => invoke(l));
  },
});

export const langchainClientChecks: CheckDef[] = [completion, stream, tools, toolsStreamed, unauthorized, unknownModel, unknownRoute];

/** LangChain's part of the shared 429 check (clients-rate-limit.ts). */
export async function langchainRateLimited(t: OpTransport, key: string, model: string): Promise<OpResult | 'not-installed'> {
  const l = await langchain(t, key, model, t.baseUrl, { bound: false, streamUsage: true });
  if (l === undefined) return 'not-installed';
  if ('skip' in l) return l;
  return expectClientError(t, lcError(429), 'the server did not answer 429', () => invoke(l));
}
