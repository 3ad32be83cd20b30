import type OpenAI from 'openai';
import type { OpenAICompatibleProvider } from '@ai-sdk/openai-compatible';
import type { ChatOpenAICompletions } from '@langchain/openai';
import type { ClientTransport } from './client-transport.ts';
import { CLIENT_MAX_TOKENS } from './client-op.ts';
import { tokenizer } from '../../tokenizer.ts';
import { langchainTracing } from './langchain-tracing.ts';
import { createOpenAIClient, sealedOpenAIOptions } from '../../client/openai-client.ts';

// The three client libraries of the CLIENT area, each built the way its documentation tells a
// user to point it at an OpenAI-compatible server: only the base URL and the key are set. iari
// adds what keeps a check honest and offline: no retries (a retry would hide the first answer),
// its own fetch (throttle, fault header, time and size bounds, no other origin), and, per
// library, the switches that stop it from reaching anything but that server.
//
// They are imported lazily: the CLIENT checks pay their load time, no other command does, and a
// library that is not installed makes its checks `skipped` instead of failing the run.

/** The libraries, by the name reports use for them. */
export const CLIENT_NAMES = { openai: 'openai-node', vercel: 'Vercel AI SDK', langchain: 'LangChain', python: 'openai-python' } as const;

export interface ClientOptions {
  /** The key to send; default the run's token (the 401 operations send a wrong one). */
  apiKey?: string;
}

export async function openaiNode(t: ClientTransport, key: string): Promise<OpenAI | undefined> {
  return createOpenAIClient({ apiKey: key, baseURL: t.baseUrl, fetch: t.fetch });
}

/** The AI SDK (`ai`) and its OpenAI-compatible provider, or undefined when either is missing. */
export async function vercelAi(t: ClientTransport, key: string, baseURL: string = t.baseUrl, includeUsage = true): Promise<{ ai: typeof import('ai'); provider: OpenAICompatibleProvider } | undefined> {
  const [ai, compat] = await Promise.all([import('ai').catch(() => undefined), import('@ai-sdk/openai-compatible').catch(() => undefined)]);
  if (ai === undefined || compat === undefined) return undefined;
  // includeUsage: the provider then asks for stream_options.include_usage, as openai-node users do.
  const provider = compat.createOpenAICompatible({ name: 'iari', baseURL, apiKey: key, includeUsage, fetch: t.fetch });
  return { ai, provider };
}

/**
 * LangChain's chat model for the chat-completions API (`ChatOpenAICompletions`, what `ChatOpenAI`
 * delegates to unless a model name or option sends it to the Responses API, which this server
 * does not offer) and its embeddings client, or undefined when @langchain/openai is missing.
 */
export async function langchain(t: ClientTransport, key: string, model: string, baseURL: string = t.baseUrl, caps: { bound: boolean; streamUsage: boolean } = { bound: true, streamUsage: true }): Promise<{ chat: ChatOpenAICompletions; messages: typeof import('@langchain/core/messages') } | { skip: string } | undefined> {
  const [lc, messages] = await Promise.all([import('@langchain/openai').catch(() => undefined), import('@langchain/core/messages').catch(() => undefined)]);
  if (lc === undefined || messages === undefined) return undefined;
  const tracing = langchainTracing(process.env);
  if (tracing.length > 0) return { skip: `${tracing.join(', ')} in this process's environment would make LangChain trace to LangSmith or log every prompt: its operations do not run (iari test turns them off in its own process)` };
  const chat = new lc.ChatOpenAICompletions({
    model,
    apiKey: key,
    ...(caps.bound ? { maxTokens: CLIENT_MAX_TOKENS } : {}),
    ...(caps.streamUsage ? {} : { streamUsage: false }),
    maxRetries: 0,
    // The same sealed options as openai-node's (openai-client.ts): LangChain hands them to its inner client.
    configuration: sealedOpenAIOptions({ apiKey: key, baseURL, fetch: t.fetch }),
  });
  offlineTokenCounts(chat);
  return { chat, messages };
}

/**
 * LangChain counts tokens with tiktoken ranks it downloads at run time from
 * https://tiktoken.pages.dev (`@langchain/core/utils/tiktoken.js`: `getEncoding` fetches
 * `${encoding}.json`), e.g. when a `streaming: true` model is invoked and the server's usage is
 * estimated. iari counts those tokens locally with gpt-tokenizer (o200k_base, already a
 * dependency), so no code path of the chat model reaches that host.
 */
function offlineTokenCounts(chat: ChatOpenAICompletions): void {
  (chat as unknown as { getNumTokens: (content: unknown) => Promise<number> }).getNumTokens = async (content) => {
    return tokenizer().countTokens(textOf(content));
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part === 'string' ? part : typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : '')).join('');
}
