import { Pool, type Dispatcher } from 'undici';
import { transportClass } from '../../client/transport-errors.ts';
import { nothingReadSince, type SentOn, type SocketLike } from '../../client/connection-watch.ts';
import type { RequestTimer } from '../measure/request-timer.ts';

/**
 * Connection reuse races (docs/load.md, "Connections a server closes after an answer").
 *
 * A server may close a kept-alive connection just as the client writes its next request on it:
 * llama.cpp's server answers a stream with `Keep-Alive: timeout=5, max=100`, then closes the
 * connection, and the next request written on it dies about 1 ms after the send (research,
 * llama-server-2026-11.md). RFC 9112 §9.3.1 expects clients to recover from such asynchronous
 * closes; curl sends the request again on a new connection. A request that went out on a REUSED
 * connection which then closed before ANY byte of its answer is taken as never applied (RFC 9110
 * §9.2.2 allows sending it again then): iari sends it once more, on a fresh connection, and counts
 * it as a race, never as a server error. A failure on a fresh connection, or after a byte of the
 * answer, stays the error it is.
 */

/** --connection-reuse: `reuse` kept-alive connections (the default), or `never`: a new connection per request. */
export { connectionReusePolicies, type ConnectionReuse } from '../results/load-result.ts';

/** One undici request: which connection it went out on, and whether a failure of it is a connection reuse race. */
export class ReuseWatch {
  #on: SentOn | null = null;
  #answered = false;
  #retried = false;

  /** The request starts (again): undici writes its head next. */
  starting(): void {
    this.#on = null;
    this.#answered = false;
  }

  /** The connection its head was written on (the run's ConnectionWatch says, through its request handler). */
  readonly sentOn = (on: SentOn): void => {
    this.#on = on;
  };

  /** The head of the answer arrived. */
  answered(): void {
    this.#answered = true;
  }

  /** Whether `err` ended the request in a connection reuse race (a reused connection closed before any byte of the answer; once per request). */
  raced(err: unknown): boolean {
    const on = this.#on;
    if (this.#retried || this.#answered || on === null || !on.reused || !nothingReadSince(on.socket, on.bytesRead)) return false;
    return transportClass(err) === 'reset';
  }

  /** The request goes out once more, on a fresh connection. */
  retrying(): void {
    this.#retried = true;
  }
}

/**
 * A dispatcher of one new connection (TLS and proxy as the run's), for one race's retry: it is
 * closed as soon as the request is handed to it (undici closes it once that request has ended).
 */
export function dispatchFresh(target: { origin: string; dispatcher?: (pool: Pool.Options) => Dispatcher }, options: Pool.Options, request: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): void {
  const pool = { ...options, connections: 1, pipelining: 1 };
  const fresh = target.dispatcher?.(pool) ?? new Pool(target.origin, pool);
  fresh.dispatch({ ...request, reset: true }, handler);
  void fresh.close().catch(() => undefined);
}

/**
 * autocannon: the connection each request of one client went out on. autocannon opens a new
 * connection by itself when the server closes one (and writes its next request there).
 */
export class ClientConnections {
  #conn: SocketLike | null = null;
  #written = 0;
  #reused = false;
  #bytesRead = 0;

  /** The client writes a request on `conn`. */
  sending(conn: SocketLike): void {
    if (conn !== this.#conn) {
      this.#conn = conn;
      this.#written = 0;
    }
    this.#reused = this.#written++ > 0;
    this.#bytesRead = conn.bytesRead;
  }

  /** Whether `timer`, the request written last, lost a connection reuse race (once per request). */
  raced(timer: RequestTimer): boolean {
    const conn = this.#conn;
    return conn !== null && this.#reused && timer.timing.headersNs === null && timer.timing.reuseRace === undefined && nothingReadSince(conn, this.#bytesRead);
  }
}

interface AutocannonConnections {
  conn?: unknown;
  destroyed: boolean;
  _doRequest(): void;
}

/**
 * --connection-reuse never on autocannon, which writes the next request on the connection the
 * answer came on: a request due on a connection that already carried one opens a new one first.
 */
export function newConnectionPerRequest(client: AutocannonConnections, reconnect: () => void): void {
  const write = client._doRequest.bind(client);
  let used: unknown = null;
  client._doRequest = () => {
    if (client.destroyed || client.conn !== used) {
      used = client.conn;
      write();
      return;
    }
    // Connects anew; autocannon then writes the request on the new connection (through here).
    reconnect();
  };
}
