import type { OpResult } from './client-op-env.ts';
import { clientErrorText } from './client-transport.ts';
import type { OpTransport } from './client-op-env.ts';

/** The key the 401 operations send: well formed, never issued. */
export const WRONG_KEY = 'sk-iari-wrong-key-0000000000000000000000';

/** The 401 operations in a run that sends no token (issue 43): the server asks for none, so no wrong key is sent either. */
export function noWrongKey(env: { sendsToken: boolean }): { skip: string } | undefined {
  return env.sendsToken ? undefined : { skip: 'not tested: the run sends no token (none named with --token-env or --token-file, $IARI_TOKEN unset), so no wrong key is sent either' };
}

/**
 * The 404 "unknown route" operations keep the client's own call (a chat completion) and put a
 * path segment the server does not serve into the base URL, the way a mistyped or foreign base
 * path does (`…/v1/<prefix>` + CHAT_COMPLETIONS_ROUTE). No server serves it, whatever else it implements.
 */
export const UNKNOWN_PREFIX = 'iari-no-such-prefix';

/**
 * Another status the interface allows for the same refusal: an unknown model answered 400 instead of
 * 404 (MODELS-010 grades the status itself), a wrong key 403 instead of 401 (AUTH-008). The client
 * raises another class but keeps the server's message: a deviation callers survive, judged at SHOULD
 * at most (apps that catch NotFoundError to refresh their model list, as the seed asks, are why it is
 * not INFO), never a CLIENT MUST.
 */
const LEGAL_ALTERNATIVES: Readonly<Record<number, readonly number[]>> = { 404: [400], 401: [403] };

/** Whether `got` is another status the interface allows where `wanted` is asked for (a deviation, not a failure). */
export function survivableStatus(wanted: number, got: number): boolean {
  return (LEGAL_ALTERNATIVES[wanted] ?? []).includes(got);
}

function survivable(wanted: number, got: number, error: unknown, body: string | undefined): boolean {
  if (!survivableStatus(wanted, got) || body === undefined) return false;
  let message: unknown;
  try {
    message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
  } catch {
    return false;
  }
  return typeof message === 'string' && message !== '' && clientErrorText(error).includes(message.slice(0, 60));
}

/** How one library must report one error status: its class for it, with the server's message read. */
export interface ErrorExpectation {
  status: 401 | 404 | 429;
  /** What the library documents for that status, as shown in reports. */
  className: string;
  /** Undefined when the error is what the library should raise, else what is wrong with it. */
  judge(error: unknown): string | undefined;
}

/**
 * Makes the call that the server should refuse and judges the client's error. When the server
 * did not refuse (a 2xx), there is no error to judge: the operation is skipped with `unprovoked`,
 * and the requirement that covers the server's acceptance (AUTH, MODELS, LIMIT) judges it.
 */
export async function expectClientError(t: OpTransport, expected: ErrorExpectation, unprovoked: string, call: () => Promise<unknown>): Promise<OpResult> {
  try {
    await call();
  } catch (error) {
    const status = t.last()?.status;
    if (status !== undefined && status < 400) return { skip: unprovoked };
    const wrong = expected.judge(error);
    if (wrong === undefined) return undefined;
    const body = t.last()?.errorBody;
    return {
      ...(status !== undefined && survivable(expected.status, status, error, body) ? { deviation: true as const } : {}),
      problem: `threw ${clientErrorText(error)}: ${wrong}`,
      expected: `${expected.className} (status ${expected.status}) with the server's error message`,
      received: status === undefined ? 'no response' : `the server answered ${status}${body === undefined || body === '' ? '' : ` ${body}`}`,
    };
  }
  return { skip: unprovoked };
}
