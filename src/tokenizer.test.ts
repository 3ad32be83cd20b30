import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import packaged from 'gpt-tokenizer';
import { afterAll, describe, expect, it } from 'vitest';
import { loadO200k, writePrebuiltRanks } from './tokenizer.ts';

const require = createRequire(import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'iari-ranks-'));
const path = join(dir, 'o200k_base.ranks.json');
writePrebuiltRanks(path);
const fromJson = loadO200k(path);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The tokens, or the error's message: a text the package refuses (a special token's text) is refused alike. */
function tokens(encode: (text: string) => number[], text: string): number[] | string {
  try {
    return encode(text);
  } catch (error) {
    return (error as Error).message;
  }
}

const samples = [
  '',
  'Hello, world!',
  '  leading and trailing   \n\n\t',
  'naïve café — 東京 🙂👩‍👩‍👧 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '{"type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}',
  'def f(x):\n    return x ** 2  # square\n',
  'a'.repeat(3000),
  '1234567890 3.14159 -42 1e-9',
  'before <|endoftext|> after',
  '\ud800 lone surrogate \udfff',
];

describe('the o200k encoding built from the JSON rank table', () => {
  it('holds exactly the package rank table (length, every entry, byte entries included)', () => {
    const ranks = (require('gpt-tokenizer/bpeRanks/o200k_base') as { default: unknown[] }).default;
    const written = (JSON.parse(readFileSync(path, 'utf8')) as { version: string; ranks: unknown[] }).ranks;
    expect(written.length).toBe(ranks.length);
    expect(written).toEqual(ranks);
    expect(written.some((r) => Array.isArray(r))).toBe(true);
  });

  it('encodes the samples to the same tokens as gpt-tokenizer itself', () => {
    for (const text of samples) expect(tokens(fromJson.encode, text), JSON.stringify(text.slice(0, 40))).toEqual(tokens(packaged.encode, text));
  });

  it('counts and encodes any text as gpt-tokenizer itself (property, 2,000 texts)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 200 }), fc.array(fc.constantFrom('the', ' ', 'ing', '\n', '🙂', 'é', '{"', '0', 'Ж', '  '), { maxLength: 80 }).map((p) => p.join('')));
    fc.assert(
      fc.property(text, (t) => {
        expect(tokens(fromJson.encode, t)).toEqual(tokens(packaged.encode, t));
        expect(fromJson.countTokens(t)).toBe(packaged.countTokens(t));
      }),
      { numRuns: 2000, seed: 41 },
    );
  });

  it('decodes every byte-entry token as the package does', () => {
    const ranks = (require('gpt-tokenizer/bpeRanks/o200k_base') as { default: unknown[] }).default;
    const ids = ranks.flatMap((r, i) => (Array.isArray(r) ? [i] : [])).slice(0, 300);
    expect([...fromJson.decodeGenerator(ids)].join('')).toBe([...packaged.decodeGenerator(ids)].join(''));
  });

  it('is not read when written for another gpt-tokenizer version, nor when absent or broken: the package module is used', () => {
    const cjs = (require('gpt-tokenizer') as typeof import('gpt-tokenizer')).default;
    const other = join(dir, 'other.json');
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { version: string };
    writeFileSync(other, JSON.stringify({ ...parsed, version: `${parsed.version}-other` }));
    expect(loadO200k(other)).toBe(cjs);
    expect(loadO200k(join(dir, 'absent.json'))).toBe(cjs);
    writeFileSync(join(dir, 'broken.json'), '{"version":');
    expect(loadO200k(join(dir, 'broken.json'))).toBe(cjs);
    expect(fromJson).not.toBe(cjs);
  });
});
