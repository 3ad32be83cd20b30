import { subscribe } from 'node:diagnostics_channel';

/**
 * Which connection a request sent through undici went out on, for the load engines' connection
 * reuse races (src/load/connection-reuse.ts) and HDR-017's probe (src/checks/areas/keep-alive.ts).
 * undici publishes `undici:client:sendHeaders` ({ request, headers, socket }) as it writes a
 * request's head, synchronously right after that request's handler heard onRequestStart (undici
 * 7, lib/dispatcher/client-h1.js writeH1): a handler that calls `onNextHead` in onRequestStart
 * learns the socket its request is written on, and how many requests that socket carried before.
 */

/** The socket as far as iari reads it. */
export interface SocketLike {
  bytesRead: number;
  /** Set on a TLS socket. */
  encrypted?: boolean;
}

/** The connection one request was written on. */
export interface SentOn {
  socket: SocketLike;
  /** The socket carried a request before this one. */
  reused: boolean;
  /** Bytes read on the socket before this request was written. */
  bytesRead: number;
}

/** Requests written so far on each socket undici wrote on since this module loaded. */
const written = new WeakMap<object, number>();
let pending: ((on: SentOn) => void) | null = null;

subscribe('undici:client:sendHeaders', (message) => {
  const socket = (message as { socket?: SocketLike }).socket;
  const take = pending;
  pending = null;
  if (socket === undefined) return;
  const n = written.get(socket) ?? 0;
  written.set(socket, n + 1);
  take?.({ socket, reused: n > 0, bytesRead: socket.bytesRead });
});

/** Call from a dispatch handler's onRequestStart: `then` hears the connection that request's head is written on. */
export function onNextHead(then: (on: SentOn) => void): void {
  pending = then;
}

/** Nothing of an answer arrived on `socket` since `bytesRead` (a TLS socket counts its records, a close alert too: there only the head tells). */
export function nothingReadSince(socket: SocketLike, bytesRead: number): boolean {
  return socket.encrypted === true || socket.bytesRead === bytesRead;
}

/**
 * The bytes a connection had read before it closed under a request that got no answer, when that
 * connection had carried earlier answers: a connection reuse race (src/load/executors/connection-reuse.ts).
 * undici's SocketError carries the socket's counters at the close (`error.socket`, util.getSocketInfo):
 * a fresh connection closed before any byte has read nothing. Undefined for any other failure.
 */
export function reusedConnectionClosed(err: unknown): number | undefined {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (typeof e === 'object' && e !== null && !seen.has(e) && seen.size < 8) {
    seen.add(e);
    const { code, socket } = e as { code?: unknown; socket?: { bytesRead?: unknown } };
    if (code === 'UND_ERR_SOCKET') return typeof socket?.bytesRead === 'number' && socket.bytesRead > 0 ? socket.bytesRead : undefined;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
