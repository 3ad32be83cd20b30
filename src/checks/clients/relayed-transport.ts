import { assertOrigin, OriginRefused } from '../../client/fetch-policy.ts';
import type { OpTransport } from './client-op-env.ts';

interface Seen {
  status: number | undefined;
  errorBody: string | undefined;
  body?: Promise<string>;
}

/**
 * The fetch a library is handed in iari's client process: it reaches only the relay (client-relay.ts),
 * which applies the fetch policy in the main process. Any other origin is refused here, so a library
 * that tries to phone home fails its operation instead of leaving the machine. It records what each
 * answer was, for the operations that read it (an error's status and body, a kept body).
 */
export class RelayedTransport implements OpTransport {
  keepBodies = false;
  readonly refused: string[] = [];
  readonly #seen: Seen[] = [];
  readonly #origin: string;
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
    this.#origin = new URL(baseUrl).origin;
  }

  last(): Seen | undefined {
    return this.#seen[this.#seen.length - 1];
  }

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    try {
      assertOrigin(url, this.#origin);
    } catch (error) {
      if (error instanceof OriginRefused) this.refused.push(error.origin);
      throw error;
    }
    const seen: Seen = { status: undefined, errorBody: undefined };
    this.#seen.push(seen);
    const res = await fetch(input, init);
    seen.status = res.status;
    if (this.keepBodies) seen.body = res.clone().text().catch(() => '');
    if (res.status >= 400) {
      const text = await res.clone().text().catch(() => '');
      seen.errorBody = text.length > 500 ? `${text.slice(0, 500)}...` : text;
    }
    return res;
  };
}
