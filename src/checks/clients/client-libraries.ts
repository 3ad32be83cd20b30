import type OpenAI from 'openai';
import type { OpenAICompatibleProvider } from '@ai-sdk/openai-compatible';
import type { ChatOpenAICompletions } from '@langchain/openai';
import type { OpTransport } from './client-op-env.ts';
import { CLIENT_MAX_TOKENS } from './client-op.ts';
import { tokenizer } from '../../tokenizer.ts';
import { langchainTracing } from './langchain-tracing.ts';
import { createOpenAIClient, sealedOpenAIOptions, type OpenAIModule } from '../../client/openai-client.ts';

// The three client libraries of the CLIENT area, each built the way its documentation tells a
// user to point it at an OpenAI-compatible server: only the base URL and the key are set. iari
// adds what keeps a check honest and offline: no retries (a retry would hide the first answer),
// its own fetch (throttle, fault header, time and size bounds, no other origin), and, per
// library, the switches that stop it from reaching anything but that server.
//
// They are imported lazily: the CLIENT checks pay their load time, no other command does, and a
// library that is not installed makes its checks `skipped` instead of failing the run.

/** The libraries, by the name reports use for them (the previous major of a library as a column of its own). */
export const CLIENT_NAMES = { openai: 'openai-node', openai6: 'openai-node 6', vercel: 'Vercel AI SDK', vercel6: 'Vercel AI SDK 6', langchain: 'LangChain', python: 'openai-python', agents: 'Agents SDK', codex: 'Codex CLI' } as const;

/**
 * One major of openai-node the CLIENT area runs: the current one (`openai`), and the previous one
 * (`openai-v6`, an npm alias), which still runs in many applications (docs/clients.md, "Two majors").
 */
export interface OpenAINodeMajor {
  client: (typeof CLIENT_NAMES)['openai' | 'openai6'];
  load(): Promise<OpenAIModule | undefined>;
}

export const OPENAI_NODE: OpenAINodeMajor = { client: CLIENT_NAMES.openai, load: () => import('openai').catch(() => undefined) };
// openai 6's API is the subset of 7's these operations call; its own types differ only in members they do not touch.
export const OPENAI_NODE_6: OpenAINodeMajor = { client: CLIENT_NAMES.openai6, load: () => import('openai-v6').then((m) => m as unknown as OpenAIModule).catch(() => undefined) };

/** One major of the AI SDK with its OpenAI-compatible provider: `ai` 7 + 3, and `ai-v6` + `@ai-sdk/openai-compatible-v2` (6 + 2). */
export interface VercelMajor {
  client: (typeof CLIENT_NAMES)['vercel' | 'vercel6'];
  load(): Promise<[typeof import('ai'), typeof import('@ai-sdk/openai-compatible')] | undefined>;
}

export const VERCEL_AI: VercelMajor = {
  client: CLIENT_NAMES.vercel,
  load: async () => {
    const [ai, compat] = await Promise.all([import('ai').catch(() => undefined), import('@ai-sdk/openai-compatible').catch(() => undefined)]);
    return ai === undefined || compat === undefined ? undefined : [ai, compat];
  },
};
// ai 6 and provider 2 take the same calls (generateText, streamText, tool, jsonSchema, stepCountIs, createOpenAICompatible).
export const VERCEL_AI_6: VercelMajor = {
  client: CLIENT_NAMES.vercel6,
  load: async () => {
    const [ai, compat] = await Promise.all([import('ai-v6').catch(() => undefined), import('@ai-sdk/openai-compatible-v2').catch(() => undefined)]);
    return ai === undefined || compat === undefined ? undefined : [ai as unknown as typeof import('ai'), compat as unknown as typeof import('@ai-sdk/openai-compatible')];
  },
};

export interface ClientOptions {
  /** The key to send; default the run's token (the 401 operations send a wrong one). */
  apiKey?: string;
}

export async function openaiNode(t: OpTransport, key: string, major: OpenAINodeMajor = OPENAI_NODE): Promise<OpenAI | undefined> {
  return createOpenAIClient({ apiKey: key, baseURL: t.baseUrl, fetch: t.fetch }, () => major.load());
}

/** The AI SDK (`ai`) and its OpenAI-compatible provider, or undefined when either is missing. */
export async function vercelAi(t: OpTransport, key: string, baseURL: string = t.baseUrl, includeUsage = true, major: VercelMajor = VERCEL_AI): Promise<{ ai: typeof import('ai'); provider: OpenAICompatibleProvider } | undefined> {
  const loaded = await major.load();
  if (loaded === undefined) return undefined;
  const [ai, compat] = loaded;
  // includeUsage: the provider then asks for stream_options.include_usage, as openai-node users do.
  const provider = compat.createOpenAICompatible({ name: 'iari', baseURL, apiKey: key, includeUsage, fetch: t.fetch });
  return { ai, provider };
}

/**
 * LangChain's chat model for the chat-completions API (`ChatOpenAICompletions`, what `ChatOpenAI`
 * delegates to unless a model name or option sends it to the Responses API, which this server
 * does not offer) and its embeddings client, or undefined when @langchain/openai is missing.
 */
export async function langchain(t: OpTransport, key: string, model: string, baseURL: string = t.baseUrl, caps: { bound: boolean; streamUsage: boolean } = { bound: true, streamUsage: true }): Promise<{ chat: ChatOpenAICompletions; messages: typeof import('@langchain/core/messages') } | { skip: string } | undefined> {
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

/**
 * The OpenAI Agents SDK (`@openai/agents`) on openai-node's client (the SDK's "custom OpenAI client":
 * an OpenAIResponsesModel over `new OpenAI({ baseURL, apiKey })`, here iari's sealed one), with a
 * Runner that traces nothing: importing the package registers OpenAI's trace exporter, which would
 * send every prompt to api.openai.com; `tracingDisabled` (and the process-wide switch) keep the run
 * from creating a trace at all. Undefined when either package is missing.
 */
export async function agentsSdk(t: OpTransport, key: string, model: string): Promise<{ mod: typeof import('@openai/agents'); runner: import('@openai/agents').Runner; model: import('@openai/agents').OpenAIResponsesModel } | undefined> {
  const mod = await import('@openai/agents').catch(() => undefined);
  const openai = mod === undefined ? undefined : await openaiNode(t, key);
  if (mod === undefined || openai === undefined) return undefined;
  mod.setTracingDisabled(true);
  return { mod, runner: new mod.Runner({ tracingDisabled: true, traceIncludeSensitiveData: false }), model: new mod.OpenAIResponsesModel(openai, model) };
}
