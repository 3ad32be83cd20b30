import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import OpenAI, { BadRequestError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunksOf, parseSse, startClient, type Client } from '../test-support/mock-client.ts';
import { strictSchema, TREE, type Schema } from '../test-support/schema-arbitraries.ts';

const ajv = new Ajv2020({ strict: false });
addFormats.default(ajv);

const WEATHER: Schema = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    temperature_c: { type: 'number', minimum: -60, maximum: 60 },
    conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rain', 'snow'] },
    hourly: { type: 'array', items: { type: 'object', properties: { hour: { type: 'integer', minimum: 0, maximum: 23 }, temp: { type: 'number' } }, required: ['hour', 'temp'], additionalProperties: false }, maxItems: 3 },
    alert: { type: ['string', 'null'] },
  },
  required: ['city', 'temperature_c', 'conditions', 'hourly', 'alert'],
  additionalProperties: false,
};

const ask = [{ role: 'user', content: 'The weather in Paris, as JSON.' }];
const jsonSchema = (schema: Schema, strict = true) => ({ type: 'json_schema', json_schema: { name: 'answer', schema, strict } });

let c: Client;
beforeAll(async () => {
  c = await startClient({ seed: 11, limits: false });
});
afterAll(async () => {
  await c.close();
});

async function content(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number; text: string; finish: unknown }> {
  const res = await c.chat({ model: 'iari-mini', messages: ask, ...body }, { headers });
  if (body['stream'] !== true) {
    const json = (await res.json()) as { choices?: { message: { content: string }; finish_reason: unknown }[] };
    return { status: res.status, text: json.choices?.[0]?.message.content ?? JSON.stringify(json), finish: json.choices?.[0]?.finish_reason };
  }
  const chunks = chunksOf(parseSse(await res.text()));
  const text = chunks.map((k) => (k['choices']?.[0]?.delta?.content as string | undefined) ?? '').join('');
  return { status: res.status, text, finish: chunks.map((k) => k['choices']?.[0]?.finish_reason).find((x) => x != null) };
}

describe('response_format on the mock', () => {
  it('CHAT-035, CHAT-036: answers JSON valid against any strict schema, streamed and not, the same text both ways (property, ajv)', async () => {
    await fc.assert(
      fc.asyncProperty(strictSchema, async (schema) => {
        const whole = await content({ response_format: jsonSchema(schema) });
        const streamed = await content({ response_format: jsonSchema(schema), stream: true });
        expect(whole.status).toBe(200);
        const validate = ajv.compile(schema);
        expect(validate(JSON.parse(whole.text)), JSON.stringify(validate.errors)).toBe(true);
        expect(streamed.text).toBe(whole.text);
        expect(whole.finish).toBe('stop');
      }),
      { numRuns: 40 },
    );
  });

  it('answers a recursive $defs schema with a valid, finite tree', async () => {
    const { status, text } = await content({ response_format: jsonSchema(TREE) });
    expect(status).toBe(200);
    expect(ajv.compile(TREE)(JSON.parse(text))).toBe(true);
  });

  it('is deterministic per seed: the same request to two mocks with one seed gives one answer, another seed another', async () => {
    const twin = await startClient({ seed: 11, limits: false });
    const other = await startClient({ seed: 12, limits: false });
    try {
      const body = { model: 'iari-mini', messages: ask, response_format: jsonSchema(WEATHER) };
      const read = async (client: Client) => ((await (await client.chat(body)).json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content;
      const here = await read(c);
      expect(await read(twin)).toBe(here);
      expect(await read(other)).not.toBe(here);
    } finally {
      await twin.close();
      await other.close();
    }
  });

  it('CHAT-034: answers a JSON object in JSON mode, and asks for the word JSON in the messages as OpenAI does', async () => {
    const { status, text } = await content({ response_format: { type: 'json_object' } });
    expect(status).toBe(200);
    const value: unknown = JSON.parse(text);
    expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
    const res = await c.chat({ model: 'iari-mini', messages: [{ role: 'user', content: 'hello' }], response_format: { type: 'json_object' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('messages');
  });

  it('CHAT-037: refuses strict schemas outside OpenAI\'s subset with OpenAI\'s 400 and message, and accepts them without strict', async () => {
    const cases: [Schema, string][] = [
      [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, "Invalid schema for response_format 'answer': In context=(), 'additionalProperties' is required to be supplied and to be false."],
      [
        { type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' }, y: { type: 'string' } }, required: ['x'], additionalProperties: false } } }, required: ['list'], additionalProperties: false },
        "Invalid schema for response_format 'answer': In context=('properties', 'list', 'items'), 'required' is required to be supplied and to be an array including every key in properties. Missing 'y'.",
      ],
      [{ type: 'object', properties: { a: { type: 'string', default: 'x' } }, required: ['a'], additionalProperties: false }, "Invalid schema for response_format 'answer': In context=('properties', 'a'), 'default' is not permitted."],
      [{ type: 'array', items: { type: 'string' } }, `Invalid schema for response_format 'answer': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`],
    ];
    for (const [schema, message] of cases) {
      const res = await c.chat({ model: 'iari-mini', messages: ask, response_format: jsonSchema(schema) });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { message, type: 'invalid_request_error', param: 'response_format', code: null } });
      const loose = await content({ response_format: jsonSchema(schema, false) });
      expect(loose.status).toBe(200);
      expect(ajv.compile(schema)(JSON.parse(loose.text))).toBe(true);
    }
  });

  it('cuts JSON at max_tokens with finish_reason length, as OpenAI does', async () => {
    const { status, text, finish } = await content({ response_format: jsonSchema(WEATHER), max_completion_tokens: 5 });
    expect(status).toBe(200);
    expect(finish).toBe('length');
    expect(() => JSON.parse(text)).toThrow();
  });

  it('serves structured outputs to the official openai SDK, and its BadRequestError carries the strict-schema refusal', async () => {
    const client = new OpenAI({ baseURL: c.server.url, apiKey: c.server.tokens.default, maxRetries: 0 });
    const done = await client.chat.completions.create({ model: 'iari-mini', messages: [{ role: 'user', content: 'Weather as JSON' }], response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER, strict: true } } });
    expect(ajv.compile(WEATHER)(JSON.parse(done.choices[0]?.message.content ?? ''))).toBe(true);
    const error = await client.chat.completions
      .create({ model: 'iari-mini', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_schema', json_schema: { name: 'loose', schema: { type: 'object', properties: {} }, strict: true } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).param).toBe('response_format');
  });
});
