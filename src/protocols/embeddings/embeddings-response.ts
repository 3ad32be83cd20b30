import type { EmbeddingsRuleCode } from './embeddings-rules.ts';
import type { EncodingFormat } from './embeddings-request.ts';
import { decodeFloat32Base64 } from './base64-floats.ts';

/** One rule broken, with a JSON pointer into the answer. */
export interface EmbeddingsFinding {
  rule: EmbeddingsRuleCode;
  message: string;
  pointer: string;
  expected?: unknown;
  received?: unknown;
}

export interface EmbeddingsUsage {
  promptTokens: number;
  totalTokens: number;
}

/** What one answer holds, checked: the findings, the vectors (decoded), usage and the counts a load run records. */
export interface EmbeddingsCheckResult {
  findings: EmbeddingsFinding[];
  /** The embedding at each position of data, decoded to numbers (undefined where it is not a valid vector). */
  vectors: (number[] | undefined)[];
  /** usage when both counts are integers >= 0. */
  usage: EmbeddingsUsage | undefined;
  /** The inputs the request sent. */
  inputs: number;
  /** The length of the first valid vector. */
  dimensions: number | undefined;
}

export interface SentEmbeddings {
  /** How many inputs the request carried (`inputCount`). */
  inputs: number;
  /** The encoding the request asked for (absent: float). */
  encodingFormat?: EncodingFormat;
  /** `dimensions` when the request carried it and the server honours it: every vector must have that length. */
  dimensions?: number;
}

