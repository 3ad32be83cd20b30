import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from './index.ts';
import { countTokens } from './core/generator.ts';
import { MOCK_EMBEDDING_DIMENSIONS } from '../src/protocols/embeddings/embeddings-mock.ts';
import { EMBEDDINGS_ROUTE } from '../src/protocols/embeddings/embeddings-request.ts';
import { checkEmbeddingsResponse, compareEncodings } from '../src/protocols/embeddings/embeddings-response.ts';

let mock: MockServer;
let model: string;

async function post(body: unknown, fault?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${mock.url}${EMBEDDINGS_ROUTE}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${mock.tokens.default}`, 'content-type': 'application/json', ...(fault === undefined ? {} : { 'x-iari-fault': fault }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  mock = await startMockServer({ seed: 5, receipts: false });
  const res = await fetch(`${mock.url}/models`);
  model = ((await res.json()) as { data: { id: string }[] }).data[0]?.id ?? '';
});
afterAll(() => mock?.close());

describe('the mock serves POST /v1/embeddings', () => {
  const input = ['héllo wörld', 'a second text'];

  it('answers one seeded unit vector per input, the same each time, with usage counted by its tokenizer', async () => {
    const a = await post({ model, input });
    const b = await post({ model, input });
    expect(a.status).toBe(200);
    const r = checkEmbeddingsResponse(a.json, { inputs: 2 });
    expect(r.findings).toEqual([]);
    expect(r.dimensions).toBe(MOCK_EMBEDDING_DIMENSIONS);
    expect(b.json['data']).toEqual(a.json['data']);
    expect(r.vectors[0]).not.toEqual(r.vectors[1]);
    const norm = Math.sqrt((r.vectors[0] ?? []).reduce((s, x) => s + x * x, 0));
    expect(norm).toBeCloseTo(1, 5);
    const tokens = countTokens(input[0] as string) + countTokens(input[1] as string);
    expect(a.json['usage']).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    const ids = await post({ model, input: [[1, 2, 3], [4, 5]] });
    expect(ids.json['usage']).toEqual({ prompt_tokens: 5, total_tokens: 5 });
  });

  it('answers base64 that decodes to the float values, and dimensions as the cut vector normalised', async () => {
    const floats = checkEmbeddingsResponse((await post({ model, input, encoding_format: 'float' })).json, { inputs: 2 });
    const b64 = checkEmbeddingsResponse((await post({ model, input, encoding_format: 'base64' })).json, { inputs: 2, encodingFormat: 'base64' });
    expect(b64.findings).toEqual([]);
    expect(compareEncodings(floats.vectors, b64.vectors)).toEqual([]);
    const short = checkEmbeddingsResponse((await post({ model, input, dimensions: 8 })).json, { inputs: 2, dimensions: 8 });
    expect(short.findings).toEqual([]);
  });

  it.each([
    [{ input: 'a' }, 'model'],
    [{ model: 'M', input: '' }, 'input'],
    [{ model: 'M', input: 'a', encoding_format: 'hex' }, 'encoding_format'],
    [{ model: 'M', input: 'a', dimensions: -1 }, 'dimensions'],
    [{ model: 'M', input: 'a', dimensions: MOCK_EMBEDDING_DIMENSIONS + 1 }, 'dimensions'],
  ])('answers %j with an OpenAI 400 naming %s', async (body, param) => {
    const r = await post('model' in body ? { ...body, model } : body);
    expect(r.status).toBe(400);
    expect(r.json['error']).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('answers an unknown model 404 model_not_found, and a chat-only fault 404 unknown_url', async () => {
    expect(await post({ model: 'no-such-model', input: 'a' })).toMatchObject({ status: 404, json: { error: { code: 'model_not_found' } } });
    expect(await post({ model, input: 'a' }, 'embeddings-missing')).toMatchObject({ status: 404, json: { error: { code: 'unknown_url' } } });
  });
});
