import type OpenAI from 'openai';
import type { CheckContext } from './check-types.ts';
import { boundedFetch } from './bounded-fetch.ts';

/**
 * The official SDK pointed at the server under test with only the base URL (and the run's
 * fault header) set, no retries; the token is handed over in memory. Undefined when the SDK is
 * not installed (the SDK checks are then skipped). Its fetch is bounded like every other request
 * of the run (bounded-fetch.ts): the request deadline, the running check's deadline, no
 * redirects followed.
 */
export async function openaiClient(ctx: CheckContext): Promise<OpenAI | undefined> {
  const mod = await import('openai').catch(() => undefined);
  if (mod === undefined) return undefined;
  const fault = ctx.http.fault;
  return new mod.default({
    apiKey: ctx.http.tokenForProbe(),
    baseURL: ctx.baseUrl,
    maxRetries: 0,
    timeout: ctx.http.timeoutMs,
    fetch: boundedFetch(ctx.http.timeoutMs),
    ...(fault === undefined ? {} : { defaultHeaders: { 'x-iari-fault': fault } }),
  });
}
