import type { CheckContext } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { BOTH_TOOLS_PROMPT, modelUnderTest, timeTool, weatherTool } from './common-requests.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest } from '../context/shared-requests.ts';

/** The function the named variant forces: the one the two-tool prompt names second. */
export const FORCED_FUNCTION = timeTool.function.name;

export const HELLO = 'Say hello.';

/**
 * The tool_choice turns, sent once per run: the capability probe (honoured, ignored, refused) and
 * TOOLS-027 (an accepted tool_choice is enforced) read the same answers. `both` and `hello` carry no
 * tool_choice: they are what the model does when it is free to choose (the probe's baselines).
 */
export interface ToolChoiceTurns {
  both: HttpExchange;
  none: HttpExchange;
  named: HttpExchange;
  hello: HttpExchange;
  required: HttpExchange;
}

export const toolChoiceTurns = sharedRequest('chat:tool-choice-turns', async (ctx: CheckContext): Promise<ToolChoiceTurns> => {
  const model = await modelUnderTest(ctx);
  const ask = (content: string, choice?: unknown): Promise<HttpExchange> =>
    ctx.http.post(CHAT_COMPLETIONS_PATH, { model, messages: [{ role: 'user', content }], tools: [weatherTool, timeTool], ...(choice === undefined ? {} : { tool_choice: choice }) });
  const both = await ask(BOTH_TOOLS_PROMPT);
  const none = await ask(BOTH_TOOLS_PROMPT, 'none');
  const named = await ask(BOTH_TOOLS_PROMPT, { type: 'function', function: { name: FORCED_FUNCTION } });
  const hello = await ask(HELLO);
  return { both, none, named, hello, required: await ask(HELLO, 'required') };
});
