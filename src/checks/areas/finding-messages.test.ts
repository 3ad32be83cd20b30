/**
 * Issue 22: a finding's message says what was received, never a template or a body cut mid-string.
 * A small server that answers as the Portkey gateway did on Node 20 (GET /v1/me 500), and accepts
 * a completion without a model, reproduces each message.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatChecks } from './chat.ts';
import { headersChecks } from './headers.ts';
import { usageChecks } from './usage.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';
import type { CheckDef, CheckOutcome } from '../context/check-types.ts';

let server: Server;
let root: string;
const completion = JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'm1', object: 'model', created: 1, owned_by: 'x' }] }));
      } else if (path === '/v1/chat/completions') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(completion);
      } else {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Something went wrong', type: 'server_error' } }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function messagesOf(checks: CheckDef[], name: string, id: string): Promise<string[]> {
  const def = checks.find((c) => c.name === name);
  if (def === undefined) throw new Error(`no check ${name}`);
  const ctx = createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 5_000 });
  const outcomes: CheckOutcome[] = await runCheck(def, ctx, () => 'MUST');
  return outcomes.filter((o) => o.id === id).flatMap((o) => (o.verdict === 'fail' || o.verdict === 'non-strict' ? o.failures.map((f) => `${f.message} | received ${JSON.stringify(f.received)}`) : [o.verdict]));
}

describe('finding messages say what was received', () => {
  it('HDR-009: names the statuses received, not the template {origin}/v1/<path>', async () => {
    const [m] = await messagesOf(headersChecks, 'headers-v1-prefix', 'HDR-009');
    expect(m).toMatch(/^GET \/v1\/models answered 200, GET \/v1\/me answered 500: /);
    expect(m).not.toMatch(/\{origin\}|<path>/);
  });

  it('ME-025: when /v1/me answered 500 it says so, not "spend_usd decreased"', async () => {
    const [m] = await messagesOf(usageChecks, 'usage-growth', 'ME-025');
    expect(m).toMatch(/^GET \/v1\/me answered 500 before the completion, so spend_usd could not be compared/);
    expect(m).toMatch(/received "500 \{\\"error\\"/);
    expect(m).not.toMatch(/decreased/);
  });

  it('CHAT-021: the request body in the message is cut at a token boundary with the bytes left out, never mid-string', async () => {
    const [m] = await messagesOf(chatChecks, 'chat-missing-fields', 'CHAT-021');
    expect(m).toMatch(/^\{"messages":\[\{"role":"user","content":… \(\d+ more bytes\) was not refused with 400/);
  });
});
