// The msw adapter's two conversions: a fetch Request into the core's MockRequest, and the core's
// MockResponse (complete, or a timed list of server-sent events) into a fetch Response whose body is
// a ReadableStream. The node:http adapter does the same for a socket; the core is shared.
import type { FullResponse, MockRequest, MockResponse, StreamResponse } from '../core/types.ts';
import { frameEvent, framingRng, writePieces } from '../core/framing.ts';

const encoder = new TextEncoder();

export async function toMockRequest(request: Request): Promise<MockRequest> {
  const url = new URL(request.url);
  // The core routes on "/v1/..."; a base URL with a prefix (https://host/proxy/v1) is cut to it.
  const at = url.pathname.lastIndexOf('/v1/');
  const path = at >= 0 ? url.pathname.slice(at) : url.pathname.endsWith('/v1') ? '/v1' : url.pathname;
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  const body = request.method === 'GET' || request.method === 'HEAD' ? new Uint8Array(0) : new Uint8Array(await request.arrayBuffer());
  return { method: request.method, path, query: url.searchParams, headers, body };
}

export async function toFetchResponse(response: MockResponse, signal: AbortSignal | undefined): Promise<Response> {
  return response.kind === 'full' ? fullResponse(response, signal) : streamResponse(response, signal);
}

async function fullResponse(r: FullResponse, signal: AbortSignal | undefined): Promise<Response> {
  if (r.delayMs !== undefined && r.delayMs > 0) {
    const arrived = await sleep(r.delayMs, signal);
    if (!arrived) {
      r.done?.(false);
      return Response.error();
    }
  }
  const response = new Response(typeof r.body === 'string' ? r.body : new Uint8Array(r.body), { status: r.status, headers: r.headers });
  // The outcome is recorded before the caller can read the response.
  r.done?.(true);
  return response;
}

function streamResponse(s: StreamResponse, signal: AbortSignal | undefined): Response {
  const events = s.events;
  const framing = s.framing;
  const rng = framing.length > 0 ? framingRng(s.framingSeed) : null;
  const pieceWise = framing.includes('tiny-writes') || framing.includes('split-utf8');
  let index = 0;
  let ended = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const end = (interrupted: boolean) => {
    if (ended) return;
    ended = true;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    signal?.removeEventListener('abort', onAbort);
    s.finish({ sent: index, interrupted });
  };
  const onAbort = () => end(true);

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (signal?.aborted === true) {
        end(true);
        controller.error(new DOMException('The request was aborted.', 'AbortError'));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      const startMs = performance.now();
      const pump = (): void => {
        timer = null;
        if (ended) return;
        const elapsed = performance.now() - startMs;
        while (index < events.length) {
          const e = events[index];
          if (e === undefined || e.atMs > elapsed) break;
          if (e.action === 'destroy') {
            end(true);
            // A fetch body that stops with an error is what a dropped connection looks like to a client.
            controller.error(new TypeError('terminated: the mock server closed the connection'));
            return;
          }
          const framed = rng === null ? e.data : frameEvent(e.data, framing);
          if (e.bytes !== undefined) controller.enqueue(e.bytes);
          else if (rng !== null && pieceWise) {
            for (const piece of writePieces(encoder.encode(framed), framing, rng)) controller.enqueue(piece);
          } else controller.enqueue(encoder.encode(framed));
          index++;
        }
        if (index >= events.length) {
          // finish() records the outcome before the stream is closed.
          end(false);
          controller.close();
          return;
        }
        const next = events[index];
        timer = setTimeout(pump, Math.max(0, (next?.atMs ?? 0) - (performance.now() - startMs)));
      };
      pump();
    },
    cancel() {
      end(true);
    },
  });
  return new Response(body, { status: s.status, headers: s.headers });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
