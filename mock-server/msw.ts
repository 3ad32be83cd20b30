// `iari/msw`: the bundled mock's core offered as msw request handlers, for testing clients of the
// interface in-process. The same core answers as behind `startMockServer`'s socket: same routes,
// accounts, usage accounting, limits, Receipts and faults (`x-iari-fault` header or `faults`).
// msw is a peer dependency: `http` below is the user's own msw, so the handlers carry what that
// msw's server consults (msw 2.13 and later skip handlers a different copy of msw built).
//
//   import { setupServer } from 'msw/node';
//   import { createMockHandlers } from 'iari/msw';
//   const mock = createMockHandlers({ baseUrl: 'https://api.example.test/v1' });
//   const server = setupServer(...mock.handlers);
//   server.listen();  // fetch('https://api.example.test/v1/models') is answered by the mock
//   ...
//   server.close(); mock.close();
import { http, type HttpHandler } from 'msw';
import { createCore, UnknownFaultError, type CoreOptions, type MockCore } from './core/handler.ts';
import { faultsOf } from './faults.ts';
import type { ReceiptIssuer } from './receipt-hooks.ts';
import { createReceiptIssuer, type MockReceiptIssuer } from './receipt-issuer.ts';
import { toFetchResponse, toMockRequest } from './adapters/msw-response.ts';
import { HarnessError, HarnessErrorCode } from '../src/errors.ts';

export type { MockRequest, MockResponse } from './core/types.ts';

export interface MockHandlersOptions extends Omit<CoreOptions, 'receipts'> {
  /** Where the handlers answer: "<baseUrl>/..." (default: any origin, any path ending in /v1/...). */
  baseUrl?: string;
  /** Receipts extension: on by default; false turns it off; or a custom issuer. */
  receipts?: boolean | ReceiptIssuer;
  /** Durable receipt ledger file (Node only). */
  ledger?: string;
}

export interface MockHandlers {
  handlers: HttpHandler[];
  tokens: { default: string; byAccount: Record<string, string> };
  core: MockCore;
  /** The receipt issuer in use, or null when receipts are off. */
  receipts: ReceiptIssuer | null;
  /** Releases the receipt ledger, if any. */
  close(): void;
}

/**
 * The bundled mock as msw request handlers, built with the caller's msw (a peer dependency).
 *
 * @example
 * const mock = createMockHandlers({ baseUrl: 'https://api.example.test/v1' });
 * const server = setupServer(...mock.handlers); // from 'msw/node'
 */
export function createMockHandlers(options: MockHandlersOptions = {}): MockHandlers {
  const { baseUrl, receipts: receiptsOption, ledger, ...coreOptions } = options;
  let owned: MockReceiptIssuer | null = null;
  let receipts: ReceiptIssuer | null = null;
  if (typeof receiptsOption === 'object') receipts = receiptsOption;
  else if (receiptsOption !== false) {
    const clock = options.now;
    owned = createReceiptIssuer({
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(ledger === undefined ? {} : { ledger }),
      ...(clock === undefined ? {} : { now: () => Math.floor(clock() / 1000) }),
    });
    receipts = owned;
  }
  let core: MockCore;
  try {
    core = createCore({ ...coreOptions, receipts }, new Set(faultsOf(coreOptions.protocols).map((x) => x.name)));
  } catch (error) {
    owned?.close();
    if (error instanceof UnknownFaultError) {
      throw new HarnessError(HarnessErrorCode.FAULT_UNKNOWN, error.message, { hint: 'iari mock --list-faults shows every fault name' });
    }
    throw error;
  }
  const pattern = baseUrl === undefined ? '*/v1/*' : `${baseUrl.replace(/\/+$/, '')}/*`;
  const handler = http.all(pattern, async ({ request }) => toFetchResponse(core.handle(await toMockRequest(request)), request.signal));
  const bare = baseUrl === undefined ? '*/v1' : baseUrl.replace(/\/+$/, '');
  const root = http.all(bare, async ({ request }) => toFetchResponse(core.handle(await toMockRequest(request)), request.signal));
  return {
    handlers: [handler, root],
    tokens: core.tokens(),
    core,
    receipts,
    close: () => owned?.close(),
  };
}
