import { tokenizer } from '../../src/tokenizer.ts';
import { mulberry32, pick, randomInt, type Rng } from './rng.ts';

// Deterministic text and tool-argument generation. Token counts come from a real tokenizer
// (gpt-tokenizer, o200k_base); chunk boundaries are token boundaries that never split a character.

const WORDS = [
  'the', 'signal', 'river', 'quiet', 'model', 'token', 'stream', 'bright', 'harbor', 'lantern', 'measure', 'simple',
  'window', 'garden', 'answer', 'careful', 'orbit', 'paper', 'silver', 'thread', 'mountain', 'value', 'steady', 'north',
  'and', 'of', 'to', 'in', 'with', 'a', 'is', 'for', 'on', 'that', 'this', 'every', 'small', 'clear', 'open', 'light',
];
const NON_ASCII = ['café', 'naïve', 'Grüße', 'données', '日本語', 'über', 'mañana', 'Zürich', 'résumé', 'façade', 'Ελληνικά', 'привет', '🚀', '✓', 'ß'];

export interface Piece {
  text: string;
  tokens: number;
}

const LONG_RUN = /\S{200,}/;

/**
 * Token count by the real tokenizer. Long inputs are counted in blocks cut at whitespace, and
 * runs of 100+ non-space characters in 100-character slices, so a 1 MiB prompt costs
 * milliseconds instead of the tokenizer's quadratic time on one giant word.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length <= 4096 && !LONG_RUN.test(text)) return tokenizer().encode(text).length;
  if (text.length > SAMPLE_LIMIT) {
    // Very long prompts: the exact count of a leading sample, scaled to the whole length.
    return Math.round((countBlocks(text.slice(0, SAMPLE)) * text.length) / SAMPLE);
  }
  return countBlocks(text);
}

const SAMPLE = 16_384;
const SAMPLE_LIMIT = 65_536;

function countBlocks(text: string): number {
  let total = 0;
  let block = '';
  const parts = text.match(/\s+|\S{1,100}/g) ?? [];
  for (const part of parts) {
    if (part.length === 100 && !/\s/.test(part)) {
      if (block.length > 0) total += tokenizer().encode(block).length;
      block = '';
      total += tokenizer().encode(part).length;
      continue;
    }
    block += part;
    if (block.length >= 4096) {
      total += tokenizer().encode(block).length;
      block = '';
    }
  }
  if (block.length > 0) total += tokenizer().encode(block).length;
  return total;
}

function sentenceText(rng: Rng, approxTokens: number): string {
  const parts: string[] = [];
  let words = 0;
  let sentenceStart = true;
  const target = Math.max(4, Math.ceil(approxTokens * 0.9));
  while (words < target) {
    // Every reply carries non-ASCII text, so UTF-8 split across reads is exercised.
    let word = words === 1 || rng() < 0.12 ? pick(rng, NON_ASCII) : pick(rng, WORDS);
    if (sentenceStart) word = word.charAt(0).toUpperCase() + word.slice(1);
    sentenceStart = false;
    words++;
    if (words % 11 === 0 || words === target) {
      word += '.';
      sentenceStart = true;
    } else if (rng() < 0.08) word += ',';
    parts.push(word);
  }
  return parts.join(' ');
}

/** Text of exactly `tokens` tokens (before stop/length cuts), deterministic for a seed. */
export function generateText(seed: number, tokens: number, prefix = ''): string {
  const rng = mulberry32(seed);
  let text = prefix + sentenceText(rng, tokens);
  let ids = tokenizer().encode(text);
  while (ids.length < tokens) {
    text += ' ' + sentenceText(rng, tokens - ids.length + 2);
    ids = tokenizer().encode(text);
  }
  return decodeSafe(ids.slice(0, tokens)).text;
}

// gpt-tokenizer's decode() shares one streaming TextDecoder across calls, so a decode that ends
// inside a character leaks its bytes into the next call. Token bytes are decoded here instead,
// with a strict decoder: a group of tokens is text only when its bytes are complete UTF-8.
type TokenBytesSource = { bytePairEncodingCoreProcessor: { tryDecodeToken(id: number): string | Uint8Array | undefined } };
const utf8 = new TextEncoder();
const strict = new TextDecoder('utf-8', { fatal: true });
const bytesCache = new Map<number, Uint8Array>();

