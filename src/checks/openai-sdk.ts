import type OpenAI from 'openai';
import type { CheckContext } from './check-types.ts';
import { boundedFetch } from './bounded-fetch.ts';

/**
 * The official SDK pointed at the server under test with only the base URL (and the run's
 * fault header) set, no retries of its own (iari's fetch waits out 429s); the token is handed over
 * in memory. Undefined when the SDK is not installed (the SDK checks are then skipped). Its fetch is
 * bounded like every other request of the run (bounded-fetch.ts): the request deadline, the running
 * check's deadline, the body limits, no redirects followed.
 */
export async function openaiClient(ctx: CheckContext): Promise<OpenAI | undefined> {
  const mod = await import('openai').catch(() => undefined);
  if (mod === undefined) return undefined;
  const fault = ctx.http.fault;
  // A 429 is waited out by iari (rate-limit-retry.ts), so the SDK itself does not retry.
  const bounded = boundedFetch(ctx.http.timeoutMs, ctx.http.fetch);
  const fetch = ctx.http.sdkFetch(ctx.http.timeoutMs, bounded) ?? bounded;
  return new mod.default({
    apiKey: ctx.http.tokenForProbe(),
    baseURL: ctx.baseUrl,
    maxRetries: 0,
    timeout: ctx.http.timeoutMs,
    fetch,
    ...(fault === undefined ? {} : { defaultHeaders: { 'x-iari-fault': fault } }),
  });
}
