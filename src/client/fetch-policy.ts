import { deadlineViolation, formatBytes, responseLimits, violation } from './body-limits.ts';
import { RequestDeadline } from './transport-errors.ts';
import { jsonDepthExceeded, SseJsonDepthGuard } from './json-depth.ts';

/**
 * The one fetch policy: what every fetch-based client of iari's gets (the SDK checks' openai-node,
 * the CLIENT area's libraries through client-transport.ts), the same bounds as the HTTP core's own
 * requests (http-core.ts, body-limits.ts):
 * - origin lock: a request for any origin but the server under test is refused before anything is
 *   sent (the token never travels elsewhere), and redirects are not followed;
 * - a total deadline for the whole exchange, body included (a server that dribbles or streams for
 *   ever cannot keep it open): past it, before the head or mid-body, the error is a RequestDeadline
 *   (transport-errors.ts) whose message is the HDR-012 violation;
 * - the caller's signal (the running check's, passed in: CheckHttp.forCheck);
 * - the body limits: fetch inflates content codings itself, so the body is counted as it comes out
 *   and cut at the limit (a decompression bomb never grows past it), and JSON nesting is checked
 *   before the library parses anything.
 */
export interface FetchPolicy {
  /** The total deadline of each exchange; undefined: the caller bounds it itself (client-transport.ts). */
  deadlineMs?: number;
  /** Aborts every request besides the deadline (the running check's signal). */
  signal?: AbortSignal | undefined;
  /** The only origin requests may go to. */
  origin?: string;
  /** The most body bytes read (default body-limits.ts). */
  bodyBytes?: number;
}

/** The error of a request for another origin than the server under test; `refused` records it. */
export class OriginRefused extends TypeError {
  override readonly name = 'OriginRefused';
  constructor(readonly origin: string) {
    super(`iari: the client tried to reach ${origin}, which is not the server under test (refused)`);
  }
}

/** The origin of `input`, or a TypeError for a URL that does not parse. */
export function originOf(input: string | URL | Request): string {
  const url = input instanceof Request ? input.url : String(input);
  try {
    return new URL(url).origin;
  } catch {
    throw new TypeError(`iari: the client asked for an invalid URL ${JSON.stringify(url)}`);
  }
}

/** Throws OriginRefused unless `input` is for `origin`. */
export function assertOrigin(input: string | URL | Request, origin: string): void {
  const target = originOf(input);
  if (target !== new URL(origin).origin) throw new OriginRefused(target);
}

/** The stream transform that cuts a body past `limit` bytes with the HDR-013 (or HDR-014, `coded`) violation. */
export function bodyLimit(limit: number, coded = false): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > limit) controller.error(tooLong(limit, coded));
      else controller.enqueue(chunk);
    },
  });
}

function tooLong(limit: number, coded: boolean): Error {
  return new Error((coded ? violation('decoded-size', `the response body inflates past ${formatBytes(limit)}`) : violation('body-size', `the response body is longer than ${formatBytes(limit)}`)).message);
}

/** `send` under the fetch policy. */
export function policedFetch(send: typeof fetch, policy: FetchPolicy): typeof fetch {
  const timeoutMs = policy.deadlineMs;
  return async (input, init) => {
    if (policy.origin !== undefined) assertOrigin(input, policy.origin);
    // Aborted with the RequestDeadline itself as its reason, so a body cut mid-stream errors with it too.
    const deadlineCtl = new AbortController();
    if (timeoutMs !== undefined) {
      const timer = AbortSignal.timeout(timeoutMs);
      timer.addEventListener('abort', () => deadlineCtl.abort(new RequestDeadline(deadlineViolation(timeoutMs).message, { cause: timer.reason })), { once: true });
    }
    const deadline = deadlineCtl.signal;
    const signals = [deadline];
    if (policy.signal !== undefined) signals.push(policy.signal);
    if (init?.signal != null) signals.push(init.signal);
    let res: Response;
    try {
      res = await send(input, { ...init, signal: AbortSignal.any(signals), redirect: 'manual' });
    } catch (error) {
      throw deadline.aborted ? (deadline.reason as RequestDeadline) : error;
    }
    if (res.body === null) return res;
    const coded = (res.headers.get('content-encoding') ?? '').trim() !== '';
    const limit = policy.bodyBytes ?? (coded ? responseLimits.decodedBytes : responseLimits.bodyBytes);
    const tooDeep = (): Error => new Error(violation('json-depth', `the response nests JSON deeper than ${responseLimits.jsonDepth} levels`).message);
    const init2 = { status: res.status, statusText: res.statusText, headers: res.headers };
    if (/^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '')) {
      // A stream is handed on as it arrives, counted and depth-checked event by event.
      let seen = 0;
      const guard = new SseJsonDepthGuard();
      const counted = res.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            seen += chunk.byteLength;
            if (seen > limit) controller.error(tooLong(limit, coded));
            else if (guard.feed(chunk)) controller.error(tooDeep());
            else controller.enqueue(chunk);
          },
        }),
        { signal: AbortSignal.any(signals) },
      );
      return new Response(counted, init2);
    }
    // Anything else is read whole (at most the limit), checked, and handed on as bytes.
    const parts: Uint8Array[] = [];
    let seen = 0;
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        seen += value.byteLength;
        if (seen > limit) {
          await reader.cancel();
          throw tooLong(limit, coded);
        }
        parts.push(value);
      }
    } catch (error) {
      throw deadline.aborted ? (deadline.reason as RequestDeadline) : error;
    }
    const bytes = Buffer.concat(parts);
    const text = bytes.toString('utf8');
    if (/^\s*[[{]/.test(text.slice(0, 256)) && jsonDepthExceeded(text) >= 0) throw tooDeep();
    return new Response(bytes, init2);
  };
}
