import type { Dispatcher } from 'undici';
import type { ConnectionWatch, SentOn } from '../../client/connection-watch.ts';
import { requestHandler } from '../../client/dispatch-request.ts';

/**
 * One request a check sends on a dispatcher of its own, read to the end within its deadline, its
 * size bound and the running check's deadline; never rejects. With `watch`, the answer says which
 * connection it went out on (HDR-017). Its client may go away on purpose (docs/cancellation.md):
 * the connection is closed (undici's controller.abort destroys the socket), a cut, when `cutWhen`
 * says so on a piece of the body as it arrives, `cutAfterMs` after it was sent, or `cut` aborts,
 * whichever comes first.
 */
export interface OwnRequest {
  origin: string;
  path: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string;
  /** The longest the request may take; past it the connection is closed and `error` says so. */
  deadlineMs: number;
  maxBytes: number;
  /** The running check's signal (`ctx.http.signal`): aborted when the check passes its deadline. */
  signal?: AbortSignal | undefined;
  /** The run's connection watch: the answer then says which connection the request went out on. */
  watch?: ConnectionWatch;
  /** Called with each piece of the body as it arrives (UTF-8 decoded in stream mode); true cuts. */
  cutWhen?: (piece: string) => boolean;
  /** Cut this long after the request was sent, whatever arrived. */
  cutAfterMs?: number;
  /** Cut when this aborts (the check decides when, e.g. after reading the server's gauges). */
  cut?: AbortSignal;
}

export interface OwnAnswer {
  /** The status, or null when no head arrived (before a cut, or at all). */
  status: number | null;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body received (before a cut, or whole), as text, up to `maxBytes`. */
  text: string;
  /** performance.now() when the request was handed to the dispatcher. */
  sentAt: number;
  /** When the first body bytes arrived (null: none). */
  firstBodyAt: number | null;
  /** When the client cut the request (null: it did not). */
  cutAt: number | null;
  /** Whether the answer ended by itself before any cut. */
  complete: boolean;
  /** A transport error, the deadline, the check's own deadline, or a body over maxBytes (never the cut itself). */
  error: Error | null;
  /** The answer neither ended nor was cut within `deadlineMs`. */
  timedOut: boolean;
  /** The connection the request's head was written on (null: never written, or no watch). */
  on: SentOn | null;
  /** When the answer ended, failed or was cut, performance.now(). */
  endedAt: number;
}

/** Lower-cased header names; repeated headers joined with ", ". */
export function headerMap(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function ownRequest(d: Dispatcher, r: OwnRequest): Promise<OwnAnswer> {
  return new Promise((resolve) => {
    const sentAt = performance.now();
    const answer: OwnAnswer = { status: null, headers: {}, text: '', sentAt, firstBodyAt: null, cutAt: null, complete: false, error: null, timedOut: false, on: null, endedAt: 0 };
    const chunks: Buffer[] = [];
    const decoder = new TextDecoder();
    let size = 0;
    let controller: Dispatcher.DispatchController | undefined;
    let pendingCut = false;
    let done = false;
    const scope = r.signal;
    const finish = (error: Error | null): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      if (cutTimer !== undefined) clearTimeout(cutTimer);
      scope?.removeEventListener('abort', abandoned);
      r.cut?.removeEventListener('abort', cut);
      answer.error = error;
      answer.text = Buffer.concat(chunks).toString('utf8');
      answer.endedAt = performance.now();
      resolve(answer);
    };
    const cut = (): void => {
      if (done) return;
      answer.cutAt = performance.now();
      // Before the dispatcher handed over its controller, the cut waits for it (start).
      if (controller === undefined) {
        pendingCut = true;
        return;
      }
      // Settled first: undici may report the abort back through the error hook at once.
      finish(null);
      controller.abort(new Error('closed by the client on purpose'));
    };
    const abandoned = (): void => {
      const gone = new Error('the check was abandoned at its deadline');
      controller?.abort(gone);
      finish(gone);
    };
    const deadline = setTimeout(() => {
      const late = new Error(`no complete answer within ${r.deadlineMs} ms`);
      answer.timedOut = true;
      controller?.abort(late);
      finish(late);
    }, r.deadlineMs);
    const cutTimer = r.cutAfterMs === undefined ? undefined : setTimeout(cut, r.cutAfterMs);
    scope?.addEventListener('abort', abandoned, { once: true });
    r.cut?.addEventListener('abort', cut, { once: true });
    const handler = requestHandler(
      {
        start(c) {
          controller = c;
          if (pendingCut) {
            finish(null);
            c.abort(new Error('closed by the client on purpose'));
          }
        },
        sentOn(on) {
          answer.on = on;
        },
        head(_c, status, headers) {
          answer.status = status;
          answer.headers = headerMap(headers);
        },
        data(c, chunk) {
          if (done) return;
          answer.firstBodyAt ??= performance.now();
          size += chunk.length;
          if (size > r.maxBytes) {
            const big = new Error(`the answer is longer than ${r.maxBytes} bytes`);
            c.abort(big);
            return finish(big);
          }
          chunks.push(chunk);
          if (r.cutWhen?.(decoder.decode(chunk, { stream: true })) === true) cut();
        },
        end() {
          answer.complete = !done;
          finish(null);
        },
        error(err) {
          finish(err);
        },
      },
      r.watch,
    );
    if (scope?.aborted === true) return abandoned();
    try {
      d.dispatch({ origin: r.origin, path: r.path, method: r.method, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) }, handler);
    } catch (err) {
      finish(err as Error);
    }
  });
}
