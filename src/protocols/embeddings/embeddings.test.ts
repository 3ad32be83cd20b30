import { describe, expect, it } from 'vitest';
import { decodeFloat32Base64, encodeFloat32Base64 } from './base64-floats.ts';
import { embeddingsBody, inputCount, validateEmbeddingsRequest } from './embeddings-request.ts';
import { checkEmbeddingsResponse, compareEncodings, embeddingsCounters } from './embeddings-response.ts';
import type { EmbeddingsRuleCode } from './embeddings-rules.ts';

const v = (n: number, k = 0): number[] => Array.from({ length: n }, (_, i) => Math.fround((i + k) / 8));
const answer = (vectors: unknown[], over: Record<string, unknown> = {}): Record<string, unknown> => ({
  object: 'list',
  data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
  model: 'm',
  usage: { prompt_tokens: 7, total_tokens: 7 },
  ...over,
});
const rules = (body: unknown, sent: Parameters<typeof checkEmbeddingsResponse>[1]): EmbeddingsRuleCode[] => [...new Set(checkEmbeddingsResponse(body, sent).findings.map((f) => f.rule))].sort();

describe('embeddings request shapes', () => {
  it('counts one embedding per string or token array', () => {
    expect([inputCount('a'), inputCount(['a', 'b']), inputCount([1, 2, 3]), inputCount([[1], [2], [3]])]).toEqual([1, 2, 1, 3]);
  });

  it('leaves out the members not given', () => {
    expect(embeddingsBody('m', 'a')).toEqual({ model: 'm', input: 'a' });
    expect(embeddingsBody('m', ['a'], { encodingFormat: 'base64', dimensions: 8 })).toEqual({ model: 'm', input: ['a'], encoding_format: 'base64', dimensions: 8 });
  });

  it.each([
    [{ input: 'a' }, 'model'],
    [{ model: 'm' }, 'input'],
    [{ model: 'm', input: '' }, 'input'],
    [{ model: 'm', input: [] }, 'input'],
    [{ model: 'm', input: ['a', 3] }, 'input'],
    [{ model: 'm', input: 'a', encoding_format: 'hex' }, 'encoding_format'],
    [{ model: 'm', input: 'a', dimensions: 0 }, 'dimensions'],
    [{ model: 'm', input: 'a', dimensions: 2.5 }, 'dimensions'],
  ])('refuses %j naming %s', (body, param) => {
    const r = validateEmbeddingsRequest(body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.param).toBe(param);
  });

  it('accepts strings, token arrays and both encodings', () => {
    for (const body of [{ model: 'm', input: 'a' }, { model: 'm', input: ['a', 'b'] }, { model: 'm', input: [1, 2] }, { model: 'm', input: [[1], [2, 3]], encoding_format: 'base64', dimensions: 4 }]) expect(validateEmbeddingsRequest(body).ok).toBe(true);
  });
});

describe('base64 embeddings', () => {
  it('round-trips float32 values, little-endian', () => {
    const values = v(5, 1);
    const text = encodeFloat32Base64(values);
    expect(Buffer.from(text, 'base64').readFloatLE(4)).toBe(values[1]);
    expect(decodeFloat32Base64(text)).toEqual(values);
  });

  it('refuses what is not base64 of whole float32 values', () => {
    expect(decodeFloat32Base64('not base64!')).toBeUndefined();
    expect(decodeFloat32Base64(Buffer.from([1, 2, 3]).toString('base64'))).toBeUndefined();
  });
});

describe('embeddings response checker', () => {
  it('finds nothing in a conforming answer, and counts inputs, prompt tokens and dimensions', () => {
    const r = checkEmbeddingsResponse(answer([v(4), v(4, 1)]), { inputs: 2 });
    expect(r.findings).toEqual([]);
    expect(embeddingsCounters(r)).toEqual({ inputs: 2, promptTokens: 7, dimensions: 4 });
  });

  it.each<[string, unknown, Parameters<typeof checkEmbeddingsResponse>[1], EmbeddingsRuleCode[]]>([
    ['a wrong object', answer([v(4)], { object: 'embeddings' }), { inputs: 1 }, ['object-wrong']],
    ['items without object embedding', { ...answer([]), data: [{ object: 'vector', index: 0, embedding: v(4) }] }, { inputs: 1 }, ['item-object-wrong']],
    ['no data', answer([], { data: undefined }), { inputs: 1 }, ['data-invalid']],
    ['no model', answer([v(4)], { model: '' }), { inputs: 1 }, ['model-invalid']],
    ['numbers as strings', answer([v(4).map(String)]), { inputs: 1 }, ['embedding-invalid']],
    ['vectors of two lengths', answer([v(4), v(3)]), { inputs: 2 }, ['lengths-differ']],
    ['a missing embedding', answer([v(4)]), { inputs: 2 }, ['count-mismatch']],
    ['indexes out of order', { ...answer([]), data: [{ object: 'embedding', index: 1, embedding: v(4) }, { object: 'embedding', index: 0, embedding: v(4) }] }, { inputs: 2 }, ['index-invalid']],
    ['no usage', answer([v(4)], { usage: undefined }), { inputs: 1 }, ['usage-missing']],
    ['total unlike prompt', answer([v(4)], { usage: { prompt_tokens: 3, total_tokens: 4 } }), { inputs: 1 }, ['usage-counts']],
    ['floats where base64 was asked', answer([v(4)]), { inputs: 1, encodingFormat: 'base64' }, ['base64-not-string']],
    ['bad base64', answer(['@@@@']), { inputs: 1, encodingFormat: 'base64' }, ['base64-invalid']],
    ['dimensions not honoured', answer([v(2), v(4)]), { inputs: 2, dimensions: 2 }, ['dimensions-not-honoured']],
  ])('reports %s', (_, body, sent, expected) => {
    expect(rules(body, sent)).toEqual(expected);
  });

  it('never throws, whatever the body', () => {
    for (const body of [null, 3, 'x', [], { data: [null, 1, { index: 'a' }] }, { data: [{ embedding: {} }], usage: [] }]) expect(() => checkEmbeddingsResponse(body, { inputs: 1, encodingFormat: 'base64' })).not.toThrow();
  });

  it('compares base64 with float answers value by value', () => {
    const floats = [v(4), v(4, 1)];
    const same = checkEmbeddingsResponse(answer(floats.map(encodeFloat32Base64)), { inputs: 2, encodingFormat: 'base64' });
    expect(compareEncodings(floats, same.vectors)).toEqual([]);
    const other = checkEmbeddingsResponse(answer([encodeFloat32Base64(v(4)), encodeFloat32Base64(v(4, 2))]), { inputs: 2, encodingFormat: 'base64' });
    expect(compareEncodings(floats, other.vectors).map((f) => f.rule)).toEqual(['base64-differs']);
  });
});
