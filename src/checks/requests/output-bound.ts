// Bounded generation (issue 37 item 1): a run's cost must not depend on how long the model talks.
// Every chat completion a check sends through the run's client gets an output bound here, the one
// place check requests get their defaults, unless the check set one itself (a bound is what it
// tests, or its requirement needs a longer answer, and then the check says why).
import type { CheckContext } from '../context/check-types.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { offers } from './capability-probes.ts';

/**
 * The bound of a text answer. The checks' prompts ask for "a few words" (common-requests.ts PROMPT:
 * under 20 tokens on o200k and on Qwen's tokenizer); 128 leaves six times that, so a model that
 * answers stops on its own ("stop") and one that talks to its cap costs 128 tokens, not 1,024.
 */
export const CHECK_TEXT_TOKENS = 128;

/**
 * The bound of an answer that must be whole to be judged: a tool call with its JSON arguments, a
 * JSON object (response_format). At 64 llama.cpp's Qwen cut tool calls mid-arguments (issue 43 item
 * 3); a call to one of the checks' tools (`{"city":"Zürich"}`, two calls for the parallel turn) is
 * under 80 tokens with its template's wrapping, and 256 leaves room for a model that thinks aloud first.
 */
export const CHECK_WHOLE_ANSWER_TOKENS = 256;

const BOUND_MEMBERS = ['max_tokens', 'max_completion_tokens'] as const;

/** The bound `body` should carry: larger where the answer must be whole to be judged. */
export function outputBoundFor(body: Readonly<Record<string, unknown>>): number {
  const tools = body['tools'];
  const format = body['response_format'];
  return (Array.isArray(tools) && tools.length > 0) || (format !== undefined && format !== null) ? CHECK_WHOLE_ANSWER_TOKENS : CHECK_TEXT_TOKENS;
}

/**
 * `json` with the run's output bound where it is a chat completion body that names none. Compat:
 * `max_completion_tokens` is a capability (the seed's table does not show it, capabilities.ts), so the
 * bound is sent only where the server offers it (honoured, or accepted and undecided); a server that
 * refuses or ignores it gets the body as before. A body that names a bound keeps its own.
 */
export async function withOutputBound(ctx: CheckContext, path: string, json: unknown): Promise<unknown> {
  if (path !== CHAT_COMPLETIONS_PATH || typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  const body = json as Record<string, unknown>;
  if (BOUND_MEMBERS.some((m) => m in body)) return json;
  if (!(await offers(ctx, 'max-completion-tokens'))) return json;
  return { ...body, max_completion_tokens: outputBoundFor(body) };
}
