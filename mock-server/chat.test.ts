import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { chat, chunksOf, parseSse, startClient, userMessage, weatherTool, type Chunk, type Client } from '../test-support/mock-client.ts';

let c: Client;
beforeAll(async () => {
  c = await startClient({ seed: 7 });
});
afterAll(() => c.close());

async function complete(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await c.chat(body);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

async function stream(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ events: string[]; chunks: Chunk[]; res: Response }> {
  const res = await c.chat({ ...body, stream: true }, { headers });
  expect(res.status).toBe(200);
  const events = parseSse(await res.text());
  return { events, chunks: chunksOf(events), res };
}

describe('non-streaming completions', () => {
  it('CHAT-001: answers the OpenAI completion shape with usage from the real tokenizer', async () => {
    const body = await complete(chat());
    expect(body['id']).toMatch(/^chatcmpl-/);
    expect(body['object']).toBe('chat.completion');
    expect(Math.abs(body['created'] - Date.now() / 1000)).toBeLessThan(5);
    expect(body['model']).toBe('iari-mini');
    const choice = body['choices'][0];
    expect(choice).toMatchObject({ index: 0, logprobs: null, finish_reason: 'stop' });
    expect(choice.message).toMatchObject({ role: 'assistant', refusal: null });
    expect(typeof choice.message.content).toBe('string');
    const usage = body['usage'];
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    // Tokens re-encoded from the text can merge across piece boundaries: never more than the count.
    expect(encode(choice.message.content).length).toBeLessThanOrEqual(usage.completion_tokens);
    expect(encode(choice.message.content).length).toBeGreaterThanOrEqual(usage.completion_tokens - 2);
  });

  it('is deterministic for the same request and seed, and differs for another prompt', async () => {
    const a = await complete(chat());
    const b = await complete(chat());
    const other = await complete(chat({ messages: [userMessage('Something else entirely.')] }));
    expect(a['choices'][0].message.content).toBe(b['choices'][0].message.content);
    expect(other['choices'][0].message.content).not.toBe(a['choices'][0].message.content);
  });

  it('replies contain non-ASCII text', async () => {
    const body = await complete(chat());
    expect(/[^\x00-\x7f]/.test(body['choices'][0].message.content)).toBe(true);
  });

  it('CHAT-030: max_tokens bounds the completion and gives finish_reason length', async () => {
    for (const key of ['max_tokens', 'max_completion_tokens']) {
      const body = await complete(chat({ [key]: 3 }));
      expect(body['usage'].completion_tokens).toBeLessThanOrEqual(3);
      expect(body['usage'].completion_tokens).toBeGreaterThanOrEqual(2);
      expect(body['choices'][0].finish_reason).toBe('length');
    }
  });

  it('max_tokens 1 with 3 tokens per chunk still yields one token of text', async () => {
    const res = await c.chat(chat({ max_tokens: 1 }), { headers: { 'x-iari-tokens-per-chunk': '3' } });
    const body = (await res.json()) as Record<string, any>;
    expect(body['usage'].completion_tokens).toBe(1);
    expect(body['choices'][0].message.content.length).toBeGreaterThan(0);
    expect(body['choices'][0].finish_reason).toBe('length');
  });

  it('stop sequences cut the text before the sequence with finish_reason stop', async () => {
    const full = (await complete(chat({ messages: [userMessage('stop test')] })))['choices'][0].message.content as string;
    const words = full.split(' ');
    const stopWord = words[Math.floor(words.length / 2)] as string;
    const cut = await complete(chat({ messages: [userMessage('stop test')], stop: [stopWord] }));
    const text = cut['choices'][0].message.content as string;
    expect(text).toBe(full.slice(0, full.indexOf(stopWord)));
    expect(text).not.toContain(stopWord);
    expect(cut['choices'][0].finish_reason).toBe('stop');
  });

  it('CHAT-029: n > 1 returns n choices indexed 0..n-1 and sums their tokens', async () => {
    const body = await complete(chat({ n: 3 }));
    expect(body['choices'].map((x: { index: number }) => x.index)).toEqual([0, 1, 2]);
    const texts = new Set(body['choices'].map((x: { message: { content: string } }) => x.message.content));
    expect(texts.size).toBe(3);
    expect(body['usage'].total_tokens).toBe(body['usage'].prompt_tokens + body['usage'].completion_tokens);
  });
});

describe('streaming completions', () => {
  it('CHAT-STREAM-001: role chunk first, content chunks, one finish chunk, usage chunk, then [DONE]', async () => {
    const { events, chunks, res } = await stream(chat({ stream_options: { include_usage: true } }));
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(events.at(-1)).toBe('[DONE]');
    const ids = new Set(chunks.map((x) => x['id']));
    expect(ids.size).toBe(1);
    expect(new Set(chunks.map((x) => x['created'])).size).toBe(1);
    for (const x of chunks) expect(x['object']).toBe('chat.completion.chunk');
    expect(chunks[0]!['choices'][0].delta).toEqual({ role: 'assistant', content: '' });
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk['choices']).toEqual([]);
    for (const x of chunks.slice(0, -1)) expect(x['usage']).toBeNull();
    const finishes = chunks.filter((x) => x['choices'][0]?.finish_reason !== null && x['choices'].length > 0);
    expect(finishes).toHaveLength(1);
    expect(finishes[0]!['choices'][0].delta).toEqual({});
    const text = chunks.map((x) => x['choices'][0]?.delta?.content ?? '').join('');
    const full = await complete(chat());
    expect(text).toBe(full['choices'][0].message.content);
    expect(usageChunk['usage']).toEqual(full['usage']);
  });

  it('CHAT-STREAM-027: without include_usage no chunk carries usage', async () => {
    const { chunks } = await stream(chat());
    for (const x of chunks) expect('usage' in x).toBe(false);
  });

  it('streams n > 1 choices, each with a role chunk and one finish chunk', async () => {
    const { chunks } = await stream(chat({ n: 2 }));
    for (const i of [0, 1]) {
      const mine = chunks.filter((x) => x['choices'][0].index === i);
      expect(mine[0]!['choices'][0].delta.role).toBe('assistant');
      expect(mine.filter((x) => x['choices'][0].finish_reason !== null)).toHaveLength(1);
    }
  });

  it('tokens per chunk (per request header) groups tokens into chunks; the send log counts them', async () => {
    const { chunks, res } = await stream(chat({ stream_options: { include_usage: true } }), { 'x-iari-tokens-per-chunk': '3' });
    const content = chunks.filter((x) => typeof x['choices'][0]?.delta?.content === 'string' && x['choices'][0].delta.content !== '');
    const usage = chunks.at(-1)!['usage'];
    expect(content.length).toBeLessThanOrEqual(Math.ceil(usage.completion_tokens / 3));
    const log = c.server.sendLog.get(res.headers.get('x-request-id') ?? '');
    expect(log?.events.reduce((s, e) => s + e.tokens, 0)).toBe(usage.completion_tokens);
    expect(log?.completed).toBe(true);
  });

  it('applies the latency model: first content after ttft, later events spaced by itl, true write times logged', async () => {
    const started = performance.now();
    const { res } = await stream(chat({ messages: [userMessage('timing')] }), { 'x-iari-ttft-ms': '60', 'x-iari-itl-ms': '10', 'x-iari-completion-tokens': '5' });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(95);
    const log = c.server.sendLog.get(res.headers.get('x-request-id') ?? '')!;
    const content = log.events.filter((e) => e.content);
    expect(content).toHaveLength(5);
    expect(content[0]!.intendedMs).toBe(60);
    expect(content[4]!.intendedMs).toBe(100);
    for (const e of content) expect(e.offsetMs).toBeGreaterThanOrEqual(e.intendedMs - 1);
  });

  it('rejects a malformed latency header with 400 naming it', async () => {
    const res = await c.chat(chat(), { headers: { 'x-iari-ttft-ms': 'soon' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('x-iari-ttft-ms');
  });
});

describe('freeze control', () => {
  it('a freeze stalls new answers and streams in flight until it ends, and the send log shows the gap', async () => {
    const res = await c.chat({ ...chat({ messages: [userMessage('freeze')] }), stream: true }, { headers: { 'x-iari-itl-ms': '20', 'x-iari-completion-tokens': '10' } });
    const reader = res.body!.getReader();
    await reader.read();
    const frozeAt = performance.now();
    const admin = await fetch(`${c.server.origin}/_iari/freeze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 200 }) });
    expect(admin.status).toBe(200);
    const during = c.chat(chat());
    while (!(await reader.read()).done);
    expect(performance.now() - frozeAt).toBeGreaterThanOrEqual(190);
    expect((await during).status).toBe(200);
    expect(performance.now() - frozeAt).toBeGreaterThanOrEqual(190);
    const log = c.server.sendLog.get(res.headers.get('x-request-id') ?? '')!;
    const gaps = log.events.slice(1).map((e, i) => Number(e.writtenNs - log.events[i]!.writtenNs) / 1e6);
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(150);
    expect(c.server.admin.frozenFor()).toBe(0);
  });
});

describe('tool calls', () => {
  const ajv = new Ajv2020();
  const validArgs = ajv.compile(weatherTool.function.parameters);

  it('TOOLS-002: auto calls the tool with arguments valid for its parameters and finish_reason tool_calls', async () => {
    const body = await complete(chat({ tools: [weatherTool] }));
    const choice = body['choices'][0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls[0];
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(call.id).toMatch(/^call_/);
    expect(validArgs(JSON.parse(call.function.arguments))).toBe(true);
  });

  it('TOOLS-018: tool_choice none answers in text', async () => {
    const body = await complete(chat({ tools: [weatherTool], tool_choice: 'none' }));
    expect(body['choices'][0].message.tool_calls).toBeUndefined();
    expect(body['choices'][0].finish_reason).toBe('stop');
  });

  it('TOOLS-019: required and a named function force the call', async () => {
    const other = { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } };
    const named = await complete(chat({ tools: [weatherTool, other], tool_choice: { type: 'function', function: { name: 'lookup' } } }));
    expect(named['choices'][0].message.tool_calls[0].function.name).toBe('lookup');
    const required = await complete(chat({ tools: [weatherTool], tool_choice: 'required', messages: [userMessage(), { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'call_1', content: 'sunny' }] }));
    expect(required['choices'][0].message.tool_calls).toHaveLength(1);
  });

  it('TOOLS-016: with two tools and parallel calls allowed, both are called, indexed 0 and 1 in the stream', async () => {
    const other = { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } };
    const body = await complete(chat({ tools: [weatherTool, other] }));
    const calls = body['choices'][0].message.tool_calls as { id: string; function: { name: string; arguments: string } }[];
    expect(calls.map((x) => x.function.name)).toEqual(['get_weather', 'lookup']);
    expect(new Set(calls.map((x) => x.id)).size).toBe(2);
    const { chunks } = await stream(chat({ tools: [weatherTool, other] }));
    const deltas = chunks.flatMap((x) => x['choices'][0]?.delta?.tool_calls ?? []) as { index: number; id?: string; function: { name?: string; arguments: string } }[];
    expect([...new Set(deltas.map((d) => d.index))]).toEqual([0, 1]);
    for (const k of [0, 1]) {
      const mine = deltas.filter((d) => d.index === k);
      expect(mine[0]!.id).toBe(calls[k]!.id);
      expect(mine.map((d) => d.function.arguments).join('')).toBe(calls[k]!.function.arguments);
    }
    const single = await complete(chat({ tools: [weatherTool, other], parallel_tool_calls: false }));
    expect(single['choices'][0].message.tool_calls).toHaveLength(1);
  });

  it('TOOLS-011: a tool result message gets a text answer', async () => {
    const first = await complete(chat({ tools: [weatherTool] }));
    const call = first['choices'][0].message.tool_calls[0];
    const second = await complete(chat({ tools: [weatherTool], messages: [userMessage(), first['choices'][0].message, { role: 'tool', tool_call_id: call.id, content: '{"temp": 21}' }] }));
    expect(second['choices'][0].finish_reason).toBe('stop');
    expect(typeof second['choices'][0].message.content).toBe('string');
    expect(second['choices'][0].message.content).toContain('{"temp": 21}');
  });

  it('TOOLS-013: streamed tool calls send index, id, type and name first, then argument fragments that join to the same JSON', async () => {
    const { chunks } = await stream(chat({ tools: [weatherTool] }));
    const deltas = chunks.flatMap((x) => x['choices'][0]?.delta?.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(deltas[0].id).toMatch(/^call_/);
    for (const d of deltas.slice(1)) {
      expect(Object.keys(d).sort()).toEqual(['function', 'index']);
      expect(typeof d.function.arguments).toBe('string');
    }
    expect(deltas.length).toBeGreaterThan(2);
    const args = deltas.map((d: { function: { arguments: string } }) => d.function.arguments).join('');
    expect(validArgs(JSON.parse(args))).toBe(true);
    const nonStream = await complete(chat({ tools: [weatherTool] }));
    expect(args).toBe(nonStream['choices'][0].message.tool_calls[0].function.arguments);
    expect(chunks.at(-1)!['choices'][0].finish_reason).toBe('tool_calls');
  });
});
