/**
 * Issue 22 part 3: one root cause, not a cascade. Against a server whose streams never end, the
 * first streamed request waits its deadline (HDR-012); every later one of the same kind is decided
 * at once, naming it; a blocked MUST fails (not decided), a blocked SHOULD or INFO is never a finding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckContext } from '../context/check-context.ts';
import { CheckHttpError } from '../http/check-http.ts';
import { runCheck } from './check-runner.ts';
import type { CheckDef } from '../context/check-types.ts';
import type { Grade } from '../kernel/verdicts.ts';
import { startEndlessServer, type EndlessServer } from '../../../test-support/endless-server-fixtures.ts';

let server: EndlessServer;
let root: string;
let streamsOpened = 0;

beforeAll(async () => {
  server = await startEndlessServer((req, res) => {
    req.resume();
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[{"id":"m1","object":"model","created":1,"owned_by":"x"}]}');
      return;
    }
    streamsOpened++;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': `req_endless_${streamsOpened}` });
    const t = setInterval(() => res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n'), 10);
    res.once('close', () => clearInterval(t));
  });
  root = server.root;
});

afterAll(() => server.close());

const stream = { model: 'm1', stream: true, messages: [{ role: 'user', content: 'hi' }] };

describe('one root cause instead of a cascade', () => {
  it('HDR-012: after one stream outlived its deadline, later streamed requests fail at once naming it; other requests still go out', async () => {
    const ctx = createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 300 });
    const first = await ctx.http.post('/v1/chat/completions', stream).catch((e: unknown) => e);
    expect((first as CheckHttpError).message).toMatch(/request deadline of 300 ms/);
    const opened = streamsOpened;
    const t0 = performance.now();
    const second = await ctx.http.post('/v1/chat/completions', stream).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(100);
    expect(second).toBeInstanceOf(CheckHttpError);
    expect((second as CheckHttpError).message).toBe("POST /v1/chat/completions: not decided: the server's streams do not end (HDR-012, request id req_endless_" + String(opened) + ')');
    expect(streamsOpened).toBe(opened);
    expect((await ctx.http.get('/v1/models')).status).toBe(200);
  });

  it('HDR-012: a check blocked by the root cause fails its MUST (not decided) and reports its SHOULD and INFO requirements as blocked, never FAIL', async () => {
    const ctx = createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 300 });
    await ctx.http.post('/v1/chat/completions', stream).catch(() => undefined);
    const def: CheckDef = { name: 'needs-a-stream', area: 'chat-stream', ids: ['X-MUST', 'X-SHOULD', 'X-INFO'], title: 'needs a completed stream', run: async (c) => void (await c.http.post('/v1/chat/completions', stream)) };
    const grades: Record<string, Grade> = { 'X-MUST': 'MUST', 'X-SHOULD': 'SHOULD', 'X-INFO': 'INFO' };
    const outcomes = await runCheck(def, ctx, (id) => grades[id] ?? 'MUST');
    const byId = Object.fromEntries(outcomes.map((o) => [o.id, o]));
    expect(byId['X-MUST']).toMatchObject({ verdict: 'fail', failures: [{ message: expect.stringMatching(/^POST \/v1\/chat\/completions: not decided: the server's streams do not end \(HDR-012, request id req_endless_\d+\)$/) }] });
    expect(byId['X-SHOULD']).toMatchObject({ verdict: 'skipped', reason: expect.stringMatching(/^blocked: .*not decided: the server's streams do not end \(HDR-012/) });
    expect(byId['X-INFO']).toMatchObject({ verdict: 'skipped', reason: expect.stringMatching(/^blocked: /) });
  });
});
