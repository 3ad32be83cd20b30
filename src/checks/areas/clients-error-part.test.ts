/**
 * Issue 37 item 2: against llama.cpp's server CLIENT-047/013 failed "the stream carried an error
 * part: [object Object]". The server sent an error chunk mid-stream, as llama.cpp does
 * (`data: {"error":{...}}`); the AI SDK hands it on as a plain object. The finding is the server's
 * (an error it sent), and its message must say what the part was.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vercel6ClientChecks, vercelClientChecks } from './clients-vercel.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';
import { prepareClientProcess } from '../clients/client-process.ts';

const serverError = { code: 500, message: 'Failed to parse input at pos 12', type: 'server_error' };
let server: Server;
let root: string;

beforeAll(async () => {
  // The AI SDK runs in iari's client process: started now, as a run's prepare starts it.
  prepareClientProcess();
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'm1', object: 'model', created: 1, owned_by: 'x' }] }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm1', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] };
      res.end(`data: ${JSON.stringify(chunk)}\n\ndata: ${JSON.stringify({ error: serverError })}\n\n`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('an error part a client reports says what it was', () => {
  it.each([
    ['CLIENT-047', 'AI SDK 6 (the major the issue ran: it hands the chunk on as a plain object)', vercel6ClientChecks],
    ['CLIENT-011', 'AI SDK 7 (wraps it in AI_StreamProviderError)', vercelClientChecks],
  ])('%s: the error part from the server\'s error chunk is written as what the server sent, never [object Object]: %s', async (id, _major, checks) => {
    const def = checks.find((c) => c.ids.includes(id));
    if (def === undefined) throw new Error(`no ${id} check`);
    const ctx = createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 5_000 });
    try {
      const outcomes = await runCheck(def, ctx, () => 'MUST');
      const o = outcomes.find((x) => x.id === id);
      const message = o?.verdict === 'fail' ? (o.failures[0]?.message ?? '') : String(o?.verdict);
      expect(message).not.toContain('[object Object]');
      expect(message).toContain('the stream carried an error part');
      expect(message).toContain('Failed to parse input at pos 12');
    } finally {
      await ctx.close();
    }
  });
});
