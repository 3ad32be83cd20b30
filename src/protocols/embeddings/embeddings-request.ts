/**
 * The request side of POST /v1/embeddings (compat: OpenAI `CreateEmbeddingRequest`): its path,
 * its body, and the shape checks a server applies to it. One module for the checks, the load
 * engines and the mock.
 */

/** The route under a base URL that ends in /v1, and the whole path. */
export const EMBEDDINGS_ROUTE = '/embeddings';
export const EMBEDDINGS_PATH = `/v1${EMBEDDINGS_ROUTE}`;

export type EncodingFormat = 'float' | 'base64';
export const encodingFormats: readonly EncodingFormat[] = ['float', 'base64'];

/**
 * Compat, CreateEmbeddingRequest.input: "Input text to embed, encoded as a string or array of
 * tokens. To embed multiple inputs in a single request, pass an array of strings or array of token
 * arrays. The input must not exceed the max input tokens for the model (8192 tokens for all
 * embedding models), cannot be an empty string, and any array must be 2048 dimensions or less."
 */
export type EmbeddingsInput = string | string[] | number[] | number[][];

/** At most this many inputs in one request (OpenAI's array bound). */
export const MAX_INPUTS = 2048;

export interface EmbeddingsRequest {
  model: string;
  input: EmbeddingsInput;
  encoding_format?: EncodingFormat;
  dimensions?: number;
}

/** A request body; members left out are left out of the JSON. */
export function embeddingsBody(model: string, input: EmbeddingsInput, options: { encodingFormat?: EncodingFormat; dimensions?: number } = {}): EmbeddingsRequest {
  return {
    model,
    input,
    ...(options.encodingFormat === undefined ? {} : { encoding_format: options.encodingFormat }),
    ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions }),
  };
}

/** How many embeddings the input asks for: one per string or token array (a lone string or token array is one). */
export function inputCount(input: EmbeddingsInput): number {
  if (typeof input === 'string') return 1;
  if (input.length === 0) return 0;
  return typeof input[0] === 'number' ? 1 : input.length;
}

/** The inputs one by one: each a text or a token array. */
export function inputItems(input: EmbeddingsInput): (string | number[])[] {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as (string | number[])[];
}

/** What is wrong with a request body, naming the member as OpenAI's `error.param` does; or the request. */
export type EmbeddingsValidation = { ok: true; request: EmbeddingsRequest } | { ok: false; param: string | null; message: string };

const isTokenArray = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((t) => Number.isInteger(t) && (t as number) >= 0);

export function validateEmbeddingsRequest(body: unknown): EmbeddingsValidation {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, param: null, message: 'The request body must be a JSON object.' };
  const b = body as Record<string, unknown>;
  const model = b['model'];
  if (typeof model !== 'string' || model === '') return { ok: false, param: 'model', message: 'you must provide a model parameter (a non-empty string)' };
  const input = b['input'];
  const bad = (why: string): EmbeddingsValidation => ({ ok: false, param: 'input', message: `'input' ${why}: send a non-empty string, an array of non-empty strings, an array of token ids or an array of token arrays (at most ${MAX_INPUTS} items).` });
  if (input === undefined) return bad('is required');
  if (typeof input === 'string') {
    if (input === '') return bad('is an empty string');
  } else if (Array.isArray(input)) {
    if (input.length === 0) return bad('is an empty array');
    if (input.length > MAX_INPUTS) return bad(`has ${input.length} items`);
    const allStrings = input.every((x) => typeof x === 'string' && x !== '');
    const tokens = isTokenArray(input);
    const tokenArrays = input.every(isTokenArray);
    if (!allStrings && !tokens && !tokenArrays) return bad('mixes kinds or holds an empty or invalid item');
  } else return bad(`is ${input === null ? 'null' : typeof input}`);
  const format = b['encoding_format'];
  if (format !== undefined && format !== 'float' && format !== 'base64') {
    return { ok: false, param: 'encoding_format', message: `'encoding_format' must be "float" or "base64", not ${JSON.stringify(format)?.slice(0, 40)}.` };
  }
  const dimensions = b['dimensions'];
  if (dimensions !== undefined && !(Number.isInteger(dimensions) && (dimensions as number) >= 1)) {
    return { ok: false, param: 'dimensions', message: `'dimensions' must be an integer >= 1, not ${JSON.stringify(dimensions)?.slice(0, 40)}.` };
  }
  return {
    ok: true,
    request: {
      model,
      input: input as EmbeddingsInput,
      ...(format === undefined ? {} : { encoding_format: format }),
      ...(dimensions === undefined ? {} : { dimensions: dimensions as number }),
    },
  };
}
