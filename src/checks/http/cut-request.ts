import type { Dispatcher } from 'undici';
import { headerMap } from './watched-request.ts';

/**
 * One request whose client goes away on purpose (docs/cancellation.md): it is sent on a dispatcher of
 * the check's own and its connection is closed (undici's controller.abort destroys the socket) when
 * `cutWhen` says so on a piece of the body as it arrives, or `cutAfterMs` after it was sent, whichever comes
 * first. Without either it is read to the end. Never rejects.
 */
export interface CutRequest {
  origin: string;
  path: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string;
  /** The longest the request may take; past it the connection is closed and `error` says so. */
  deadlineMs: number;
  maxBytes: number;
  /** Called with each piece of the body as it arrives (UTF-8 decoded in stream mode); true closes the connection. */
  cutWhen?: (piece: string) => boolean;
  /** Close the connection this long after the request was sent, whatever arrived. */
  cutAfterMs?: number;
  /** Close the connection when this aborts (the check decides when, e.g. after reading the server's gauges). */
  cut?: AbortSignal;
  /** The running check's signal (`ctx.http.signal`). */
  signal?: AbortSignal | undefined;
}

export interface CutAnswer {
  /** The status, or null when no head arrived before the cut. */
  status: number | null;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body received before the cut (or whole), as text. */
  text: string;
  /** performance.now() when the request was handed to the dispatcher. */
  sentAt: number;
  /** When the first body bytes arrived (null: none). */
  firstBodyAt: number | null;
  /** When the client closed the connection on purpose (null: it did not). */
  cutAt: number | null;
  /** Whether the answer ended by itself before any cut. */
  complete: boolean;
  /** A transport error, the deadline, or a body over maxBytes (never the cut itself). */
  error: Error | null;
  /** The answer neither ended nor was cut within `deadlineMs`. */
  timedOut: boolean;
}

export function cutRequest(d: Dispatcher, r: CutRequest): Promise<CutAnswer> {
  return new Promise((resolve) => {
    const sentAt = performance.now();
    const answer: CutAnswer = { status: null, headers: {}, text: '', sentAt, firstBodyAt: null, cutAt: null, complete: false, error: null, timedOut: false };
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
      resolve(answer);
    };
    const cut = (): void => {
      if (done) return;
      answer.cutAt = performance.now();
      // Before the dispatcher handed over its controller, the cut waits for it (onRequestStart).
      if (controller === undefined) {
        pendingCut = true;
        return;
      }
      // Settled first: undici may report the abort back through onResponseError at once.
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
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (pendingCut) {
          finish(null);
          c.abort(new Error('closed by the client on purpose'));
        }
      },
      onResponseStart(_c, status, headers) {
        answer.status = status;
        answer.headers = headerMap(headers as Record<string, string | string[] | undefined>);
      },
      onResponseData(c, chunk) {
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
      onResponseEnd() {
        answer.complete = !done;
        finish(null);
      },
      onResponseError(_c, err) {
        finish(err);
      },
    };
    if (scope?.aborted === true) return abandoned();
    try {
      d.dispatch({ origin: r.origin, path: r.path, method: r.method, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) }, handler);
    } catch (err) {
      finish(err as Error);
    }
  });
}
