import type OpenAI from 'openai';
import type { CheckContext } from './check-types.ts';

/**
 * The official SDK pointed at the server under test with only the base URL (and the run's
 * fault header) set, no retries; the token is handed over in memory. Undefined when the SDK is
 * not installed (the SDK checks are then skipped).
 */
export async function openaiClient(ctx: CheckContext): Promise<OpenAI | undefined> {
  const mod = await import('openai').catch(() => undefined);
  if (mod === undefined) return undefined;
  const fault = ctx.http.fault;
  return new mod.default({
    apiKey: ctx.http.tokenForProbe(),
    baseURL: ctx.baseUrl,
    maxRetries: 0,
    timeout: 10_000,
    ...(fault === undefined ? {} : { defaultHeaders: { 'x-iari-fault': fault } }),
  });
}
