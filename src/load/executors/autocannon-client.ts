import type { EventEmitter } from 'node:events';
import { now } from './engine.ts';
import type { RequestTimer } from '../measure/request-timer.ts';
import type { BoundBreach, ByteBudget } from '../measure/response-bounds.ts';
import type { ClientConnections } from './connection-reuse.ts';

/** The parts of autocannon 8's client (node_modules/autocannon/lib/httpClient.js) the engine uses. */
export interface AutocannonClient extends EventEmitter {
  parser: object;
  conn: { bytesRead: number };
  reqsMade: number;
  responseMax: number | undefined;
  destroyed: boolean;
  _resetConnection(): void;
  _doRequest(): void;
  destroy(): void;
}

export interface ClientState {
  timer: RequestTimer | null;
  /** Bytes of the current response (HDR-013): past the limit it fails and the connection is reset. */
  budget: ByteBudget | null;
  lastByteNs: bigint;
  /** lastByteNs when a sweep first saw this request over the idle limit. */
  suspectAt: bigint;
  /** Reads paused while the check worker catches up. */
  paused?: boolean;
  /** The connection each request went out on (connection reuse races, connection-reuse.ts). */
  conns: ClientConnections;
  /** The body (its sequence number) of the request written last. */
  bodySeq: number;
}

/**
 * Drops the connection of a request iari failed mid-response (a timeout, a bound) and opens a new
 * one. autocannon reuses the client's HTTP parser, which is still inside the old response's body:
 * without starting it over, the next response's bytes would be read as the rest of that body
 * (and end a request that never saw its head).
 */
export function resetConnection(client: AutocannonClient): void {
  client._resetConnection();
  (client.parser as { initialize?: (type: string) => void }).initialize?.('RESPONSE');
}

export function headerValue(raw: unknown, name: string): string | null {
  if (!Array.isArray(raw)) return null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (String(raw[i]).toLowerCase() === name) return String(raw[i + 1]);
  }
  return null;
}

/** The check worker is behind, or a large event waits its turn: stop reading this connection meanwhile. */
function pauseUntil(client: AutocannonClient, st: ClientState, wait: Promise<void>): void {
  const conn = (client as unknown as { conn?: { pause(): void; resume(): void; destroyed: boolean } }).conn;
  if (conn === undefined || st.paused === true) return;
  st.paused = true;
  conn.pause();
  void wait.then(() => {
    st.paused = false;
    st.lastByteNs = now();
    if (!conn.destroyed) conn.resume();
  });
}

/**
 * Reads each HTTP chunk's exact slice: autocannon's `body` events carry the whole socket buffer,
 * so the parser's kOnBody callback is replaced and each slice stamped with process.hrtime.
 * `breach` fails the request on a broken bound; `drop` drops the connection after a decided read.
 */
export function readBodies(client: AutocannonClient, st: ClientState, breach: (b: BoundBreach) => void, drop: () => void): void {
  const kOnBody = (client.parser.constructor as unknown as { kOnBody: number }).kOnBody;
  const onBody = (buf: Buffer, start: number, len: number): void => {
    const t = now();
    st.lastByteNs = t;
    const over = st.budget?.add(len);
    if (over !== undefined) return breach(over);
    if (st.timer?.data(start === 0 && len === buf.length ? buf : buf.subarray(start, start + len), t) != null) return drop();
    const wait = st.timer?.readGate() ?? null;
    if (wait !== null) pauseUntil(client, st, wait);
  };
  // autocannon assigns its own kOnBody after setupClient; keep ours (the original would only
  // accumulate the body as a string, chunk by chunk, and emit the whole socket buffer).
  Object.defineProperty(client.parser, kOnBody, { configurable: true, get: () => onBody, set: () => undefined });
}