/** How a load run checks each whole answer of an embeddings workload (structured-clone safe: it travels to the check worker). */
export type EmbeddingsBodyCheck = { api: 'embeddings' } & SentEmbeddings;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const show = (v: unknown): string => {
  const s = typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : Array.isArray(v) ? `an array of ${v.length}` : JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/**
 * Checks a 200 answer to POST /v1/embeddings against compat `CreateEmbeddingResponse`: object
 * "list"; data, one `Embedding` {object: "embedding", index, embedding} per input ("The index of
 * the embedding in the list of embeddings"); model; usage {prompt_tokens, total_tokens}. Never
 * throws, whatever the body.
 */
export function checkEmbeddingsResponse(body: unknown, sent: SentEmbeddings): EmbeddingsCheckResult {
  const findings: EmbeddingsFinding[] = [];
  const add = (rule: EmbeddingsRuleCode, message: string, pointer: string, expected?: unknown, received?: unknown): void => {
    findings.push({ rule, message, pointer, ...(expected === undefined ? {} : { expected }), ...(received === undefined ? {} : { received }) });
  };
  const result: EmbeddingsCheckResult = { findings, vectors: [], usage: undefined, inputs: sent.inputs, dimensions: undefined };
  if (!isRecord(body)) {
    add('data-invalid', `the answer is ${show(body)}, not a JSON object`, '', 'an object', body);
    return result;
  }
  if (body['object'] !== 'list') add('object-wrong', `object is ${'object' in body ? show(body['object']) : 'absent'}`, '/object', 'list', body['object'] ?? 'absent');
  const model = body['model'];
  if (typeof model !== 'string' || model === '') add('model-invalid', `model is ${'model' in body ? show(model) : 'absent'}`, '/model', 'a non-empty string', model ?? 'absent');
  const usage = body['usage'];
  if (!isRecord(usage)) add('usage-missing', `usage is ${'usage' in body ? show(usage) : 'absent'}`, '/usage', '{prompt_tokens, total_tokens}', usage ?? 'absent');
  else {
    const pt = usage['prompt_tokens'];
    const tt = usage['total_tokens'];
    if (!isCount(pt) || !isCount(tt)) add('usage-counts', `usage counts are not integers >= 0: prompt_tokens ${show(pt)}, total_tokens ${show(tt)}`, '/usage', 'integers >= 0', usage);
    else {
      result.usage = { promptTokens: pt, totalTokens: tt };
      // Embeddings generate nothing: every token counted is a prompt token.
      if (tt !== pt) add('usage-counts', `total_tokens ${tt} != prompt_tokens ${pt}`, '/usage/total_tokens', pt, tt);
    }
  }
  const data = body['data'];
  if (!Array.isArray(data)) {
    add('data-invalid', `data is ${'data' in body ? show(data) : 'absent'}, not an array`, '/data', 'an array', data ?? 'absent');
    return result;
  }
  if (data.length !== sent.inputs) add('count-mismatch', `data holds ${data.length} embedding(s) for ${sent.inputs} input(s)`, '/data', sent.inputs, data.length);
  const base64 = sent.encodingFormat === 'base64';
  let length: number | undefined;
  data.forEach((item, i) => {
    const ptr = `/data/${i}`;
    if (!isRecord(item)) {
      add('data-invalid', `data[${i}] is ${show(item)}, not an object`, ptr, 'an object', item);
      result.vectors.push(undefined);
      return;
    }
    if (item['object'] !== 'embedding') add('item-object-wrong', `data[${i}].object is ${'object' in item ? show(item['object']) : 'absent'}`, `${ptr}/object`, 'embedding', item['object'] ?? 'absent');
    if (item['index'] !== i) add('index-invalid', `data[${i}].index is ${'index' in item ? show(item['index']) : 'absent'}`, `${ptr}/index`, i, item['index'] ?? 'absent');
    const e = item['embedding'];
    let vector: number[] | undefined;
    if (base64) {
      if (typeof e !== 'string') add('base64-not-string', `data[${i}].embedding is ${show(e)}, not a base64 string (openai-node decodes it as one)`, `${ptr}/embedding`, 'a base64 string', Array.isArray(e) ? `an array of ${e.length}` : e);
      else {
        vector = decodeFloat32Base64(e);
        if (vector === undefined || vector.length === 0) add('base64-invalid', `data[${i}].embedding is not base64 of float32 values`, `${ptr}/embedding`, 'base64 of little-endian float32', show(e));
      }
    } else if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      add('embedding-invalid', `data[${i}].embedding is ${show(e)}, not a non-empty array of finite numbers`, `${ptr}/embedding`, 'an array of numbers', Array.isArray(e) ? `an array of ${e.length}` : e);
    } else vector = e as number[];
    if (vector !== undefined && vector.length === 0) vector = undefined;
    result.vectors.push(vector);
    if (vector === undefined) return;
    if (length === undefined) length = vector.length;
    // Where dimensions was asked, a length that differs is dimensions-not-honoured's.
    else if (vector.length !== length && sent.dimensions === undefined) add('lengths-differ', `data[${i}].embedding has ${vector.length} values, data[0]'s ${length}`, `${ptr}/embedding`, length, vector.length);
    if (sent.dimensions !== undefined && vector.length !== sent.dimensions) {
      add('dimensions-not-honoured', `data[${i}].embedding has ${vector.length} values; dimensions ${sent.dimensions} was asked`, `${ptr}/embedding`, sent.dimensions, vector.length);
    }
  });
  result.dimensions = length;
  return result;
}

/**
 * The float32 values of the same inputs answered once as floats and once as base64 must agree:
 * openai-node asks for base64 by default and hands the decoded values to the application.
 */
export function compareEncodings(floats: readonly (number[] | undefined)[], decoded: readonly (number[] | undefined)[]): EmbeddingsFinding[] {
  const out: EmbeddingsFinding[] = [];
  floats.forEach((f, i) => {
    const d = decoded[i];
    if (f === undefined || d === undefined) return;
    const same = f.length === d.length && f.every((x, k) => Math.fround(x) === d[k]);
    if (!same) {
      const k = f.findIndex((x, j) => Math.fround(x) !== d[j]);
      out.push({ rule: 'base64-differs', message: `input ${i}: the base64 embedding (${d.length} values) decodes to other values than the float one (${f.length} values)${k >= 0 ? `, first at [${k}]: ${f[k]} vs ${d[k]}` : ''}`, pointer: `/data/${i}/embedding`, expected: f.length, received: d.length });
    }
  });
  return out;
}

/** What a load engine records of one answer: inputs embedded, prompt tokens (usage, when the server counted them) and the vector length. */
export function embeddingsCounters(r: EmbeddingsCheckResult): { inputs: number; promptTokens: number | null; dimensions: number | null } {
  return { inputs: r.inputs, promptTokens: r.usage?.promptTokens ?? null, dimensions: r.dimensions ?? null };
}
