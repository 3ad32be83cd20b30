import type { OpResult } from './client-op.ts';
import { clientErrorText, type ClientTransport } from './client-transport.ts';

/** The key the 401 operations send: well formed, never issued. */
export const WRONG_KEY = 'sk-iari-wrong-key-0000000000000000000000';

/**
 * The 404 "unknown route" operations keep the client's own call (a chat completion) and put a
 * path segment the server does not serve into the base URL, the way a mistyped or foreign base
 * path does (`…/v1/<prefix>/chat/completions`). No server serves it, whatever else it implements.
 */
export const UNKNOWN_PREFIX = 'iari-no-such-prefix';

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
export async function expectClientError(t: ClientTransport, expected: ErrorExpectation, unprovoked: string, call: () => Promise<unknown>): Promise<OpResult> {
  try {
    await call();
  } catch (error) {
    const status = t.last()?.status;
    if (status !== undefined && status < 400) return { skip: unprovoked };
    const wrong = expected.judge(error);
    if (wrong === undefined) return undefined;
    const body = t.last()?.errorBody;
    return {
      problem: `threw ${clientErrorText(error)}: ${wrong}`,
      expected: `${expected.className} (status ${expected.status}) with the server's error message`,
      received: status === undefined ? 'no response' : `the server answered ${status}${body === undefined || body === '' ? '' : ` ${body}`}`,
    };
  }
  return { skip: unprovoked };
}
