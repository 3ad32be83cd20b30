import { describe, expect, it } from 'vitest';
import { parseStrictJson, parseStrictText, readStrictText } from './strict-json.ts';

const code = (input: Uint8Array | string) => {
  const r = parseStrictJson(input);
  return r.ok ? 'ok' : r.error.code;
};

describe('strict JSON reader', () => {
  it('reads ordinary JSON the same way JSON.parse does', () => {
    const text = '{"a":[1,2,{"b":null,"c":true,"d":false}],"e":"x\\ny\\u00e9\\ud83d\\ude02","f":{}}';
    expect(parseStrictText(text)).toEqual({ ok: true, value: JSON.parse(text) });
  });

  it.each([
    ['{"a":1,"a":1}', 'JSON_DUPLICATE_KEY'],
    ['{"a":{"b":1,"\\u0062":2}}', 'JSON_DUPLICATE_KEY'],
    ['"\\ud800"', 'JSON_LONE_SURROGATE'],
    ['"\\udc00\\ud800"', 'JSON_LONE_SURROGATE'],
    ['{"\\ud83dx":1}', 'JSON_LONE_SURROGATE'],
    ['"a\ud800b"', 'JSON_LONE_SURROGATE'],
    ['1.0', 'JSON_NUMBER_FORM'],
    ['1e9', 'JSON_NUMBER_FORM'],
    ['-0', 'JSON_NUMBER_FORM'],
    ['-1', 'JSON_NUMBER_FORM'],
    ['01', 'JSON_NUMBER_FORM'],
    ['9007199254740992', 'JSON_NUMBER_FORM'],
    ['{"a":1} x', 'JSON_SYNTAX'],
    ['{"a":1,}', 'JSON_SYNTAX'],
    ["{'a':1}", 'JSON_SYNTAX'],
    ['"a\tb"', 'JSON_SYNTAX'],
    ['"\\x"', 'JSON_SYNTAX'],
    ['1.', 'JSON_SYNTAX'],
    ['NaN', 'JSON_SYNTAX'],
    ['', 'JSON_SYNTAX'],
    [`${'['.repeat(33)}${']'.repeat(33)}`, 'JSON_LIMITS'],
    [`"${'x'.repeat(70_000)}"`, 'JSON_LIMITS'],
    ['\ufeff{}', 'JSON_INVALID_UTF8'],
  ])('rejects %j with %s', (input, expected) => {
    expect(code(input)).toBe(expected);
  });

  it('accepts the largest safe integer and 32 levels of nesting', () => {
    expect(code('9007199254740991')).toBe('ok');
    expect(code(`${'['.repeat(32)}${']'.repeat(32)}`)).toBe('ok');
  });

  it.each([
    [[0xef, 0xbb, 0xbf, 0x7b, 0x7d], 'a byte order mark'],
    [[0x22, 0xff, 0x22], 'byte 0xff'],
    [[0x22, 0xc0, 0xaf, 0x22], 'an overlong encoding'],
    [[0x22, 0xed, 0xa0, 0x80, 0x22], 'an encoded surrogate'],
    [[0x22, 0xe2, 0x82, 0x22], 'a truncated sequence'],
  ])('rejects bytes %j (%s) as invalid UTF-8', (bytes) => {
    expect(code(new Uint8Array(bytes))).toBe('JSON_INVALID_UTF8');
  });

  it('keeps a member named __proto__ as an own member instead of changing the prototype', () => {
    const r = parseStrictText('{"__proto__":{"x":1}}');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const v = r.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__']);
  });

  it('reports the pointer of the duplicate member', () => {
    const r = parseStrictText('{"a":{"b":[{"c":1,"c":2}]}}');
    expect(r.ok ? '' : r.error.pointer).toBe('/a/b/0/c');
  });

  it.each([
    ['1e20', '100000000000000000000'],
    ['-0', '0'],
    ['1E-7', '1e-7'],
    ['0.1', '0.1'],
    ['9007199254740992', '9007199254740992'],
    ['1.50', '1.5'],
    ['-2.5e-3', '-0.0025'],
  ])('D-RCPT-13: a payload number %s is read when the nearest double keeps its value (JCS writes %s)', (text, written) => {
    const r = parseStrictText(text, { maxBytes: 1024, maxDepth: 4, anyNumber: true });
    expect(r.ok ? String(r.value) : r.error.code).toBe(written);
  });

  it.each([
    ['9007199254740993', 'JSON_NUMBER_FORM'],
    ['-9007199254740993', 'JSON_NUMBER_FORM'],
    ['3.141592653589793238', 'JSON_NUMBER_FORM'],
    ['1e400', 'JSON_NUMBER_FORM'],
    ['-1e400', 'JSON_NUMBER_FORM'],
    ['1e-400', 'JSON_NUMBER_FORM'],
    ['01', 'JSON_SYNTAX'],
    ['1.', 'JSON_SYNTAX'],
    ['+1', 'JSON_SYNTAX'],
  ])('D-RCPT-13: a payload number %s is refused with %s', (text, expected) => {
    const r = parseStrictText(text, { maxBytes: 1024, maxDepth: 4, anyNumber: true });
    expect(r.ok ? 'ok' : r.error.code).toBe(expected);
  });

  it('RFC 8785: a payload number not written as JCS writes it leaves the text non-canonical (fuzz finding: "0e0" was called canonical)', () => {
    const canonical = (text: string) => {
      const r = readStrictText(text, { maxBytes: 1024, maxDepth: 4, anyNumber: true });
      return r.ok && r.canonical;
    };
    expect(['0e0', '1.0', '1e2', '-0', '1E-7', '[0.50]'].map(canonical)).toEqual([false, false, false, false, false, false]);
    expect(['0', '1.5', '100000000000000000000', '1e+21', '1e-7', '[-0.5]'].map(canonical)).toEqual([true, true, true, true, true, true]);
  });

  it('quotes numbers and member names from the input clipped, so an error detail stays short (fuzz finding: a 60,000-character lexeme was echoed whole)', () => {
    const long = '-4.'.repeat(20_000);
    for (const r of [parseStrictText(`[${long}]`), parseStrictText(`[${long}]`, { maxBytes: 1 << 20, maxDepth: 4, anyNumber: true }), parseStrictText(`{"${'k'.repeat(9000)}":1,"${'k'.repeat(9000)}":2}`)]) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.detail.length).toBeLessThan(120);
    }
  });

  it('quotes member names in an error pointer clipped, so a finding pointer stays short (fuzz finding: a 5,000-character member name made a 5,001-character pointer)', () => {
    const r = parseStrictText(`{"${'_'.repeat(5000)}":{]`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.pointer).toBe(`/${'_'.repeat(60)}…`);
    const nested = parseStrictText(`{"a/b~":{"${'k'.repeat(100)}":[1,]}}`);
    expect(nested.ok ? '' : nested.error.pointer).toBe(`/a~1b~0/${'k'.repeat(60)}…/1`);
  });

  it('D-RCPT-13: reads a payload number with 60,000 zeros before a nonzero digit in time linear in its length (fuzz finding: trimming zeros was quadratic)', () => {
    const t0 = performance.now();
    const r = parseStrictText(`[1.5${'0'.repeat(60_000)}1, 2.5${'0'.repeat(60_000)}]`, { maxBytes: 1 << 20, maxDepth: 4, anyNumber: true });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.ok ? 'ok' : r.error.code).toBe('JSON_NUMBER_FORM');
    expect(parseStrictText(`[2.5${'0'.repeat(60_000)}]`, { maxBytes: 1 << 20, maxDepth: 4, anyNumber: true })).toEqual({ ok: true, value: [2.5] });
  });

  it('D-RCPT-01: Receipt numbers stay integers 0..2^53-1 whatever payload numbers allow', () => {
    for (const text of ['1e20', '-0', '1E-7', '9007199254740992']) expect(code(text)).toBe('JSON_NUMBER_FORM');
  });
});
