// POST /v1/embeddings (compat: OpenAI CreateEmbedding) as the bundled mock serves it: deterministic
// seeded vectors, usage counted by the mock's tokenizer, OpenAI's 4xx naming the member on bad
// input, and one fault per requirement it carries.
import type { MockFault, MockSide } from '../protocol-mock.ts';
import { inputItems, validateEmbeddingsRequest, type EmbeddingsRequest } from './embeddings-request.ts';
import { encodeFloat32Base64 } from './base64-floats.ts';
import { fnv1a, seededRandom as mulberry32 } from '../../seeded-random.ts';

/** The length of the mock's vectors when no `dimensions` is asked. */
export const MOCK_EMBEDDING_DIMENSIONS = 64;

const f = (name: string, breaks: string[], description: string): MockFault => ({ name, kind: 'fault', breaks, description });
const ALL = ['EMB-001', 'EMB-002', 'EMB-003', 'EMB-004', 'EMB-005', 'EMB-006', 'EMB-007'];

export const embeddingsFaults: readonly MockFault[] = [
  { ...f('embeddings-missing', ALL, 'POST /v1/embeddings is not served (404 unknown_url), as on a chat-only server (legal by default; fails under --expect embeddings).'), expect: ['embeddings'] },
  f('embeddings-not-numbers', ['EMB-001'], 'Every embedding is an array of numeric strings ("0.125") instead of numbers.'),
  f('embeddings-object-wrong', ['EMB-007'], 'The answer has object "embeddings" and its items object "vector".'),
  f('embeddings-missing-last', ['EMB-002'], 'With several inputs, the last input gets no embedding.'),
  f('embeddings-reversed', ['EMB-003'], 'The embeddings come in reverse input order, each keeping its input\'s index.'),
  f('embeddings-usage-missing', ['EMB-004'], 'The answer carries no usage.'),
  f('embeddings-base64-ignored', ['EMB-005'], 'encoding_format "base64" is ignored: the embeddings come as float arrays (openai-node then decodes zeros).'),
  f('embeddings-dimensions-partial', ['EMB-006'], 'dimensions is honoured for the first input only; the others keep the full length.'),
];

/** The unit vector of one input: seeded by the mock's seed, the model and the input, so the same request gives the same vector. */
export function embeddingOf(seed: number, model: string, item: string | number[], dimensions: number): number[] {
  const rng = mulberry32(fnv1a(`${model}\u0000${typeof item === 'string' ? item : item.join(',')}`, (seed ^ 0x5bd1e995) >>> 0));
  const full = Array.from({ length: MOCK_EMBEDDING_DIMENSIONS }, () => rng() * 2 - 1);
  // Compat (text-embedding-3, "dimensions"): a shorter embedding is the full one cut and normalised again.
  const cut = full.slice(0, dimensions);
  const norm = Math.sqrt(cut.reduce((s, x) => s + x * x, 0)) || 1;
  // float32 values, so the float and base64 answers carry the same numbers.
  return cut.map((x) => Math.fround(x / norm));
}

function embeddingsAnswer(seed: number, request: EmbeddingsRequest, fs: ReadonlySet<string>, countTokens: (text: string) => number): unknown {
  const items = inputItems(request.input);
  const base64 = request.encoding_format === 'base64' && !fs.has('embeddings-base64-ignored');
  let data = items.map((item, index) => {
    const dims = request.dimensions === undefined || (fs.has('embeddings-dimensions-partial') && index > 0) ? MOCK_EMBEDDING_DIMENSIONS : request.dimensions;
    const vector = embeddingOf(seed, request.model, item, dims);
    const embedding = base64 ? encodeFloat32Base64(vector) : fs.has('embeddings-not-numbers') ? vector.map(String) : vector;
    return { object: fs.has('embeddings-object-wrong') ? 'vector' : 'embedding', index, embedding };
  });
  if (fs.has('embeddings-missing-last') && data.length > 1) data = data.slice(0, -1);
  if (fs.has('embeddings-reversed')) data = [...data].reverse();
  // Usage counted by the mock's tokenizer: a token array counts its ids.
  const tokens = items.reduce((n, item) => n + (typeof item === 'string' ? countTokens(item) : item.length), 0);
  return {
    object: fs.has('embeddings-object-wrong') ? 'embeddings' : 'list',
    data,
    model: request.model,
    ...(fs.has('embeddings-usage-missing') ? {} : { usage: { prompt_tokens: tokens, total_tokens: tokens } }),
  };
}

/** The bundled mock's side of the embeddings protocol. */
export const embeddingsMock: MockSide<EmbeddingsRequest> = {
  parse(body) {
    const v = validateEmbeddingsRequest(body);
    return v.ok ? { ok: true, ask: v.request, model: v.request.model, stream: false } : { ok: false, param: v.param, message: v.message };
  },
  answer: {
    kind: 'computed',
    compute(request, kit) {
      if (request.dimensions !== undefined && request.dimensions > MOCK_EMBEDDING_DIMENSIONS) {
        return { ok: false, param: 'dimensions', message: `This model does not support dimensions ${request.dimensions}: at most ${MOCK_EMBEDDING_DIMENSIONS}.` };
      }
      return { status: 200, body: embeddingsAnswer(kit.seed, request, kit.faults, kit.countTokens) };
    },
  },
  // A chat-only server (and the seed's core) has no such route.
  missing: 'embeddings-missing',
  faults: embeddingsFaults,
};
