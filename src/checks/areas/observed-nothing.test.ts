/**
 * Issue 37 item 2: a check that observed nothing decides nothing. A server that answers every route
 * 503 gives HDR-008 no non-streaming 200 to read the Content-Type of: undecided (skipped, saying
 * what it saw), not a FAIL; the 503s are their own requirements' findings.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headersChecks } from './headers.ts';
import { toolsChecks } from './tools.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';

let server: Server;
let root: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Loading model', type: 'unavailable_error' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a check that observed nothing decides nothing', () => {
  it('HDR-008: no non-streaming 200 response to inspect is undecided (skipped, naming the statuses seen), never a FAIL', async () => {
    const def = headersChecks.find((c) => c.name === 'headers-json-content-type');
    if (def === undefined) throw new Error('no check headers-json-content-type');
    const ctx = createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 5_000, model: 'm1' });
    try {
      const [o] = await runCheck(def, ctx, () => 'MUST');
      expect(o?.verdict).toBe('skipped');
      expect(o?.verdict === 'skipped' ? o.reason : '').toMatch(/^undecided: no non-streaming 200 response to inspect \(GET \/v1\/models 503, .*chat completion 503/);
    } finally {
      await ctx.close();
    }
  });
});

/**
 * A server that honours tool_choice when not streaming (the probe says so) but streams the forced
 * call as text: TOOLS-012 (every tool-call delta has an integer index) has no delta to judge.
 */
describe('TOOLS-012 with no tool call at all', () => {
  let tools: Server;
  let toolsRoot: string;
  const call = (name: string) => ({ id: `call_${name}`, type: 'function', function: { name, arguments: name === 'get_time' ? '{"zone":"Europe/Zurich"}' : '{"city":"Zürich"}' } });
  beforeAll(async () => {
    tools = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString('utf8')));
      req.on('end', () => {
        if ((req.url ?? '').startsWith('/v1/models')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ object: 'list', data: [{ id: 'm1', object: 'model', created: 1, owned_by: 'x' }] }));
          return;
        }
        const body = JSON.parse(raw || '{}') as { stream?: boolean; tools?: unknown[]; tool_choice?: unknown };
        const head = { id: 'c1', created: 1, model: 'm1' };
        if (body.stream === true) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const chunk = (delta: unknown, finish: string | null) => `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
          res.end(`${chunk({ role: 'assistant', content: 'Sunny.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
          return;
        }
        const choice = body.tool_choice;
        const named = typeof choice === 'object' && choice !== null ? (choice as { function?: { name?: string } }).function?.name : undefined;
        const calls = body.tools === undefined || choice === 'none' ? [] : named !== undefined ? [call(named)] : choice === 'required' ? [call('get_weather')] : body.tools.length > 1 ? [call('get_weather'), call('get_time')] : [];
        res.writeHead(200, { 'content-type': 'application/json' });
        const message = calls.length > 0 ? { role: 'assistant', content: null, tool_calls: calls } : { role: 'assistant', content: 'Hello.' };
        res.end(JSON.stringify({ ...head, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }));
      });
    });
    await new Promise<void>((r) => tools.listen(0, '127.0.0.1', r));
    toolsRoot = `http://127.0.0.1:${(tools.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => tools.close(() => r())));

  it('TOOLS-012: a streamed forced tool call answered with text never came: a FAIL that says so (the server honours tool_choice unstreamed, so it could have enforced the call), naming the finish reason: never excused as undecided, never the old "carried no tool-call delta" alone', async () => {
    const def = toolsChecks.find((c) => c.name === 'tools-stream-deltas');
    if (def === undefined) throw new Error('no check tools-stream-deltas');
    const ctx = createCheckContext({ root: toolsRoot, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 5_000 });
    try {
      const o = (await runCheck(def, ctx, () => 'MUST')).find((x) => x.id === 'TOOLS-012');
      expect(o?.verdict, JSON.stringify(o)).toBe('fail');
      expect(JSON.stringify(o)).toMatch(/the streamed forced tool call never came: the stream carried no tool_calls delta at all \(finish reason \\"stop\\"\), though the server honours tool_choice unstreamed/);
    } finally {
      await ctx.close();
    }
  });
});
