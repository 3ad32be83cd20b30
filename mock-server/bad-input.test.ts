import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chat, startClient, type Client } from '../test-support/mock-client.ts';

let c: Client;
beforeAll(async () => {
  c = await startClient({ limits: false });
});
afterAll(() => c.close());

interface BadCase {
  body: string;
  contentType?: string;
  /** The param the error must name, when the case targets one field. */
  param?: string | null;
}

const notNumber = fc.oneof(fc.string(), fc.boolean(), fc.constant(null as unknown), fc.array(fc.integer(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
const notString = fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
const validMessage = { role: 'user', content: 'hi' };
const withField = (key: string, value: unknown, param = key): BadCase => ({ body: JSON.stringify({ model: 'iari-mini', messages: [validMessage], [key]: value }), param });

const badCases: fc.Arbitrary<BadCase> = fc.oneof(
  // Malformed JSON.
  fc.string({ minLength: 1, maxLength: 40 }).filter((s) => { try { JSON.parse(s); return false; } catch { return true; } }).map((body) => ({ body, param: null })),
  // JSON that is not an object.
  fc.oneof(fc.integer(), fc.string(), fc.array(fc.integer(), { maxLength: 3 }), fc.constant(null)).map((v) => ({ body: JSON.stringify(v), param: null })),
  // model missing or mistyped.
  notString.map((model) => ({ body: JSON.stringify({ model, messages: [validMessage] }), param: 'model' })),
  fc.constant({ body: JSON.stringify({ messages: [validMessage] }), param: 'model' }),
  // messages missing, empty, mistyped.
  fc.oneof(fc.constant([] as unknown), fc.string(), fc.integer(), fc.object({ maxDepth: 1 })).map((messages) => ({ body: JSON.stringify({ model: 'iari-mini', messages }), param: 'messages' })),
  fc.constant({ body: JSON.stringify({ model: 'iari-mini' }), param: 'messages' }),
  // Unknown roles.
  fc.string({ minLength: 1, maxLength: 12 }).filter((r) => !['system', 'developer', 'user', 'assistant', 'tool'].includes(r)).map((role) => ({
    body: JSON.stringify({ model: 'iari-mini', messages: [validMessage, { role, content: 'x' }] }),
    param: 'messages[1].role',
  })),
  // Content of the wrong type.
  fc.oneof(fc.integer(), fc.boolean(), fc.object({ maxDepth: 1 })).map((content) => ({ body: JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content }] }), param: 'messages[0].content' })),
  // A message that is not an object.
  fc.oneof(fc.integer(), fc.string(), fc.constant(null)).map((m) => ({ body: JSON.stringify({ model: 'iari-mini', messages: [m] }), param: 'messages[0]' })),
  // Out-of-range and mistyped numbers.
  fc.oneof(fc.double({ min: 2.0001, max: 1e6, noNaN: true }), fc.double({ min: -1e6, max: -0.0001, noNaN: true })).map((t) => withField('temperature', t)),
  notNumber.filter((v) => v !== null).map((t) => withField('temperature', t)),
  fc.oneof(fc.integer({ min: 129, max: 10_000 }), fc.integer({ max: 0 }), fc.double({ min: 1.1, max: 2.9, noInteger: true })).map((n) => withField('n', n)),
  fc.integer({ max: 0 }).map((v) => withField('max_tokens', v)),
  fc.double({ min: 1.01, max: 50, noNaN: true }).map((v) => withField('top_p', v)),
  // stream, stop, tools, tool_choice.
  fc.oneof(fc.string(), fc.integer(), fc.object({ maxDepth: 1 })).map((v) => withField('stream', v)),
  fc.array(fc.string(), { minLength: 5, maxLength: 8 }).map((v) => withField('stop', v)),
  fc.oneof(fc.integer(), fc.boolean(), fc.object({ maxDepth: 1 })).map((v) => withField('stop', v)),
  fc.oneof(fc.string(), fc.integer(), fc.object({ maxDepth: 1 })).map((v) => withField('tools', v)),
  fc.string({ minLength: 1, maxLength: 10 }).filter((s) => !/^[a-zA-Z0-9_-]+$/.test(s)).map((name) => withField('tools', [{ type: 'function', function: { name } }], 'tools[0].function.name')),
  fc.constantFrom('always', 'never', 'tool').map((v) => withField('tool_choice', v)),
  fc.constant(withField('stream_options', { include_usage: true })),
  // Wrong content type.
  fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml').map((contentType) => ({
    body: JSON.stringify({ model: 'iari-mini', messages: [validMessage] }),
    contentType,
    param: null,
  })),
);

describe('bad input', () => {
  it('ERR-006: 1,000 generated bad requests all get a 4xx with the OpenAI error body naming param, never a 5xx', async () => {
    const cases = fc.sample(badCases, { numRuns: 1_000, seed: 42 });
    expect(cases.length).toBe(1_000);
    const statuses = new Map<number, number>();
    for (let i = 0; i < cases.length; i += 25) {
      await Promise.all(
        cases.slice(i, i + 25).map(async (bad) => {
          const res = await fetch(`${c.server.url}/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${c.server.tokens.default}`, 'content-type': bad.contentType ?? 'application/json' },
            body: bad.body,
          });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const text = await res.text();
          expect(res.status, `${bad.body} -> ${text}`).toBeGreaterThanOrEqual(400);
          expect(res.status, bad.body).toBeLessThan(500);
          const body = JSON.parse(text) as { error: Record<string, unknown> };
          expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
          expect(body.error['type']).toBe('invalid_request_error');
          if (bad.param !== undefined) expect(body.error['param'], bad.body).toBe(bad.param);
          expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24,}$/);
        }),
      );
    }
    expect([...statuses.keys()].sort()).toEqual([400, 415]);
  });

  it('ERR-010: a body over 1 MiB answers 413 request_too_large', async () => {
    const big = JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024) }] });
    const res = await c.chat(big);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
  });

  it('ERR-011: a non-JSON content type answers 415 unsupported_media_type', async () => {
    const res = await c.chat(JSON.stringify(chat()), { headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
  });

  it('CHAT-027: a tool message without tool_call_id answers 400 naming it', async () => {
    const res = await c.chat(chat({ messages: [{ role: 'user', content: 'x' }, { role: 'tool', content: 'r' }] }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('messages[1].tool_call_id');
  });

  it('CHAT-019: documented parameters are accepted', async () => {
    const res = await c.chat(chat({ temperature: 0.2, top_p: 0.9, n: 1, stop: ['zzz'], max_tokens: 20, max_completion_tokens: 20, seed: 3, user: 'u', response_format: { type: 'text' }, presence_penalty: 0.5, frequency_penalty: -0.5, logprobs: false, parallel_tool_calls: true }));
    expect(res.status).toBe(200);
  });

  it('survives a request with invalid UTF-8 and a truncated body', async () => {
    const invalid = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const res = await fetch(`${c.server.url}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${c.server.tokens.default}`, 'content-type': 'application/json' }, body: invalid });
    expect(res.status).toBe(400);
    expect((await c.get('/models', null)).status).toBe(200);
  });
});
