import type OpenAI from 'openai';
import type { ClientOptions } from 'openai';

// The one place an openai-node client is built (the SDK checks, the CLIENT area, and LangChain's
// inner client through its `configuration`). openai-node fills every option left out from the
// environment (node_modules/openai/client.js, constructor):
//   OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_ADMIN_KEY, OPENAI_ORG_ID → `OpenAI-Organization`,
//   OPENAI_PROJECT_ID → `OpenAI-Project`, OPENAI_WEBHOOK_SECRET, OPENAI_LOG (debug logs every
//   request to the console), OPENAI_CUSTOM_HEADERS (extra headers on every request).
// A user who keeps those for OpenAI would send them to every server iari tests. So every option
// the SDK would read is given here, and the fetch handed over drops the custom headers (LangChain
// copies its default headers and loses the nulls that would cancel them in the SDK). LangChain's
// own names (OPENAI_API_BASE, OPENAI_ORGANIZATION, LangSmith's gateway) are overridden by the same
// `configuration` (its baseURL and organization win). Proxies are iari's own: every client is
// handed iari's fetch (connection-options.ts reads HTTPS_PROXY / NO_PROXY for every request alike).

export interface OpenAIClientOptions {
  apiKey: string;
  baseURL: string;
  fetch: typeof fetch;
  /** The SDK's own timer; left out, iari's fetch bounds each request. */
  timeoutMs?: number;
  /** Headers iari sends besides the SDK's (the run's fault header). */
  headers?: Record<string, string>;
}

/**
 * The options that leave openai-node nothing to read from the environment: pass them whole, as
 * `new OpenAI(...)` takes them or as LangChain's `configuration`.
 */
export function sealedOpenAIOptions(o: OpenAIClientOptions, env: NodeJS.ProcessEnv = process.env): ClientOptions {
  return {
    apiKey: o.apiKey,
    baseURL: o.baseURL,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    logLevel: 'off',
    maxRetries: 0,
    fetch: withoutEnvHeaders(o.fetch, envHeaders(env), o.apiKey),
    ...(o.timeoutMs === undefined ? {} : { timeout: o.timeoutMs }),
    ...(o.headers === undefined ? {} : { defaultHeaders: o.headers }),
  };
}

/** The openai package: `load` gives another installed major of it (the CLIENT area's openai-v6). */
export type OpenAIModule = typeof import('openai');

/** openai-node, or undefined when the package is not installed (its checks are then skipped). */
export async function createOpenAIClient(o: OpenAIClientOptions, load: () => Promise<OpenAIModule | undefined> = loadOpenAI): Promise<OpenAI | undefined> {
  const mod = await load();
  if (mod === undefined) return undefined;
  return new mod.default(sealedOpenAIOptions(o));
}

function loadOpenAI(): Promise<OpenAIModule | undefined> {
  return import('openai').catch(() => undefined);
}

/** OPENAI_CUSTOM_HEADERS as the SDK parses it: "Name: value" lines, names lowercased. */
function envHeaders(env: NodeJS.ProcessEnv): [string, string][] {
  const raw = env['OPENAI_CUSTOM_HEADERS'];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split('\n').flatMap((line) => {
    const colon = line.indexOf(':');
    return colon < 0 ? [] : [[line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as [string, string]];
  });
}

/**
 * The fetch the client gets: a header the environment added (same name, same value) is removed
 * before the request leaves, and an Authorization it replaced carries the run's key again.
 */
function withoutEnvHeaders(send: typeof fetch, added: [string, string][], apiKey: string): typeof fetch {
  if (added.length === 0) return send;
  return (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    for (const [name, value] of added) {
      if (headers.get(name) !== value) continue;
      if (name === 'authorization') headers.set(name, `Bearer ${apiKey}`);
      else headers.delete(name);
    }
    return send(input, { ...init, headers });
  };
}
