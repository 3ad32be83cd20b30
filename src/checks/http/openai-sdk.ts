import type OpenAI from 'openai';
import type { CheckContext } from '../framework/check-types.ts';
import { boundedFetch } from './bounded-fetch.ts';
import { CheckHttpError } from './check-http.ts';
import { formatDuration } from '../framework/check-deadline.ts';
import { violation } from '../../client/body-limits.ts';
import { Stalls } from './stalls.ts';

const PATH = '/v1/chat/completions';

export interface SdkClient {
  client: OpenAI;
  /**
   * What a thrown error means for the run: when the SDK's request did not complete within its
   * deadline, the root cause of its kind (stalls.ts) as the error the runner blocks on
   * (check-runner.ts), as for the checks' own requests; undefined for any other error.
   */
  stalled(error: unknown): CheckHttpError | undefined;
}

/**
 * The official SDK pointed at the server under test with only the base URL (and the run's
 * fault header) set, no retries of its own (iari's fetch waits out 429s); the token is handed over
 * in memory. Undefined when the SDK is not installed (the SDK checks are then skipped). Its fetch is
 * bounded like every other request of the run (bounded-fetch.ts): the request deadline (shortened
 * once the server has held an answer open, stalls.ts), the running check's deadline, the body
 * limits, no redirects followed. A chat request of a kind that never completes is not sent: the
 * check is blocked at once, naming the root cause.
 */
export async function openaiClient(ctx: CheckContext, stream: boolean): Promise<SdkClient | undefined> {
  const mod = await import('openai').catch(() => undefined);
  if (mod === undefined) return undefined;
  const kind = Stalls.kind('POST', PATH, stream);
  const root = ctx.http.stalled.blocked(kind);
  if (root !== undefined) throw new CheckHttpError(`POST ${PATH}: ${root}`, '', undefined, true);
  const deadline = ctx.http.stalled.deadline(ctx.http.timeoutMs);
  const fault = ctx.http.fault;
  // A 429 is waited out by iari (rate-limit-retry.ts), so the SDK itself does not retry.
  const bounded = boundedFetch(deadline.ms, ctx.http.fetch);
  const fetch = ctx.http.sdkFetch(deadline.ms, bounded) ?? bounded;
  const client = new mod.default({
    apiKey: ctx.http.tokenForProbe(),
    baseURL: ctx.baseUrl,
    maxRetries: 0,
    timeout: deadline.ms,
    fetch,
    ...(fault === undefined ? {} : { defaultHeaders: { 'x-iari-fault': fault } }),
  });
  const late = `no complete response within the request deadline of ${formatDuration(deadline.ms)}`;
  return {
    client,
    stalled(error) {
      const text = `${(error as Error)?.message ?? ''} ${((error as Error)?.cause as Error | undefined)?.message ?? ''}`;
      if (!text.includes(late) && (error as Error)?.name !== 'APIConnectionTimeoutError' && !/request timed out/i.test(text)) return undefined;
      const what = stream ? "the server's streams do not end" : `the server's answers to POST ${PATH} do not complete`;
      const message = ctx.http.stalled.record(kind, what, undefined, deadline.shortened ? deadline.ms : undefined);
      if (deadline.shortened) return new CheckHttpError(`POST ${PATH}: ${message}`, '', undefined, true);
      const v = violation('deadline', `${late} (--request-timeout)`);
      return new CheckHttpError(`POST ${PATH}: ${v.message}`, '', v);
    },
  };
}
