import { request, type Dispatcher } from 'undici';
import { deadlineViolation, framingViolation, type BoundViolation } from './body-limits.ts';
import { readBounded, type BoundedBody } from './bounded-read.ts';
import { buildCurl } from './curl.ts';
import type { HeaderSpec } from './connection-options.ts';
import { Secrets } from './secrets.ts';
import { isReset, transportClass, type TransportClass } from './transport-errors.ts';
import { reusedConnectionClosed } from './connection-watch.ts';

export interface CoreRequest {
  method: string;
  /** The whole URL (the dispatcher's origin and the path). */
  url: string;
  /** Sent as they are (the Authorization header included: the curl line writes a registered secret as its placeholder). */
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
  /** The total deadline of the exchange, its body included: not an idle timeout, so a server that keeps sending bytes cannot keep it open. */
  deadlineMs: number;
  /** The caller's own signal (a check's deadline): aborting it ends the exchange as `aborted`. */
  signal?: AbortSignal | undefined;
  /** Body bounds (default: body-limits.ts, 16 MiB on the wire and 16 MiB inflated). */
  limits?: { maxWireBytes?: number; maxDecodedBytes?: number };
  /** Send once more when the connection was reset before the head: a kept-alive socket the server closed meanwhile is the transport's race (idempotent requests only). */
  resendOnReset?: boolean;
  /** How the curl line shows the request: headers left out (lower-case names), -N for a stream, a long body cut. */
  curl?: { omit?: readonly string[]; stream?: boolean; maxBodyChars?: number };
}

/** Why an exchange ended before its response did. */
export interface Ended {
  /** `deadline`: the total deadline passed; `aborted`: the caller's signal; else the transport class of the error (transport-errors.ts). */
  cause: 'deadline' | 'aborted' | TransportClass;
  /** One line, secrets written as their placeholders: the bound crossed, or the error's own words. */
  message: string;
  /** The bound it crossed: HDR-012 for the deadline, HDR-016 for a response that is not well-formed HTTP or ended early. */
  violation: BoundViolation | undefined;
  /** The error as raised (its code tells a TLS failure or a refused connection). */
  error: unknown;
}

/** How an exchange went: no response (`failed`), or a response read to its end or to a bound (`answered`). */
export type CoreResult =
  | { kind: 'failed'; curl: string; startedAt: number; ended: Ended }
  | {
      kind: 'answered';
      curl: string;
      startedAt: number;
      status: number;
      /** Lower-cased names; repeated headers joined with ", ". */
      headers: Record<string, string>;
      /** Decoded as fetch-based clients decode it, bounded (bounded-read.ts); `body.violation` when iari stopped reading at a bound. */
      body: BoundedBody;
      /** Why the body ended early otherwise (the deadline, the caller, the server's reset), if it did. */
      ended: Ended | undefined;
    };

/**
 * The one HTTP core of iari's own requests (the checks' client, the model choice before a load
 * run): a request through the caller's dispatcher, a total deadline, the body read within the
 * body limits, a curl line that reproduces it with every secret as its placeholder, and every way
 * it ends named by one closed set (transport-errors.ts, body-limits.ts). Never rejects on what the
 * server does: every outcome is a CoreResult.
 */
export class HttpCore {
  readonly dispatcher: Dispatcher;
  readonly secrets: Secrets;
  /** The `--header` headers `dispatcher` adds to every request: the curl lines carry them too. */
  readonly connectionHeaders: readonly HeaderSpec[];

  constructor(dispatcher: Dispatcher, secrets: Secrets = new Secrets(), connectionHeaders: readonly HeaderSpec[] = []) {
    this.dispatcher = dispatcher;
    this.secrets = secrets;
    this.connectionHeaders = connectionHeaders;
  }

  /** The curl line for `req`: registered secrets as their $VAR, the body cut at `curl.maxBodyChars`. */
  curl(req: CoreRequest): string {
    const omit = req.curl?.omit ?? [];
    const shown = omit.length === 0 ? req.headers : Object.fromEntries(Object.entries(req.headers).filter(([k]) => !omit.includes(k)));
    return buildCurl({
      method: req.method,
      url: req.url,
      headers: shown,
      ...(req.body === undefined ? {} : { body: req.body }),
      bearer: false,
      secrets: this.secrets.pairs,
      connectionHeaders: this.connectionHeaders,
      ...(req.curl?.stream === undefined ? {} : { stream: req.curl.stream }),
      ...(req.curl?.maxBodyChars === undefined ? {} : { maxBodyChars: req.curl.maxBodyChars }),
    });
  }

  async send(req: CoreRequest): Promise<CoreResult> {
    const curl = this.curl(req);
    const startedAt = performance.now();
    const deadline = AbortSignal.timeout(req.deadlineMs);
    const caller = req.signal;
    const signal = caller === undefined ? deadline : AbortSignal.any([deadline, caller]);
    const ended = (error: unknown, phase: 'head' | 'body'): Ended => {
      if (deadline.aborted) {
        const v = deadlineViolation(req.deadlineMs);
        return { cause: 'deadline', message: v.message, violation: v, error };
      }
      if (caller?.aborted === true) return { cause: 'aborted', message: `aborted: ${(caller.reason as Error | undefined)?.message ?? 'the request was abandoned'}`, violation: undefined, error };
      const said = this.secrets.redact((error as Error | undefined)?.message ?? String(error));
      // RFC 9112 §9.3.1: a server may close a kept-alive connection as the client writes its next request on it.
      // A request with no byte of answer on a connection that carried earlier answers lost that race: named as
      // such (the load side retries it, src/load/executors/connection-reuse.ts), not left a bare socket error.
      const carried = phase === 'head' ? reusedConnectionClosed(error) : undefined;
      const race =
        carried === undefined
          ? undefined
          : `connection reuse race: the request was written on a kept-alive connection (${carried} bytes of earlier answers read on it) that the server closed before any byte of this answer (${said}); ${req.resendOnReset === true ? 'sent again on a new connection, which failed too' : `not sent again: ${req.method} is not idempotent`}. A server that advertises keep-alive and then closes the connection causes it (HDR-017)`;
      const framing = framingViolation(error, phase);
      if (framing !== undefined) {
        const message = race ?? this.secrets.redact(framing.message);
        return { cause: transportClass(error), message, violation: { ...framing, message }, error };
      }
      return { cause: transportClass(error), message: race ?? said, violation: undefined, error };
    };
    const once = () =>
      request(req.url, {
        method: req.method as 'GET',
        headers: req.headers,
        ...(req.body === undefined ? {} : { body: req.body }),
        signal,
        dispatcher: this.dispatcher,
        headersTimeout: req.deadlineMs,
        bodyTimeout: req.deadlineMs,
      });
    let res: Dispatcher.ResponseData;
    try {
      res = await once();
    } catch (error) {
      if (req.resendOnReset !== true || signal.aborted || !isReset(error)) return { kind: 'failed', curl, startedAt, ended: ended(error, 'head') };
      try {
        res = await once();
      } catch (again) {
        return { kind: 'failed', curl, startedAt, ended: ended(again, 'head') };
      }
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    }
    // A content coding is undone as fetch-based clients do, within both bounds (bounded-read.ts).
    const body = await readBounded(res.body, headers['content-encoding'], startedAt, req.limits);
    return { kind: 'answered', curl, startedAt, status: res.statusCode, headers, body, ended: body.error === undefined ? undefined : ended(body.error, 'body') };
  }
}