function tokenBytes(id: number): Uint8Array {
  let bytes = bytesCache.get(id);
  if (bytes === undefined) {
    const raw = (tokenizer() as unknown as TokenBytesSource).bytePairEncodingCoreProcessor.tryDecodeToken(id);
    if (raw === undefined) throw new Error(`token ${id} is not in the vocabulary`);
    bytes = typeof raw === 'string' ? utf8.encode(raw) : raw;
    bytesCache.set(id, bytes);
  }
  return bytes;
}

/** The text of tokens ids[from..to), or null when those bytes end or start inside a character. */
function textOf(ids: readonly number[], from: number, to: number): string | null {
  let size = 0;
  for (let i = from; i < to; i++) size += tokenBytes(ids[i] as number).length;
  const buffer = new Uint8Array(size);
  let at = 0;
  for (let i = from; i < to; i++) {
    const b = tokenBytes(ids[i] as number);
    buffer.set(b, at);
    at += b.length;
  }
  try {
    return strict.decode(buffer);
  } catch {
    return null;
  }
}

/** Decodes, dropping trailing tokens that end inside a UTF-8 character. */
function decodeSafe(ids: number[]): { text: string; used: number } {
  for (let n = ids.length; n > 0; n--) {
    const text = textOf(ids, 0, n);
    if (text !== null) return { text, used: n };
  }
  return { text: '', used: 0 };
}

/** The longest prefix of `text` within `tokens` tokens that ends on a character boundary. */
export function truncateToTokens(text: string, tokens: number): { text: string; truncated: boolean } {
  const ids = tokenizer().encode(text);
  if (ids.length <= tokens) return { text, truncated: false };
  return { text: decodeSafe(ids.slice(0, tokens)).text, truncated: true };
}

/**
 * Splits text into pieces of `pattern[k % pattern.length]` tokens each; a piece whose tokens end
 * inside a character takes the following tokens too, so every piece is valid UTF-8 text.
 */
export function splitIntoPieces(text: string, pattern: readonly number[]): Piece[] {
  const ids = tokenizer().encode(text);
  const pieces: Piece[] = [];
  let i = 0;
  let k = 0;
  while (i < ids.length) {
    let size = Math.min(Math.max(1, pattern[k % pattern.length] ?? 1), ids.length - i);
    k++;
    let piece = textOf(ids, i, i + size);
    while (piece === null && i + size < ids.length) {
      size++;
      piece = textOf(ids, i, i + size);
    }
    // Text from encode() is valid UTF-8, so the last group always completes.
    pieces.push({ text: piece ?? '', tokens: size });
    i += size;
  }
  return pieces;
}

type Schema = Record<string, unknown>;

/** A value valid for a (simple) JSON Schema: object, array, string, number, integer, boolean, enum, const. */
export function valueForSchema(schema: Schema | undefined, rng: Rng, depth = 0): unknown {
  if (schema === undefined || depth > 6) return {};
  if ('const' in schema) return schema['const'];
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && enumValues.length > 0) return pick(rng, enumValues);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return valueForSchema(options[0] as Schema, rng, depth + 1);
  }
  let type = schema['type'];
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0];
  if (type === undefined && typeof schema['properties'] === 'object') type = 'object';
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = (schema['properties'] ?? {}) as Record<string, Schema>;
      for (const [name, sub] of Object.entries(props)) out[name] = valueForSchema(sub, rng, depth + 1);
      return out;
    }
    case 'array': {
      const min = typeof schema['minItems'] === 'number' ? schema['minItems'] : 1;
      return Array.from({ length: Math.max(1, min) }, () => valueForSchema(schema['items'] as Schema | undefined, rng, depth + 1));
    }
    case 'integer': {
      const min = typeof schema['minimum'] === 'number' ? Math.ceil(schema['minimum']) : 1;
      const max = typeof schema['maximum'] === 'number' ? Math.floor(schema['maximum']) : min + 99;
      return randomInt(rng, min, Math.max(min, max));
    }
    case 'number': {
      const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : 0;
      const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : min + 100;
      return Math.round((min + rng() * (max - min)) * 100) / 100;
    }
    case 'boolean':
      return rng() < 0.5;
    case 'null':
      return null;
    case 'string':
    default: {
      if (schema['format'] === 'date') return '2026-01-15';
      const minLength = typeof schema['minLength'] === 'number' ? schema['minLength'] : 1;
      let s = pick(rng, [...WORDS.slice(0, 24), 'Zürich', 'café']);
      while (s.length < minLength) s += ` ${pick(rng, WORDS)}`;
      return s;
    }
  }
}
