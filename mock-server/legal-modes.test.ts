import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { coreFaults } from './core/fault-catalogue.ts';
import { createCore } from './core/handler.ts';
import type { StreamResponse } from './core/types.ts';
import { faultNames } from './faults.ts';
import { chat, chunksOf, parseSse, startClient, weatherTool, type Client } from '../test-support/mock-client.ts';

let c: Client;
beforeAll(async () => {
  c = await startClient({ seed: 3 });
});
afterAll(() => c.close());

const legalModes = coreFaults.filter((f) => f.kind === 'legal').map((f) => f.name);

async function raw(body: Record<string, unknown>, fault?: string): Promise<{ bytes: Uint8Array; reads: number }> {
  const res = await c.chat({ ...body, stream: true }, { headers: fault === undefined ? {} : { 'x-iari-fault': fault } });
  const reader = res.body!.getReader();
  const parts: Uint8Array[] = [];
  let reads = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    reads++;
    parts.push(value);
  }
  return { bytes: Buffer.concat(parts), reads };
}

async function viaSdk(fault: string | undefined, body: Record<string, unknown>): Promise<{ text: string; args: string; usage: number | undefined }> {
  const client = new OpenAI({ baseURL: c.server.url, apiKey: c.server.tokens.default, maxRetries: 0, ...(fault === undefined ? {} : { defaultHeaders: { 'x-iari-fault': fault } }) });
  const stream = await client.chat.completions.create({ ...(body as { model: string; messages: [] }), stream: true, stream_options: { include_usage: true } });
  let text = '';
  let args = '';
  let usage: number | undefined;
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    text += delta?.content ?? '';
    args += delta?.tool_calls?.[0]?.function?.arguments ?? '';
    if (chunk.usage) usage = chunk.usage.total_tokens;
  }
  return { text, args, usage };
}

describe('legal-but-unusual stream modes', () => {
  it('there are legal modes for CRLF, lone CR, comments, data: without space, tiny writes and split UTF-8', () => {
    expect(legalModes).toEqual(expect.arrayContaining(['legal-crlf', 'legal-lone-cr', 'legal-comments', 'legal-data-no-space', 'legal-tiny-writes', 'legal-split-utf8']));
  });

  for (const mode of legalModes) {
    it(`CHAT-STREAM-034: ${mode} is read by the official SDK and a WHATWG parser exactly like the faithful stream`, async () => {
      const text = chat({ messages: [{ role: 'user', content: `legal ${mode}` }] });
      const tools = chat({ messages: [{ role: 'user', content: `legal tools ${mode}` }], tools: [weatherTool] });
      const faithful = await viaSdk(undefined, text);
      const unusual = await viaSdk(mode, text);
      expect(unusual).toEqual(faithful);
      expect(/[^\x00-\x7f]/.test(faithful.text)).toBe(true);
      expect(await viaSdk(mode, tools)).toEqual(await viaSdk(undefined, tools));
      const plain = await raw(text);
      const odd = await raw(text, mode);
      // Two requests may straddle a second boundary: their ids and created seconds are not the framing under test.
      const decode = (b: Uint8Array) => new TextDecoder().decode(b).replace(/chatcmpl-[0-9a-f]+/g, 'chatcmpl-X').replace(/"created":\d+/g, '"created":0');
      const events = (b: Uint8Array) => parseSse(decode(b)).map((e) => (e === '[DONE]' ? e : (JSON.parse(e) as unknown)));
      expect(events(odd.bytes)).toEqual(events(plain.bytes));
      if (['legal-tiny-writes', 'legal-split-utf8'].includes(mode)) {
        expect(decode(odd.bytes)).toBe(decode(plain.bytes));
        if (mode === 'legal-tiny-writes') expect(odd.reads).toBeGreaterThan(plain.reads);
      } else {
        expect(decode(odd.bytes)).not.toBe(decode(plain.bytes));
      }
    });
  }
});

describe('serialisation paths', () => {
  it('the pre-serialised fast path and the fault path write identical events', () => {
    const now = () => Date.parse('2026-03-10T12:00:00Z');
    const plainCore = createCore({ now }, faultNames);
    // A legal mode forces the object path in the renderer without changing the events.
    const slowCore = createCore({ now, faults: ['legal-crlf'] }, faultNames);
    const body = new TextEncoder().encode(JSON.stringify(chat({ n: 2, stream: true, stream_options: { include_usage: true }, tools: [weatherTool], tool_choice: 'auto' })));
    const request = (token: string) => ({ method: 'POST', path: '/v1/chat/completions', query: new URLSearchParams(), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
    const a = plainCore.handle(request(plainCore.tokens().default)) as StreamResponse;
    const b = slowCore.handle(request(slowCore.tokens().default)) as StreamResponse;
    const strip = (s: StreamResponse) => s.events.map((e) => e.data.replace(/chatcmpl-[0-9a-f]+/g, 'ID'));
    expect(strip(b)).toEqual(strip(a));
    expect(b.framing).toEqual(['crlf']);
    expect(chunksOf(parseSse(a.events.map((e) => e.data).join(''))).length).toBeGreaterThan(4);
  });
});
