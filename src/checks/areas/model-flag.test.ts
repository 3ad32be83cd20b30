/**
 * Issue 22: behind a gateway whose every GET answers 500, `iari test` printed about 215 identical
 * "could not decide: GET /v1/models lists no usable model id". `--model ID` gets past the list.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatChecks } from './chat.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';

let server: Server;
let root: string;
const models: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"upstream failed","type":"server_error"}}');
        return;
      }
      const model = (JSON.parse(body) as { model?: string }).model ?? '';
      models.push(model);
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

const basic = chatChecks.find((c) => c.name === 'chat-basic-shape');

describe('iari test --model', () => {
  it('CHAT-001: with --model the checks probe with it and decide, though GET /v1/models answers 500', async () => {
    if (basic === undefined) throw new Error('no chat-basic-shape check');
    const without = await runCheck(basic, createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false }), () => 'MUST');
    expect(JSON.stringify(without.find((o) => o.id === 'CHAT-001'))).toMatch(/lists no usable model id/);
    const withModel = await runCheck(basic, createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, model: 'my-model' }), () => 'MUST');
    expect(withModel.find((o) => o.id === 'CHAT-001')?.verdict).toBe('pass');
    expect(models).toContain('my-model');
  });
});
