import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { requirementIds } from '../context/check-types.ts';
import { chatBody, modelUnderTest } from '../requests/common-requests.ts';
import { ownRequest, type OwnAnswer } from '../http/own-request.ts';
import { Stalls } from '../http/stalls.ts';
import { CHAT_COMPLETIONS_PATH, CHAT_COMPLETIONS_ROUTE } from '../../protocols/chat-completions/chat-request.ts';

/** A streamed answer of this interface is far below this; a longer one is another check's finding. */
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * Bundled mock only: marks this check's own requests, so the mock fault that closes connections
 * after a stream (keep-alive-close-after-stream, mock-server/core/http-faults.ts) breaks only them.
 */
function probeHeaders(ctx: CheckContext): Record<string, string> {
  const fault = ctx.http.fault;
  return ctx.target === 'bundled-mock' ? { 'x-iari-probe': 'keep-alive', ...(fault === undefined ? {} : { 'x-iari-fault': fault }) } : {};
}

/** `Connection: keep-alive; Keep-Alive: timeout=5, max=100`, as the answer said it (or that it said neither). */
function advertised(a: OwnAnswer): string {
  const parts = [a.headers['connection'] === undefined ? 'no Connection header' : `Connection: ${a.headers['connection']}`];
  if (a.headers['keep-alive'] !== undefined) parts.push(`Keep-Alive: ${a.headers['keep-alive']}`);
  return parts.join(', ');
}

const keepAlive: CheckDef = {
  name: 'headers-keep-alive-after-stream',
  area: 'headers',
  ids: requirementIds('HDR', 17),
  title: 'a connection left open after a streamed answer (no Connection: close) takes the next request',
  async run(ctx, j) {
    const base = new URL(ctx.baseUrl);
    const origin = base.origin;
    const prefix = base.pathname.replace(/\/+$/, '');
    // A kind of request that never completed decides this one too (stalls.ts): not sent again to wait out another deadline.
    const stalled = ctx.http.stalled.blocked(Stalls.kind('POST', CHAT_COMPLETIONS_PATH, true)) ?? ctx.http.stalled.blocked(Stalls.kind('GET', '/v1/models', false));
    if (stalled !== undefined) return j.skip('HDR-017', stalled);
    const deadlineMs = ctx.http.stalled.deadline(ctx.http.timeoutMs).ms;
    const model = await modelUnderTest(ctx);
    const auth = { ...ctx.http.tokenHeader(), ...probeHeaders(ctx) };
    // One connection: the next request goes out on the connection the stream came on, if it is still open.
    const d = ctx.connect({ connections: 1, pipelining: 1 });
    try {
      await ctx.http.acquireSlot();
      const stream = await ownRequest(d, {
        origin,
        path: `${prefix}${CHAT_COMPLETIONS_ROUTE}`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
        // Any streamed answer will do: a short one (a model whose answers never end stops at 16 tokens).
        body: JSON.stringify(chatBody(ctx, model, { stream: true, max_tokens: 16 })),
        deadlineMs,
        maxBytes: MAX_BYTES,
        signal: ctx.http.signal,
        watch: ctx.connections,
      });
      const requestId = stream.headers['x-request-id'];
      // A rate limit kept the probe from its stream: LIMIT-010 judges the limit, as for every other check.
      if (stream.error === null && stream.status === 429) return j.skip('HDR-017', 'no streamed answer to judge: the server answered 429 (rate limited); LIMIT-010 reports it');
      if (stream.error !== null || stream.status !== 200) {
        return j.skip('HDR-017', `no streamed answer to judge: ${stream.error?.message ?? `the stream answered ${stream.status ?? 'nothing'}`} (the CHAT-STREAM and HDR-012 to HDR-016 requirements judge it)`);
      }
      // RFC 9112 §9.6: a server that will close the connection says so with the "close" connection option.
      if (/(^|,)\s*close\s*(,|$)/i.test(stream.headers['connection'] ?? '')) return j.pass('HDR-017');
      await ctx.http.acquireSlot();
      const next = await ownRequest(d, { origin, path: `${prefix}/models`, method: 'GET', headers: auth, deadlineMs, maxBytes: MAX_BYTES, signal: ctx.http.signal, watch: ctx.connections });
      const said = advertised(stream);
      const after = Math.max(0, Math.round(next.endedAt - stream.endedAt));
      const sameConnection = stream.on !== null && next.on !== null && next.on.socket === stream.on.socket;
      if (next.status !== null && sameConnection) return j.pass('HDR-017');
      const received = { connection: stream.headers['connection'] ?? null, 'keep-alive': stream.headers['keep-alive'] ?? null };
      const expected = 'the connection stays open for the next request, or the streamed answer says Connection: close';
      const fail = (message: string): void => j.violated('HDR-017', { message, expected, received, ...(requestId === undefined ? {} : { requestId }) });
      if (next.on !== null && stream.on !== null && !sameConnection) {
        return fail(`the server closed the connection as soon as the streamed answer ended (${said}): the next request had to open a new connection`);
      }
      if (next.status === null && sameConnection) {
        return fail(`the next request written on the connection the streamed answer came on (${said}) got no answer: ${next.error?.message ?? 'the connection closed'} ${after} ms later; clients without retries throw on requests the server never read`);
      }
      return fail(`after the streamed answer (${said}) the next request on that connection failed: ${next.error?.message ?? 'no answer'}`);
    } finally {
      await d.destroy().catch(() => undefined);
    }
  },
};

export const keepAliveChecks: CheckDef[] = [keepAlive];
