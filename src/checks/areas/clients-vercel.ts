import type { CheckDef } from '../context/check-types.ts';
import { unknownModelId } from '../requests/common-requests.ts';
import { VERCEL_AI, VERCEL_AI_6, vercelAi, type VercelMajor } from '../clients/client-libraries.ts';
import { clientOp, clientCaps, CLIENT_MAX_TOKENS, CLIENT_PROMPT, clientWeatherTool, textProblem, TOOL_PROMPT, TOOL_RESULT, toolCallProblem, noToolCall, type OpEnv, type OpResult } from '../clients/client-op.ts';
import { expectClientError, UNKNOWN_PREFIX, WRONG_KEY, noWrongKey, type ErrorExpectation } from '../clients/client-errors.ts';
import { clientErrorText } from '../clients/client-transport.ts';
import type { OpTransport } from '../clients/client-op-env.ts';
import { rateLimitGiveUp } from '../rate-limits/rate-limit-retry.ts';
import { CHAT_COMPLETIONS_ROUTE } from '../../protocols/chat-completions/chat-request.ts';

// Seed, What the service does: "existing clients for that format work when only the base address
// is changed". The Vercel AI SDK (`ai`) with its OpenAI-compatible provider is the documented way
// to use such a server from it. The AI SDK has no call to list models. The same operations run with
// the current majors (ai 7, provider 3) and the previous ones (ai 6, provider 2), each its own
// CLIENT requirements.

type Vercel = NonNullable<Awaited<ReturnType<typeof vercelAi>>>;

/** maxOutputTokens where the server offers a length bound (capability max-completion-tokens). */
async function maxOut(env: OpEnv): Promise<{ maxOutputTokens?: number }> {
  return (await env.caps()).bound ? { maxOutputTokens: CLIENT_MAX_TOKENS } : {};
}

/** Reads a whole streamText result part by part: streamText reports errors as parts, it does not throw. */
async function drain(stream: AsyncIterable<{ type: string; text?: string; error?: unknown; finishReason?: string }>): Promise<{ text: string; errors: string[]; finish: string | undefined }> {
  let text = '';
  const errors: string[] = [];
  let finish: string | undefined;
  for await (const part of stream) {
    if (part.type === 'text-delta') text += part.text ?? '';
    else if (part.type === 'error') {
      // The run's own rate-limit give-up is not the library's error: thrown, it skips the check (LIMIT-010 reports it), as a thrown one does.
      const giveUp = rateLimitGiveUp(part.error);
      if (giveUp !== undefined) throw giveUp;
      errors.push(clientErrorText(part.error));
    }
    else if (part.type === 'finish') finish = part.finishReason;
  }
  return { text, errors, finish };
}

/** The CLIENT requirement each operation decides, for one major of the AI SDK. */
interface VercelOpIds {
  completion: string;
  stream: string;
  tools: string;
  toolsStreamed: string;
  unauthorized: string;
  unknownModel: string;
  unknownRoute: string;
}

