import { HarnessError, HarnessErrorCode } from '../src/errors.ts';
import { createCore, UnknownFaultError, type CoreOptions, type MockCore } from './core/handler.ts';
import { listenNodeHttp } from './adapters/node-http.ts';
import type { SendLog } from './adapters/send-log.ts';
import type { ModelInfo, ModelInput } from './core/models.ts';
import type { ReceiptIssuer } from './receipt-hooks.ts';
import { faults, faultNames } from './faults.ts';

export type { SendLog, SendLogRecord, SendLogEvent } from './adapters/send-log.ts';
export type { ReceiptIssuer } from './receipt-hooks.ts';
export type { MockRequest, MockResponse, StreamEvent } from './core/types.ts';
export type { AccountsFile, AccountFixture } from './core/accounts.ts';
export { faults, faultNames } from './faults.ts';
export { createCore } from './core/handler.ts';

export interface MockServerOptions extends Omit<CoreOptions, 'receipts'> {
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Receipts extension: on by default; false turns it off (the routes answer 404); or a custom issuer. */
  receipts?: boolean | ReceiptIssuer;
  /** Durable receipt ledger file, passed to the receipt issuer. */
  ledger?: string;
  /** Entries kept in the send log (default 10,000 requests). */
  sendLogCapacity?: number;
}

export interface MockServer {
  /** Base URL including /v1, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  origin: string;
  tokens: { default: string; byAccount: Record<string, string> };
  sendLog: SendLog;
  admin: {
    retireModel(id: string): boolean;
    addModel(model: ModelInput): ModelInfo;
    models(): { available: string[]; retired: string[] };
    /** Streams being written right now. */
    activeStreams(): number;
  };
  core: MockCore;
  /** The underlying node:http server. */
  httpServer: import('node:http').Server;
  close(): Promise<void>;
}

export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost']);

async function receiptIssuerFor(options: MockServerOptions): Promise<ReceiptIssuer | null> {
  if (options.receipts === false) return null;
  if (typeof options.receipts === 'object') return options.receipts;
  // The issuer is built beside this module; a variable specifier keeps the core usable without it.
  const specifier = './receipt-issuer.ts';
  let mod: Record<string, unknown>;
  try {
    mod = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return null;
    throw error;
  }
  const create = mod['createReceiptIssuer'];
  if (typeof create !== 'function') return null;
  const issuerOptions: Record<string, unknown> = {};
  if (options.ledger !== undefined) issuerOptions['ledger'] = options.ledger;
  if (options.seed !== undefined) issuerOptions['seed'] = options.seed;
  return (await (create as (o: unknown) => ReceiptIssuer | Promise<ReceiptIssuer>)(issuerOptions)) ?? null;
}

/** Starts the bundled mock server on a loopback address (port 0 by default). */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.has(host)) {
    throw new HarnessError(HarnessErrorCode.TARGET_NOT_LOOPBACK, `the mock server only listens on loopback (127.0.0.1, ::1, localhost), not "${host}"`);
  }
  const { receipts: _r, host: _h, port: _p, ledger: _l, sendLogCapacity: _s, ...coreOptions } = options;
  let core: MockCore;
  try {
    core = createCore({ ...coreOptions, receipts: await receiptIssuerFor(options) }, faultNames);
  } catch (error) {
    if (error instanceof UnknownFaultError) {
      throw new HarnessError(HarnessErrorCode.FAULT_UNKNOWN, error.message, { hint: 'iari mock --list-faults shows every fault name' });
    }
    throw error;
  }
  const http = await listenNodeHttp(core, {
    host,
    port: options.port ?? 0,
    ...(options.sendLogCapacity === undefined ? {} : { sendLogCapacity: options.sendLogCapacity }),
    debug: (path) => (path === '/_iari/faults' ? { object: 'list', data: faults } : path === '/_iari/models' ? { object: 'models', ...core.admin.models() } : undefined),
  });
  return {
    url: `${http.origin}/v1`,
    origin: http.origin,
    tokens: core.tokens(),
    sendLog: http.sendLog,
    admin: { ...core.admin, activeStreams: http.activeStreams },
    core,
    httpServer: http.server,
    close: () => http.close(),
  };
}
