import type OpenAI from 'openai';
import { policedFetch } from '../../client/fetch-policy.ts';
import { CheckHttpError, type CheckHttp } from './check-http.ts';
import { isRequestDeadline } from '../../client/transport-errors.ts';
import { createOpenAIClient } from '../../client/openai-client.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

const PATH = CHAT_COMPLETIONS_PATH;

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
 * bounded like every other request of the run (the fetch policy, client/fetch-policy.ts): no other origin, the request deadline (shortened
 * once the server has held an answer open, stalls.ts), the running check's deadline, the body
 * limits, no redirects followed. A chat request of a kind that never completes is not sent: the
 * check is blocked at once, naming the root cause.
 */
export async function openaiClient(ctx: { http: CheckHttp; baseUrl: string }, stream: boolean): Promise<SdkClient | undefined> {
  const guard = ctx.http.stalled.guard({ method: 'POST', path: PATH, streamed: stream });
  if (guard.kind === 'refused') throw CheckHttpError.refused(`POST ${PATH}`, guard.root, '');
  const deadline = guard.deadline(ctx.http.timeoutMs);
  const fault = ctx.http.fault;
  // A 429 is waited out by iari (rate-limit-retry.ts), so the SDK itself does not retry.
  const bounded = policedFetch(ctx.http.fetch, { deadlineMs: deadline.ms, signal: ctx.http.signal, origin: ctx.baseUrl });
  const fetch = ctx.http.withoutStandIn(ctx.http.sdkFetch(deadline.ms, bounded) ?? bounded);
  const client = await createOpenAIClient({ apiKey: ctx.http.tokenForProbe(), baseURL: ctx.baseUrl, timeoutMs: deadline.ms, fetch, ...(fault === undefined ? {} : { headers: { 'x-iari-fault': fault } }) });
  if (client === undefined) return undefined;
  return {
    client,
    stalled(error) {
      // iari's deadline (fetch-policy.ts raises RequestDeadline, the SDK keeps it as the cause) or the SDK's own timer at the same deadline.
      if (!isRequestDeadline(error) && (error as Error | undefined)?.name !== 'APIConnectionTimeoutError') return undefined;
      return CheckHttpError.late(`POST ${PATH}`, deadline.expired(undefined), '');
    },
  };
}
