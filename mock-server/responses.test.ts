import OpenAI, { BadRequestError, NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from './index.ts';
import { API_STORE_LIMIT, ApiStore } from './core/api-store.ts';
import { RESPONSES_PATH, RESPONSES_ROUTE, functionCallOutput, functionTool, userMessage } from '../src/protocols/responses/responses-request.ts';
import { checkResponseBody } from '../src/protocols/responses/responses-body.ts';
import { checkResponsesStream } from '../src/protocols/responses/responses-stream.ts';

// The mock's /v1/responses against openai-node, the reference client, unchanged (only baseURL and
// apiKey set), and against iari's own checkers.
let server: MockServer;
let client: OpenAI;
let model: string;
const weather = functionTool('get_weather', 'Current weather in a city', { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false });

beforeAll(async () => {
  server = await startMockServer({ seed: 3, ttftMs: 5, itlMs: 2 });
  client = new OpenAI({ baseURL: server.url, apiKey: server.tokens.default, maxRetries: 0, timeout: 10_000 });
  model = (await client.models.list()).data[0]?.id ?? '';
});
afterAll(async () => {
  await server.close();
});

async function raw(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${server.url}${RESPONSES_ROUTE}`, { method: 'POST', headers: { authorization: `Bearer ${server.tokens.default}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe('the mock serves the Responses API to openai-node', () => {
  it('responses.create answers a Response the body checker finds nothing wrong with, and output_text is its text', async () => {
    const r = await client.responses.create({ model, input: 'Say something.', max_output_tokens: 64, metadata: { run: 'x' } });
    expect(checkResponseBody(r, { maxOutputTokens: 64, metadata: { run: 'x' } }).findings).toEqual([]);
    expect(r.output_text.length).toBeGreaterThan(0);
    expect(r.id).toMatch(/^resp_/);
    expect(r.usage?.total_tokens).toBe((r.usage?.input_tokens ?? 0) + (r.usage?.output_tokens ?? 0));
  });

  it('a streamed create and responses.stream().finalResponse() carry the same answer; the raw stream passes the state machine', async () => {
    const body = { model, input: 'Say something.', max_output_tokens: 64, stream: true };
    const types: string[] = [];
    for await (const e of await client.responses.create({ ...body, stream: true })) types.push(e.type);
    expect(types[0]).toBe('response.created');
    expect(types[types.length - 1]).toBe('response.completed');
    const final = await client.responses.stream({ model, input: 'Say something.', max_output_tokens: 64 }).finalResponse();
    const wire = await raw(body);
    expect(wire.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const checked = checkResponsesStream(new TextEncoder().encode(wire.text));
    expect(checked.findings).toEqual([]);
    expect(checked.facts.text).toBe(final.output_text);
  });

  it('a cut answer is incomplete with its reason, streamed or not', async () => {
    const r = await client.responses.create({ model, input: 'Tell a long story.', max_output_tokens: 16 });
    expect([r.status, r.incomplete_details?.reason, r.usage?.output_tokens]).toEqual(['incomplete', 'max_output_tokens', 16]);
    const s = checkResponsesStream(new TextEncoder().encode((await raw({ model, input: 'Tell a long story.', max_output_tokens: 16, stream: true })).text), { maxOutputTokens: 16 });
    expect(s.findings).toEqual([]);
    expect(s.facts.terminal).toBe('response.incomplete');
  });

  it('a function tool round trip: the forced call, then its output given back with the call item as received', async () => {
    const first = await client.responses.create({ model, input: 'Weather in Paris?', tools: [weather], tool_choice: 'required', max_output_tokens: 64 });
    const call = first.output.find((i) => i.type === 'function_call');
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toHaveProperty('city');
    if (call?.type !== 'function_call') throw new Error('no call');
    const second = await client.responses.create({ model, tools: [weather], max_output_tokens: 64, input: [userMessage('Weather in Paris?') as never, call, functionCallOutput(call.call_id, '{"temp": 21}') as never] });
    expect(second.output_text).toMatch(/tool result/);
    const streamed = await client.responses.stream({ model, input: 'Weather in Paris?', tools: [weather], tool_choice: 'required', max_output_tokens: 64 }).finalResponse();
    expect(streamed.output.some((i) => i.type === 'function_call')).toBe(true);
  });

  it('stores responses: retrieve gives what was created, previous_response_id carries the context, delete removes it', async () => {
    const first = await client.responses.create({ model, input: 'Remember the word papaya and the number forty-two for later, please.', max_output_tokens: 32 });
    const got = await client.responses.retrieve(first.id);
    expect([got.id, got.output_text]).toEqual([first.id, first.output_text]);
    const alone = await client.responses.create({ model, input: 'Which word?', max_output_tokens: 32 });
    const chained = await client.responses.create({ model, input: 'Which word?', previous_response_id: first.id, max_output_tokens: 32 });
    expect((chained.usage?.input_tokens ?? 0) - (alone.usage?.input_tokens ?? 0)).toBeGreaterThan((first.usage?.input_tokens ?? 0) - 10);
    await client.responses.delete(first.id);
    await expect(client.responses.retrieve(first.id)).rejects.toBeInstanceOf(NotFoundError);
    const unknown = await client.responses.create({ model, input: 'x', previous_response_id: 'resp_nope' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(BadRequestError);
    expect((unknown as BadRequestError).param).toBe('previous_response_id');
  });

  it('keeps store false responses out, and one token\'s responses from another', async () => {
    const unstored = await client.responses.create({ model, input: 'x', store: false, max_output_tokens: 16 });
    await expect(client.responses.retrieve(unstored.id)).rejects.toBeInstanceOf(NotFoundError);
    const mine = await client.responses.create({ model, input: 'x', max_output_tokens: 16 });
    const other = new OpenAI({ baseURL: server.url, apiKey: server.tokens.byAccount['acct_team'] ?? '', maxRetries: 0 });
    await expect(other.responses.retrieve(mine.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it.each([
    [{ input: 'x' }, 'model'],
    [{ model: 'm' }, 'input'],
    [{ model: 'm', input: 'x', max_output_tokens: 8 }, 'max_output_tokens'],
    [{ model: 'm', input: 'x', tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools[0].name'],
    [{ model: 'm', input: [{ role: 'robot', content: 'x' }] }, 'input[0].role'],
    [{ model: 'm', input: 'x', metadata: { a: 1 } }, 'metadata.a'],
  ])('refuses %j with a 400 naming %s', async (body, param) => {
    const r = await raw(body);
    expect(r.status).toBe(400);
    expect((JSON.parse(r.text) as { error: { param: unknown } }).error.param).toBe(param);
  });

  it('a stateless server (legal-responses-stateless) refuses previous_response_id naming it and serves no GET', async () => {
    const r = await raw({ model, input: 'x', previous_response_id: 'resp_1' }, { 'x-iari-fault': 'legal-responses-stateless' });
    expect([r.status, (JSON.parse(r.text) as { error: { param: unknown } }).error.param]).toEqual([400, 'previous_response_id']);
    const made = JSON.parse((await raw({ model, input: 'x' }, { 'x-iari-fault': 'legal-responses-stateless' })).text) as { id: string };
    const get = await fetch(`${server.url}${RESPONSES_ROUTE}/${made.id}`, { headers: { authorization: `Bearer ${server.tokens.default}`, 'x-iari-fault': 'legal-responses-stateless' } });
    expect(get.status).toBe(404);
  });

  it('bills a Responses request as a chat one: /v1/me counts its tokens', async () => {
    const me = async (): Promise<number> => ((await (await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${server.tokens.default}` } })).json()) as { usage: { tokens_this_month: number } }).usage.tokens_this_month;
    const before = await me();
    const r = await client.responses.create({ model, input: 'Count me.', max_output_tokens: 32 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await me()) - before).toBe(r.usage?.total_tokens);
    expect(RESPONSES_PATH).toBe('/v1/responses');
  });
});

describe('a Responses stream cut by its client', () => {
  it('is billed, as a chat stream, for the prompt and the tokens sent before the cut, and counted aborted in /metrics', async () => {
    const me = async (): Promise<number> => ((await (await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${server.tokens.default}` } })).json()) as { usage: { tokens_this_month: number } }).usage.tokens_this_month;
    const before = await me();
    const abort = new AbortController();
    const res = await fetch(`${server.url}${RESPONSES_ROUTE}`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${server.tokens.default}`, 'content-type': 'application/json', 'x-iari-itl-ms': '20', 'x-iari-completion-tokens': '200' },
      body: JSON.stringify({ model, input: 'Tell a long story.', stream: true, max_output_tokens: 1000 }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('response.output_text.delta')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const billed = (await me()) - before;
    expect(billed).toBeGreaterThan(0);
    expect(billed).toBeLessThan(100);
    expect(await (await fetch(`${server.origin}/metrics`)).text()).toMatch(/finished_reason="abort"\} [1-9]/);
  });
});

describe('the response store', () => {
  it('keeps at most its bound per account, dropping the least recently used', () => {
    const store = new ApiStore(2);
    const put = (id: string, owner = 'a'): void => store.put(owner, id, { id });
    put('r1');
    put('r2');
    expect(store.get('a', 'r1')).toEqual({ id: 'r1' });
    put('r3');
    expect([store.get('a', 'r1') !== undefined, store.get('a', 'r2') !== undefined, store.get('a', 'r3') !== undefined]).toEqual([true, false, true]);
    put('r4', 'b');
    const a = store.session('a');
    expect([store.size('a'), store.size('b'), a.get('r4'), a.getAnyAccount('r4')]).toEqual([2, 1, undefined, { id: 'r4' }]);
    expect(API_STORE_LIMIT).toBe(1024);
  });
});
