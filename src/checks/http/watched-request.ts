import type { Dispatcher } from 'undici';
import { onNextHead, type SentOn } from '../../client/connection-watch.ts';

/** One request sent on a dispatcher of the check's own, with the connection it went out on (src/client/connection-watch.ts). */
export interface WatchedAnswer {
  /** The status, or null when no head arrived. */
  status: number | null;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as text, up to `maxBytes`. */
  text: string;
  /** The connection the request's head was written on (null: never written). */
  on: SentOn | null;
  /** Why it ended early: the transport's error, the deadline, or a body over `maxBytes`. */
  error: Error | null;
  /** When the answer ended or failed, performance.now(). */
  endedAt: number;
}

export interface WatchedRequest {
  origin: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  deadlineMs: number;
  maxBytes: number;
  /** The running check's signal (`ctx.http.signal`): aborted when the check passes its deadline. */
  signal?: AbortSignal | undefined;
}

/** Lower-cased header names; repeated headers joined with ", ". */
export function headerMap(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Sends one request and reads its answer to the end, within the deadline, the size bound and the running check's own deadline; never rejects. */
export function watchedRequest(d: Dispatcher, r: WatchedRequest): Promise<WatchedAnswer> {
  return new Promise((resolve) => {
    const answer: WatchedAnswer = { status: null, headers: {}, text: '', on: null, error: null, endedAt: 0 };
    const chunks: Buffer[] = [];
    let size = 0;
    let controller: Dispatcher.DispatchController | undefined;
    let done = false;
    const scope = r.signal;
    const abandoned = (): void => {
      const gone = new Error('the check was abandoned at its deadline');
      controller?.abort(gone);
      finish(gone);
    };
    const finish = (error: Error | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      scope?.removeEventListener('abort', abandoned);
      answer.error = error;
      answer.text = Buffer.concat(chunks).toString('utf8');
      answer.endedAt = performance.now();
      resolve(answer);
    };
    const timer = setTimeout(() => {
      const late = new Error(`no complete answer within ${r.deadlineMs} ms`);
      controller?.abort(late);
      finish(late);
    }, r.deadlineMs);
    scope?.addEventListener('abort', abandoned, { once: true });
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        onNextHead((on) => {
          answer.on = on;
        });
      },
      onResponseStart(_c, status, headers) {
        answer.status = status;
        answer.headers = headerMap(headers as Record<string, string | string[] | undefined>);
      },
      onResponseData(c, chunk) {
        size += chunk.length;
        if (size > r.maxBytes) {
          const big = new Error(`the answer is longer than ${r.maxBytes} bytes`);
          c.abort(big);
          return finish(big);
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
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
