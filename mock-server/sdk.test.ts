import OpenAI, { AuthenticationError, NotFoundError, RateLimitError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from './index.ts';

// The official openai SDK, unchanged: only baseURL and apiKey (the mock's token) are set.
let server: MockServer;
let client: OpenAI;
let model: string;

const weatherTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'], additionalProperties: false },
  },
};

beforeAll(async () => {
  server = await startMockServer({ seed: 3 });
  client = new OpenAI({ baseURL: server.url, apiKey: server.tokens.default, maxRetries: 0, timeout: 10_000 });
  const first = (await client.models.list()).data[0];
  model = first?.id ?? '';
});
afterAll(async () => {
  await server.close();
});

describe('the official openai SDK against the mock', () => {
  it('lists models through models.list', async () => {
    const page = await client.models.list();
    expect(page.data.length).toBeGreaterThan(0);
    for (const m of page.data) {
      expect(m.object).toBe('model');
      expect(typeof m.id).toBe('string');
      expect(Number.isInteger(m.created)).toBe(true);
    }
  });

  it('MODELS-014, MODELS-015: retrieves one listed model through models.retrieve, with the same fields as the list', async () => {
    const listed = (await client.models.list()).data.find((m) => m.id === model);
    const one = await client.models.retrieve(model);
    expect(one).toEqual(listed);
  });

  it('MODELS-018: raises NotFoundError (404 model_not_found) from models.retrieve for an id never listed', async () => {
    const error = await client.models.retrieve('iari-no-such-model').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('model_not_found');
  });

  it('creates a non-streaming chat completion with usage', async () => {
    const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello!' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.choices[0]?.message.role).toBe('assistant');
    expect((completion.choices[0]?.message.content ?? '').length).toBeGreaterThan(0);
    expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? -1) + (completion.usage?.completion_tokens ?? -1));
  });

  it('streams a chat completion with for await and a final usage chunk', async () => {
    const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Stream please' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let chunks = 0;
    let finish: string | null = null;
    let usageTokens = -1;
    for await (const chunk of stream) {
      chunks++;
      expect(chunk.object).toBe('chat.completion.chunk');
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? '';
      finish = choice?.finish_reason ?? finish;
      if (chunk.usage) usageTokens = chunk.usage.completion_tokens;
    }
    expect(chunks).toBeGreaterThan(2);
    expect(text.length).toBeGreaterThan(0);
    expect(finish).toBe('stop');
    expect(usageTokens).toBeGreaterThan(0);
  });

  it('completes a tool-call round trip: a call with valid JSON arguments, then a text answer to the tool result', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Lisbon?' }];
    const first = await client.chat.completions.create({ model, messages, tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } } });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type).toBe('function');
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.function.name).toBe('get_weather');
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    expect(typeof args['city']).toBe('string');

    messages.push(first.choices[0]?.message as ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: JSON.stringify({ temperature: 21, unit: 'c' }) });
    const second = await client.chat.completions.create({ model, messages, tools: [weatherTool] });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect((second.choices[0]?.message.content ?? '').length).toBeGreaterThan(0);
    expect(second.choices[0]?.message.tool_calls ?? []).toHaveLength(0);
  });

  it('streams tool-call deltas that the SDK reassembles into one call', async () => {
    const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [weatherTool], tool_choice: 'required', stream: true });
    let name = '';
    let args = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.tool_calls?.[0];
      if (delta?.index !== undefined) expect(delta.index).toBe(0);
      name += delta?.function?.name ?? '';
      args += delta?.function?.arguments ?? '';
    }
    expect(name).toBe('get_weather');
    expect(() => JSON.parse(args)).not.toThrow();
  });

  it('raises AuthenticationError (401) for a wrong key', async () => {
    const wrong = new OpenAI({ baseURL: server.url, apiKey: 'sk-not-the-mock-token', maxRetries: 0 });
    const error = await wrong.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
    expect((error as AuthenticationError).requestID).toMatch(/^req_[0-9a-f]{24,}$/);
  });

  it('raises NotFoundError (404) for an unknown model', async () => {
    const error = await client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('model_not_found');
    // D-HTTP-08: param null, as OpenAI sends it.
    expect((error as NotFoundError).param).toBeNull();
  });

  it('raises RateLimitError (429) once the free plan\'s requests per minute are used up', async () => {
    const free = server.tokens.byAccount['acct_free'];
    expect(free).toBeDefined();
    const limited = new OpenAI({ baseURL: server.url, apiKey: free as string, maxRetries: 0 });
    let error: unknown = null;
    for (let i = 0; i < 10 && error === null; i++) {
      error = await limited.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }).then(
        () => null,
        (e: unknown) => e,
      );
    }
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).status).toBe(429);
    expect(Number((error as RateLimitError).headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
