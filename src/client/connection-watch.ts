import { subscribe, unsubscribe } from 'node:diagnostics_channel';

/**
 * Which connection a request sent through undici went out on, for the load engines' connection
 * reuse races (src/load/connection-reuse.ts) and HDR-017's probe (src/checks/areas/keep-alive.ts).
 * undici publishes `undici:client:sendHeaders` ({ request, headers, socket }) as it writes a
 * request's head, synchronously right after that request's handler heard onRequestStart (undici
 * 7, lib/dispatcher/client-h1.js writeH1; the handler is given nothing that names its socket), so
 * the one request handler (dispatch-request.ts) names the request whose head comes next there.
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

const SEND_HEADERS = 'undici:client:sendHeaders';

/**
 * A run's watch over the connections its requests go out on: owned by the run that opens it
 * (a check context, a load run) and closed with it; nothing about it is module-global.
 */
export class ConnectionWatch {
  /** Requests written so far on each socket undici wrote on since this watch opened. */
  readonly #written = new WeakMap<object, number>();
  /** The request whose head undici writes next (set in its onRequestStart, taken at once by the channel). */
  #next: ((on: SentOn) => void) | null = null;
  readonly #onSend = (message: unknown): void => {
    const socket = (message as { socket?: SocketLike }).socket;
    const take = this.#next;
    this.#next = null;
    if (socket === undefined) return;
    const n = this.#written.get(socket) ?? 0;
    this.#written.set(socket, n + 1);
    take?.({ socket, reused: n > 0, bytesRead: socket.bytesRead });
  };

  constructor() {
    subscribe(SEND_HEADERS, this.#onSend);
  }

  /** From a request's onRequestStart only (dispatch-request.ts): `then` hears the connection its head is written on. */
  nextHead(then: (on: SentOn) => void): void {
    this.#next = then;
  }

  close(): void {
    unsubscribe(SEND_HEADERS, this.#onSend);
  }
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