/** The operations, run with one major of the AI SDK and its provider (`prefix` names its checks). */
function vercelOps(m: VercelMajor, prefix: string, ids: VercelOpIds): { checks: CheckDef[]; rateLimited: (t: OpTransport, key: string, model: string) => Promise<OpResult | 'not-installed'> } {
  const client = m.client;

  async function sdk(env: OpEnv, key?: string, baseURL?: string): Promise<Vercel | 'not-installed'> {
    return (await vercelAi(env.t, key ?? env.key, baseURL, (await env.caps()).streamUsage, m)) ?? 'not-installed';
  }

  /**
   * The AI SDK reports every HTTP error as APICallError with the status in `statusCode`; the
   * provider reads the body with the OpenAI error schema into `data` and takes `error.message` as
   * the message. A body that does not match leaves `data` undefined and the message is the status text.
   */
  async function sdkError(status: 401 | 404 | 429): Promise<ErrorExpectation> {
    const loaded = await m.load();
    if (loaded === undefined) throw new Error(`${m.client} is not installed`);
    const { APICallError } = loaded[0];
    return {
      status,
      className: 'APICallError',
      judge(error) {
        if (!APICallError.isInstance(error)) return 'not an APICallError';
        if (error.statusCode !== status) return `statusCode ${String(error.statusCode)}, not ${status}`;
        if (error.data === undefined) return 'the provider could not read the server\'s error (APICallError.data is undefined)';
        return undefined;
      },
    };
  }

  const completion = clientOp({
    name: `${prefix}-generate-text`,
    id: ids.completion,
    client,
    call: 'generateText()',
    title: 'returns the assistant text',
    async run(env) {
      const v = await sdk(env);
      if (v === 'not-installed') return v;
      const res = await v.ai.generateText({ model: v.provider(env.model), prompt: CLIENT_PROMPT, ...(await maxOut(env)), maxRetries: 0 });
      return textProblem(res.text, res.finishReason);
    },
  });

  const stream = clientOp({
    name: `${prefix}-stream-text`,
    id: ids.stream,
    client,
    call: 'streamText()',
    title: 'streams the assistant text with no error part',
    async run(env) {
      const v = await sdk(env);
      if (v === 'not-installed') return v;
      const res = v.ai.streamText({ model: v.provider(env.model), prompt: CLIENT_PROMPT, ...(await maxOut(env)), maxRetries: 0, onError: () => undefined });
      const { text, errors, finish } = await drain(res.fullStream);
      // As unstreamed: the SDK's AI_ToolChoiceViolationError is no call of the forced tool, judged by the tool-choice probe.
      if (errors.length > 0 && errors.every((e) => e.startsWith('AI_ToolChoiceViolationError'))) return noToolCall(env);
      if (errors.length > 0) return { problem: `the stream carried an error part: ${errors.join('; ')}` };
      return textProblem(text, finish);
    },
  });

  /**
   * The AI SDK's own loop: the forced tool is called, `execute` runs, the SDK sends the result back
   * and the second step answers in text (tool choice back to auto, as for any follow-up request).
   */
  async function toolRoundTrip(env: OpEnv, streamed: boolean): Promise<OpResult | 'not-installed'> {
    const v = await sdk(env);
    if (v === 'not-installed') return v;
    const { ai } = v;
    let executedWith: unknown;
    const getWeather = ai.tool({
      description: clientWeatherTool.function.description,
      inputSchema: ai.jsonSchema<{ city: string }>(clientWeatherTool.function.parameters as unknown as Parameters<typeof ai.jsonSchema>[0]),
      execute: async (input: { city: string }) => {
        executedWith = input;
        return TOOL_RESULT;
      },
    });
    const caps = await env.caps();
    const settings = {
      model: v.provider(env.model),
      prompt: TOOL_PROMPT,
      tools: { [clientWeatherTool.function.name]: getWeather },
      ...(caps.forceTool
        ? { toolChoice: { type: 'tool' as const, toolName: clientWeatherTool.function.name }, prepareStep: ({ stepNumber }: { stepNumber: number }) => (stepNumber === 0 ? undefined : { toolChoice: 'auto' as const }) }
        : {}),
      stopWhen: ai.stepCountIs(2),
      ...(caps.bound ? { maxOutputTokens: CLIENT_MAX_TOKENS } : {}),
      maxRetries: 0,
    };
    let steps: { toolCalls: { toolName: string; input: unknown; invalid?: boolean | undefined; error?: unknown }[]; text: string; finishReason: string }[];
    if (streamed) {
      const res = ai.streamText({ ...settings, onError: () => undefined });
      const { errors } = await drain(res.fullStream);
      // As unstreamed: the SDK's AI_ToolChoiceViolationError is no call of the forced tool, judged by the tool-choice probe.
      if (errors.length > 0 && errors.every((e) => e.startsWith('AI_ToolChoiceViolationError'))) return noToolCall(env);
      if (errors.length > 0) return { problem: `the stream carried an error part: ${errors.join('; ')}` };
      steps = await res.steps;
    } else {
      try {
        steps = (await ai.generateText(settings)).steps;
      } catch (error) {
        // The SDK throws this when the answer holds no call of the forced tool: the model's choice where the server forces nothing (issue 27).
        if ((error as { name?: unknown }).name === 'AI_ToolChoiceViolationError') return noToolCall(env);
        throw error;
      }
    }
    const call = steps[0]?.toolCalls[0];
    if (call?.invalid === true) return { problem: `the tool call was invalid: ${clientErrorText(call.error)}`, received: call.input };
    const problem = call === undefined ? await noToolCall(env) : toolCallProblem(call.toolName, call.input);
    if (problem !== undefined) return problem;
    if (executedWith === undefined) return { problem: 'the tool was never executed' };
    const answer = steps[1];
    if (answer === undefined) return { problem: `the SDK stopped after ${steps.length} step(s) without sending the tool result back`, received: steps.map((s) => s.finishReason) };
    return textProblem(answer.text, answer.finishReason);
  }

  const tools = clientOp({
    name: `${prefix}-tool-round-trip`,
    id: ids.tools,
    client,
    call: 'generateText({ tools, stopWhen })',
    title: 'calls the forced tool with parsed input, sends its result back and returns the text answer',
    run: (env) => toolRoundTrip(env, false),
  });

  const toolsStreamed = clientOp({
    name: `${prefix}-tool-round-trip-stream`,
    id: ids.toolsStreamed,
    client,
    call: 'streamText({ tools, stopWhen })',
    title: 'streams the forced tool call with parsed input, sends its result back and streams the text answer',
    run: (env) => toolRoundTrip(env, true),
  });

  function generate(v: Vercel, model: string): Promise<unknown> {
    return v.ai.generateText({ model: v.provider(model), prompt: CLIENT_PROMPT, maxRetries: 0 });
  }

  const unauthorized = clientOp({
    name: `${prefix}-401`,
    id: ids.unauthorized,
    client,
    call: 'generateText() with a wrong key',
    title: 'throws APICallError with statusCode 401 and the server error read',
    async run(env) {
      const tokenless = noWrongKey(env);
      if (tokenless !== undefined) return tokenless;
      const v = await sdk(env, WRONG_KEY);
      if (v === 'not-installed') return v;
      return expectClientError(env.t, await sdkError(401), 'the server accepted a wrong key (AUTH-006 judges it)', () => generate(v, env.model));
    },
  });

  const unknownModel = clientOp({
    name: `${prefix}-404-model`,
    id: ids.unknownModel,
    client,
    call: 'generateText() with an unknown model',
    title: 'throws APICallError with statusCode 404 and the server error read',
    async run(env) {
      const v = await sdk(env);
      if (v === 'not-installed') return v;
      return expectClientError(env.t, await sdkError(404), 'the server answered for a model it does not list (MODELS-010 judges it)', () => generate(v, env.unknownModel));
    },
  });

  const unknownRoute = clientOp({
    name: `${prefix}-404-route`,
    id: ids.unknownRoute,
    client,
    call: `generateText() under baseURL …/v1/${UNKNOWN_PREFIX}`,
    title: 'throws APICallError with statusCode 404 and the server error read',
    async run(env) {
      const v = await sdk(env, undefined, `${env.t.baseUrl}/${UNKNOWN_PREFIX}`);
      if (v === 'not-installed') return v;
      return expectClientError(env.t, await sdkError(404), `the server answered a route it does not have (…/v1/${UNKNOWN_PREFIX}${CHAT_COMPLETIONS_ROUTE})`, () => generate(v, env.model));
    },
  });

  /** This major's part of the shared 429 check (clients-rate-limit.ts). */
  async function rateLimited(t: OpTransport, key: string, model: string): Promise<OpResult | 'not-installed'> {
    const v = await vercelAi(t, key, t.baseUrl, true, m);
    if (v === undefined) return 'not-installed';
    return expectClientError(t, await sdkError(429), 'the server did not answer 429', () => generate(v, model));
  }

  return { checks: [completion, stream, tools, toolsStreamed, unauthorized, unknownModel, unknownRoute], rateLimited };
}

/** The current majors (ai 7 with @ai-sdk/openai-compatible 3). */
export const vercelAiOps = vercelOps(VERCEL_AI, 'client-vercel', { completion: 'CLIENT-010', stream: 'CLIENT-011', tools: 'CLIENT-012', toolsStreamed: 'CLIENT-013', unauthorized: 'CLIENT-014', unknownModel: 'CLIENT-015', unknownRoute: 'CLIENT-016' });
/** The previous ones (ai 6 with @ai-sdk/openai-compatible 2, as `ai-v6` and `@ai-sdk/openai-compatible-v2`), their own column. */
export const vercelAi6Ops = vercelOps(VERCEL_AI_6, 'client-vercel6', { completion: 'CLIENT-046', stream: 'CLIENT-047', tools: 'CLIENT-048', toolsStreamed: 'CLIENT-049', unauthorized: 'CLIENT-050', unknownModel: 'CLIENT-051', unknownRoute: 'CLIENT-052' });
export const vercelClientChecks: CheckDef[] = vercelAiOps.checks;
export const vercel6ClientChecks: CheckDef[] = vercelAi6Ops.checks;
