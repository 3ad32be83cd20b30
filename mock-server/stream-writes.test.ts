import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf, type Receipt } from '../src/receipts/index.ts';
import { createCore } from './core/handler.ts';
import { faultNames } from './faults.ts';
import { createReceiptIssuer } from './receipt-issuer.ts';
import { parseSse, startClient, weatherTool, type Client } from '../test-support/mock-client.ts';

let c: Client;
beforeAll(async () => {
  c = await startClient({ seed: 5 });
});
afterAll(() => c.close());

/** One raw HTTP/1.1 exchange: the chunk sizes of the chunked body, in order, and the body they carry. */
async function chunkedExchange(headers: Record<string, string>): Promise<{ sizes: number[]; body: string }> {
  const url = new URL(c.server.url);
  const payload = JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: 'Count my chunks.' }], stream: true });
  const head = [`POST /v1/chat/completions HTTP/1.1`, `host: ${url.host}`, `authorization: Bearer ${c.server.tokens.default}`, 'content-type: application/json', `content-length: ${Buffer.byteLength(payload)}`, 'connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(`${head.join('\r\n')}\r\n\r\n${payload}`));
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('end', () => resolve(Buffer.concat(parts)));
    socket.on('error', reject);
  });
  let at = raw.indexOf('\r\n\r\n') + 4;
  expect(raw.subarray(0, at).toString('latin1').toLowerCase()).toContain('transfer-encoding: chunked');
  const sizes: number[] = [];
  const body: Buffer[] = [];
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    const size = Number.parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (eol < 0 || !Number.isInteger(size)) throw new Error(`not a chunked body at byte ${at}: ${JSON.stringify(raw.subarray(at - 40, at + 200).toString("latin1"))}`);
    if (size === 0) break;
    sizes.push(size);
    body.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return { sizes, body: Buffer.concat(body).toString('utf8') };
}

describe('stream writes on the socket', () => {
  it('writes the events that are due together (zero delay) as one HTTP chunk', async () => {
    const { sizes, body } = await chunkedExchange({ 'x-iari-completion-tokens': '12' });
    const events = parseSse(body);
    expect(events.length).toBeGreaterThan(10);
    expect(events.at(-1)).toBe('[DONE]');
    expect(sizes).toHaveLength(1);
  });

  it('writes events due at different times as separate chunks', async () => {
    const { sizes, body } = await chunkedExchange({ 'x-iari-completion-tokens': '4', 'x-iari-itl-ms': '100' });
    // Role + first content, three more content steps (each due 100 ms after the previous one), the rest with the last:
    // four writes, fewer only if the event loop stalled past a due time.
    expect(sizes.length).toBeGreaterThan(1);
    expect(sizes.length).toBeLessThanOrEqual(4);
    expect(parseSse(body).at(-1)).toBe('[DONE]');
  });
});

describe('cached wire bytes of a stream', () => {
  it('are the UTF-8 of the events\' data, for any range of events, prompt (any Unicode), length, n, usage and tools', () => {
    const core = createCore({ seed: 2, limits: false }, faultNames);
    const token = core.tokens().default;
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.nat(),
        fc.nat(),
        (prompt, tokens, n, includeUsage, tools, a, b) => {
          const body = { model: 'iari-mini', messages: [{ role: 'user', content: prompt }], stream: true, n, ...(includeUsage ? { stream_options: { include_usage: true } } : {}), ...(tools ? { tools: [weatherTool] } : {}) };
          const res = core.handle({ method: 'POST', path: '/v1/chat/completions', query: new URLSearchParams(), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-iari-completion-tokens': String(tokens) }, body: encoder.encode(JSON.stringify(body)) });
          if (res.kind !== 'stream') throw new Error(`expected a stream, got ${res.status}`);
          expect(res.wire?.events).toBe(res.events);
          const count = res.events.length;
          const from = a % (count + 1);
          const to = from + (b % (count - from + 1));
          const expected = encoder.encode(res.events.slice(from, to).map((e) => e.data).join(''));
          expect(Buffer.from(res.wire?.bytes(from, to) ?? []).equals(Buffer.from(expected))).toBe(true);
          res.finish({ sent: count, interrupted: false });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('are not offered when a fault or a mid-stream failure changes the events', () => {
    const core = createCore({ seed: 2, limits: false }, faultNames);
    const headers = { authorization: `Bearer ${core.tokens().default}`, 'content-type': 'application/json' };
    const body = new TextEncoder().encode(JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }));
    for (const extra of [{ 'x-iari-fault': 'stream-no-done' }, { 'x-iari-fail-after-events': '2' }]) {
      const res = core.handle({ method: 'POST', path: '/v1/chat/completions', query: new URLSearchParams(), headers: { ...headers, ...extra }, body });
      expect(res.kind).toBe('stream');
      if (res.kind === 'stream') expect(res.wire).toBeUndefined();
    }
  });
});

/** The assistant messages a client assembles from the deltas of a stream (content, or tool calls with joined arguments). */
function assembled(events: readonly { data: string }[]): unknown[] {
  type Call = { id: string; type: 'function'; function: { name: string; arguments: string } };
  const choices: { content: string | null; calls: Call[] }[] = [];
  for (const e of events) {
    const data = e.data.startsWith('data: ') ? e.data.slice(6).trim() : '';
    if (data === '' || data === '[DONE]') continue;
    for (const c of (JSON.parse(data) as { choices: { index: number; delta: { content?: string | null; tool_calls?: { index: number; id?: string; function: { name?: string; arguments?: string } }[] } }[] }).choices) {
      const choice = (choices[c.index] ??= { content: null, calls: [] });
      if (typeof c.delta.content === 'string') choice.content = (choice.content ?? '') + c.delta.content;
      for (const t of c.delta.tool_calls ?? []) {
        const call = (choice.calls[t.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (t.id !== undefined) call.id = t.id;
        if (t.function.name !== undefined) call.function.name = t.function.name;
        call.function.arguments += t.function.arguments ?? '';
      }
    }
  }
  return choices.map((c) => (c.calls.length === 0 ? { role: 'assistant', content: c.content ?? '' } : { role: 'assistant', content: null, tool_calls: c.calls }));
}

describe('the outcome of a completed stream', () => {
  it('records the digest of what the client assembles from the deltas, content and tool-call arguments, for any prompt, n, max_tokens and tools', () => {
    const issuer = createReceiptIssuer({ seed: 4 });
    const core = createCore({ seed: 4, limits: false, receipts: issuer }, faultNames);
    const token = core.tokens().default;
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }), (prompt, tokens, n, tools, maxTokens) => {
        const body = { model: 'iari-mini', messages: [{ role: 'user', content: prompt }], stream: true, n, ...(tools ? { tools: [weatherTool] } : {}), ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }) };
        const res = core.handle({ method: 'POST', path: '/v1/chat/completions', query: new URLSearchParams(), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-iari-completion-tokens': String(tokens) }, body: encoder.encode(JSON.stringify(body)) });
        if (res.kind !== 'stream') throw new Error(`expected a stream, got ${res.status}`);
        res.finish({ sent: res.events.length, interrupted: false });
        const chain = issuer.chain(issuer.accounts()[0] as string).data as Receipt[];
        const outcome = chain.at(-1);
        expect(outcome?.outcome?.status).toBe('ok');
        expect(outcome?.outcome?.output_digest).toBe(digestOf(assembled(res.events)));
      }),
      { numRuns: 200 },
    );
    issuer.close();
  });
});
