import { HarnessError, HarnessErrorCode } from '../src/errors.ts';
import { createCore, UnknownFaultError, type CoreOptions, type MockCore } from './core/handler.ts';
import { listenNodeHttp } from './adapters/node-http.ts';
import type { SendLog } from './adapters/send-log.ts';
import type { ReceiptIssuer } from './receipt-hooks.ts';
import { faultsOf } from './faults.ts';
import { createReceiptIssuer, type MockReceiptIssuer } from './receipt-issuer.ts';

export type { SendLog, SendLogRecord, SendLogEvent } from './adapters/send-log.ts';
export type { ReceiptIssuer } from './receipt-hooks.ts';
export type { MockRequest, MockResponse, StreamEvent } from './core/types.ts';
export type { AccountsFile, AccountFixture } from './core/accounts.ts';
export { faults, faultNames, faultsOf } from './faults.ts';
export { createCore } from './core/handler.ts';

export interface MockServerOptions extends Omit<CoreOptions, 'receipts'> {
  /** Address to listen on: 127.0.0.1 by default; any other (0.0.0.0, ::, an interface's address) only when asked. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Receipts extension: on by default; false turns it off (the routes answer 404); or a custom issuer. */
  receipts?: boolean | ReceiptIssuer;
  /** Durable receipt ledger file, passed to the receipt issuer. */
  ledger?: string;
  /** Receipts kept in memory per chain (default 10,000; receipt-issuer.ts): older ones only in the ledger. */
  receiptRetention?: number;
  /** Entries kept in the send log (default 10,000 requests). */
  sendLogCapacity?: number;
}

export interface MockServer {
  /** Base URL including /v1, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  origin: string;
  tokens: { default: string; byAccount: Record<string, string> };
  sendLog: SendLog;
  /** The core's admin calls (models, freeze), plus the streams being written right now. */
  admin: MockCore['admin'] & { activeStreams(): number };
  core: MockCore;
  /** The receipt issuer in use (null when receipts are off). */
  receipts: ReceiptIssuer | null;
  /** The underlying node:http server. */
  httpServer: import('node:http').Server;
  close(): Promise<void>;
}

function receiptIssuerFor(options: MockServerOptions): { issuer: ReceiptIssuer | null; owned: MockReceiptIssuer | null } {
  if (options.receipts === false) return { issuer: null, owned: null };
  if (typeof options.receipts === 'object') return { issuer: options.receipts, owned: null };
  const clock = options.now;
  const owned = createReceiptIssuer({
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
    ...(options.receiptRetention === undefined ? {} : { retention: options.receiptRetention }),
    ...(clock === undefined ? {} : { now: () => Math.floor(clock() / 1000) }),
  });
  return { issuer: owned, owned };
}

/** Starts the bundled mock server on 127.0.0.1 (or `host` when given), port 0 (a free port) by default. */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const host = options.host ?? '127.0.0.1';
  const { receipts: _r, host: _h, port: _p, ledger: _l, sendLogCapacity: _s, receiptRetention: _rr, ...coreOptions } = options;
  let core: MockCore;
  // The faults of the mock and of every API it serves.
  const apiFaults = faultsOf(options.protocols);
  const receipts = receiptIssuerFor(options);
  try {
    core = createCore({ ...coreOptions, receipts: receipts.issuer }, new Set(apiFaults.map((x) => x.name)));
  } catch (error) {
    receipts.owned?.close();
    if (error instanceof UnknownFaultError) {
      throw new HarnessError(HarnessErrorCode.FAULT_UNKNOWN, error.message, { hint: 'iari mock --list-faults shows every fault name' });
    }
    throw error;
  }
  const http = await listenNodeHttp(core, {
    host,
    port: options.port ?? 0,
    ...(options.sendLogCapacity === undefined ? {} : { sendLogCapacity: options.sendLogCapacity }),
    debug: (path) => (path === '/_iari/faults' ? { object: 'list', data: apiFaults } : path === '/_iari/models' ? { object: 'models', ...core.admin.models() } : undefined),
  });
  let closing: Promise<void> | null = null;
  return {
    url: `${http.origin}/v1`,
    origin: http.origin,
    tokens: core.tokens(),
    sendLog: http.sendLog,
    admin: { ...core.admin, activeStreams: http.activeStreams },
    core,
    httpServer: http.server,
    receipts: receipts.issuer,
    close: () => {
      closing ??= http.close().then(() => receipts.owned?.close());
      return closing;
    },
  };
}
