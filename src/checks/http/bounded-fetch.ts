import { checkScopeSignal } from '../framework/check-deadline.ts';
import { deadlineViolation, formatBytes, responseLimits, violation } from '../../client/body-limits.ts';
import { RequestDeadline } from '../../client/transport-errors.ts';
import { jsonDepthExceeded, SseJsonDepthGuard } from '../../client/json-depth.ts';

/**
 * The fetch handed to client libraries run as checks (the openai SDK): the same bounds as the
 * checks' own requests (body-limits.ts). A total deadline for the whole exchange, body included
 * (a server that dribbles or streams for ever cannot keep it open); the running check's signal
 * (aborted when the check passes its deadline); redirects are not followed, so the token never
 * travels to the origin a redirect names (README, Secrets). fetch inflates content codings itself:
 * the body is counted as it comes out and cut at 16 MiB, so a decompression bomb never grows past
 * it; JSON nesting is checked before the library parses anything. Past the deadline, whether
 * before the head or mid-body, the error is a RequestDeadline (transport-errors.ts) whose message
 * is the HDR-012 violation.
 */
export function boundedFetch(timeoutMs: number, send: typeof fetch): typeof fetch {
  return async (input, init) => {
    const deadlineError = (cause: unknown): RequestDeadline => new RequestDeadline(deadlineViolation(timeoutMs).message, { cause });
    // Aborted with the RequestDeadline itself as its reason, so a body cut mid-stream errors with it too.
    const timer = AbortSignal.timeout(timeoutMs);
    const deadlineCtl = new AbortController();
    timer.addEventListener('abort', () => deadlineCtl.abort(deadlineError(timer.reason)), { once: true });
    const deadline = deadlineCtl.signal;
    const signals = [deadline];
    const scoped = checkScopeSignal();
    if (scoped !== undefined) signals.push(scoped);
    if (init?.signal != null) signals.push(init.signal);
    let res: Response;
    try {
      res = await send(input, { ...init, signal: AbortSignal.any(signals), redirect: 'manual' });
    } catch (error) {
      throw deadline.aborted ? (deadline.reason as RequestDeadline) : error;
    }
    if (res.body === null) return res;
    const coded = (res.headers.get('content-encoding') ?? '').trim() !== '';
    const limit = coded ? responseLimits.decodedBytes : responseLimits.bodyBytes;
    const tooLong = (): Error =>
      new Error((coded ? violation('decoded-size', `the response body inflates past ${formatBytes(limit)}`) : violation('body-size', `the response body is longer than ${formatBytes(limit)}`)).message);
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
            if (seen > limit) controller.error(tooLong());
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
          throw tooLong();
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
