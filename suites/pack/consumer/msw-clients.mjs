// What a user of `iari/msw` writes: their own msw, iari's handlers, the official clients, no socket.
// Run by run-clients.mjs in plain Node ESM and by clients.test.mjs inside vitest.
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { createMockHandlers } from 'iari/msw';

const BASE = 'https://llm.example.test/v1';
const ASK = [{ role: 'user', content: 'Say hello to the package suite.' }];
const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } },
};
export const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature_c: { type: 'number' }, conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rain'] } },
  required: ['city', 'temperature_c', 'conditions'],
  additionalProperties: false,
};

async function withOpenAI(model, client) {
  const done = await client.chat.completions.create({ model, messages: ASK });
  const stream = await client.chat.completions.create({ model, messages: ASK, stream: true });
  let streamed = '';
  for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? '';
  const user = { role: 'user', content: 'What is the weather in Paris?' };
  const first = await client.chat.completions.create({ model, messages: [user], tools: [WEATHER_TOOL] });
  const call = first.choices[0]?.message.tool_calls?.[0];
  const second = await client.chat.completions.create({
    model,
    messages: [user, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify({ temperature_c: 21 }) }],
    tools: [WEATHER_TOOL],
  });
  const structured = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'The weather in Paris as JSON.' }], response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER_SCHEMA, strict: true } } });
  return {
    completion: done.choices[0]?.message.content,
    stream: streamed,
    tool: { name: call?.function.name, args: JSON.parse(call?.function.arguments ?? 'null'), finish: first.choices[0]?.finish_reason, answer: second.choices[0]?.message.content },
    structured: JSON.parse(structured.choices[0]?.message.content ?? 'null'),
  };
}

async function withAiSdk(model, token) {
  const { generateText, streamText, tool, jsonSchema, stepCountIs, Output } = await import('ai');
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  const provider = createOpenAICompatible({ name: 'iari', baseURL: BASE, apiKey: token, supportsStructuredOutputs: true });
  const completion = await generateText({ model: provider(model), prompt: ASK[0].content, maxRetries: 0 });
  const stream = streamText({ model: provider(model), prompt: ASK[0].content, maxRetries: 0 });
  let streamed = '';
  for await (const part of stream.textStream) streamed += part;
  const roundTrip = await generateText({
    model: provider(model),
    prompt: 'What is the weather in Paris?',
    tools: { get_weather: tool({ description: 'Current weather in a city', inputSchema: jsonSchema(WEATHER_TOOL.function.parameters), execute: async ({ city }) => ({ city, temperature_c: 21 }) }) },
    stopWhen: stepCountIs(2),
    maxRetries: 0,
  });
  const structured = await generateText({ model: provider(model), prompt: 'The weather in Paris as JSON.', output: Output.object({ schema: jsonSchema(WEATHER_SCHEMA) }), maxRetries: 0 });
  const call = roundTrip.steps[0]?.toolCalls[0];
  return {
    completion: completion.text,
    stream: streamed,
    tool: { name: call?.toolName, args: call?.input, steps: roundTrip.steps.length, answer: roundTrip.text },
    structured: structured.output,
  };
}

/** Drives the openai SDK (and the Vercel AI SDK unless told not to) through iari's msw handlers. */
export async function driveClients({ aiSdk = true } = {}) {
  const mock = createMockHandlers({ baseUrl: BASE, seed: 5 });
  const server = setupServer(...mock.handlers);
  // msw 2 names the option onUnhandledRequest, msw 3 onUnhandledFrame; each ignores the other's.
  server.listen({ onUnhandledRequest: 'error', onUnhandledFrame: 'error' });
  try {
    const { createRequire } = await import('node:module');
    const mswVersion = createRequire(import.meta.url)('msw/package.json').version;
    const client = new OpenAI({ baseURL: BASE, apiKey: mock.tokens.default, maxRetries: 0 });
    const models = (await client.models.list()).data.map((m) => m.id);
    const model = models[0];
    const retrieved = await client.models.retrieve(model);
    return {
      msw: mswVersion,
      models,
      retrieved: retrieved.id,
      openai: await withOpenAI(model, client),
      ...(aiSdk ? { aiSdk: await withAiSdk(model, mock.tokens.default) } : {}),
    };
  } finally {
    server.close();
    mock.close();
  }
}
