import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encode } from 'gpt-tokenizer';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { goDuration } from './limits.ts';
import { nanoToDecimal } from './decimal.ts';
import { frameEvent, writePieces, framingRng } from './framing.ts';
import { countTokens, generateText, splitIntoPieces, valueForSchema } from './generator.ts';
import { SlidingWindow } from './sliding-window.ts';
import { mulberry32 } from './rng.ts';

describe('core helpers', () => {
  it('formats rate-limit resets as Go-style durations', () => {
    expect(goDuration(0)).toBe('0s');
    expect(goDuration(120)).toBe('120ms');
    expect(goDuration(1000)).toBe('1s');
    expect(goDuration(1001)).toBe('2s');
    expect(goDuration(360_000)).toBe('6m0s');
    expect(goDuration(61_500)).toBe('1m2s');
  });

  it('writes money as canonical decimals without exponent or trailing zeros', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 15 }), (nano) => {
        const text = nanoToDecimal(nano);
        expect(text).toMatch(/^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/);
        expect(Math.round(Number(text) * 1e9)).toBe(nano);
      }),
    );
  });

  it('keeps an exact running sum in the sliding window and drops entries older than the window', () => {
    const w = new SlidingWindow(60_000);
    for (let t = 0; t < 5_000; t++) w.add(t * 100, t % 7);
    w.prune(499_900);
    let expected = 0;
    for (let t = 0; t < 5_000; t++) if (t * 100 > 499_900 - 60_000) expected += t % 7;
    expect(w.sum).toBe(expected);
    expect(w.count).toBe(600);
  });

  it('splits generated text into pieces that never cut a character and whose tokens sum to the whole', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 1, max: 80 }), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }), (seed, tokens, pattern) => {
        const text = generateText(seed, tokens);
        const pieces = splitIntoPieces(text, pattern);
        expect(pieces.map((p) => p.text).join('')).toBe(text);
        for (const p of pieces) expect(p.text.includes('\uFFFD')).toBe(false);
        expect(pieces.reduce((s, p) => s + p.tokens, 0)).toBe(encode(text).length);
      }),
      { numRuns: 60 },
    );
  });

  it('counts tokens exactly for ordinary text and quickly for a 1 MiB single word', () => {
    const text = 'The café on the corner sells 日本語 books and 🚀 stickers.';
    expect(countTokens(text)).toBe(encode(text).length);
    const started = performance.now();
    expect(countTokens('x'.repeat(1024 * 1024))).toBeGreaterThan(1000);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('generates arguments valid for tool parameter schemas', () => {
    const ajv = new Ajv2020();
    const schemas = [
      { type: 'object', properties: { city: { type: 'string', minLength: 3 }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city', 'days'], additionalProperties: false },
      { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' }, minItems: 2 }, mode: { enum: ['a', 'b'] }, ok: { type: 'boolean' }, n: { type: ['number', 'null'] } }, required: ['tags', 'mode', 'ok', 'n'] },
      { type: 'object', properties: { nested: { type: 'object', properties: { x: { const: 5 } }, required: ['x'] } }, required: ['nested'] },
    ];
    for (const schema of schemas) {
      const validate = ajv.compile(schema);
      for (let seed = 0; seed < 20; seed++) expect(validate(valueForSchema(schema, mulberry32(seed))), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it('frames events in the legal modes and cuts writes inside UTF-8 characters', () => {
    const event = 'data: {"id":"x","v":"é"}\n\n';
    expect(frameEvent(event, ['crlf'])).toBe('data: {"id":"x","v":"é"}\r\n\r\n');
    expect(frameEvent(event, ['lone-cr'])).toBe('data: {"id":"x","v":"é"}\r\r');
    expect(frameEvent(event, ['data-no-space'])).toBe('data:{"id":"x","v":"é"}\n\n');
    expect(frameEvent(event, ['comments'])).toBe(': keep-alive\ndata: {"id":"x","v":"é"}\n\n');
    expect(frameEvent(event, ['multiline-data'])).toBe('data: {"id":"x",\ndata: "v":"é"}\n\n');
    const bytes = new TextEncoder().encode(event);
    const split = writePieces(bytes, ['split-utf8'], framingRng(1));
    expect(split.length).toBe(2);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(split[0])).toThrow();
    const tiny = writePieces(bytes, ['tiny-writes'], framingRng(1));
    for (const piece of tiny) expect(piece.length).toBeGreaterThanOrEqual(1);
    for (const piece of tiny) expect(piece.length).toBeLessThanOrEqual(7);
    expect(Buffer.concat(tiny).equals(Buffer.from(bytes))).toBe(true);
  });
});
