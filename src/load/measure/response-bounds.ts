import { formatBytes, responseLimits, violation } from '../../client/body-limits.ts';
import type { ErrorClass } from '../results/load-result.ts';

/**
 * What the load engines bound while they read (body-limits.ts): the bytes of one response, and
 * content codings, which iari load never undoes (it asks for `accept-encoding: identity`), so an
 * encoded body (a gzip bomb) is failed at its head, not inflated. A breach fails the request with
 * the class of what was asked for: a stream is non-conforming, a whole body is invalid.
 */
export class BoundBreach extends Error {
  override readonly name = 'BoundBreach';
  readonly code = 'IARI_BOUND';
  constructor(
    readonly errorClass: ErrorClass,
    message: string,
  ) {
    super(message);
  }
}

const classOf = (stream: boolean): ErrorClass => (stream ? 'stream_nonconforming' : 'body_invalid');

/** A breach when the head names a content coding other than identity, else undefined. */
export function encodingBreach(contentEncoding: string | null | undefined, stream: boolean): BoundBreach | undefined {
  const e = contentEncoding?.trim().toLowerCase();
  if (e === undefined || e === '' || e === 'identity') return undefined;
  return new BoundBreach(classOf(stream), violation('decoded-size', `Content-Encoding ${e} although identity was asked for; iari load does not inflate bodies`).message);
}

/** Counts a response's bytes; a breach once they pass the body limit. */
export class ByteBudget {
  #bytes = 0;
  #breached = false;
  constructor(
    private readonly stream: boolean,
    private readonly limit = responseLimits.bodyBytes,
  ) {}

  /** A Content-Length over the limit is a breach at the head: nothing of the body is read. */
  declare(contentLength: string | null | undefined): BoundBreach | undefined {
    const n = contentLength === null || contentLength === undefined || !/^\d+$/.test(contentLength.trim()) ? NaN : Number(contentLength.trim());
    if (!(n > this.limit) || this.#breached) return undefined;
    this.#breached = true;
    return new BoundBreach(classOf(this.stream), violation('body-size', `the response body is longer than ${formatBytes(this.limit)} (Content-Length ${n}); iari did not read it`).message);
  }

  /** Adds a read; returns a breach the first time the total passes the limit. */
  add(n: number): BoundBreach | undefined {
    this.#bytes += n;
    if (this.#breached || this.#bytes <= this.limit) return undefined;
    this.#breached = true;
    return new BoundBreach(classOf(this.stream), violation('body-size', `the response body is longer than ${formatBytes(this.limit)}; iari stopped reading it`).message);
  }

  get breached(): boolean {
    return this.#breached;
  }
}
