import type { CheckContext } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { modelUnderTest, timeTool, weatherTool } from './common-requests.ts';
import { offers } from './capability-probes.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest } from '../context/shared-requests.ts';

/**
 * The tool request of the core checks. Spec, chat completions: "tools | array | no | list
 * of tools; when the model decides to invoke one, the response message carries tool_calls". The seed
 * shows no tool_choice, so the call is forced by name only where the server offers tool_choice
 * (capability tool-choice); otherwise only the weather tool is declared and the prompt asks for it.
 */
export async function toolBody(ctx: CheckContext, model: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const force = await offers(ctx, 'tool-choice');
  return {
    model,
    messages: [{ role: 'user', content: 'What is the weather in Zürich?' }],
    tools: force ? [weatherTool, timeTool] : [weatherTool],
    ...(force ? { tool_choice: { type: 'function', function: { name: weatherTool.function.name } } } : {}),
    ...extra,
  };
}

/** A completion where the tool is forced (or, without tool_choice, asked for), so the answer is a tool call. */
export const toolCompletion = sharedRequest('chat:tool', async (ctx: CheckContext): Promise<HttpExchange> => ctx.http.post(CHAT_COMPLETIONS_PATH, await toolBody(ctx, await modelUnderTest(ctx))));

/** The same tool call, streamed. */
export const toolStream = sharedRequest('chat:tool-stream', async (ctx: CheckContext): Promise<HttpExchange> => ctx.http.post(CHAT_COMPLETIONS_PATH, await toolBody(ctx, await modelUnderTest(ctx), { stream: true })));
