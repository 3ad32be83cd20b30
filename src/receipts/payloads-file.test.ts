import { describe, expect, it } from 'vitest';
import { readPayloadsBytes, readPayloadsText } from './payloads-file.ts';

const detail = (r: ReturnType<typeof readPayloadsText>) => (r.ok ? 'ok' : r.detail);

describe('the payloads file (D-RCPT-13)', () => {
  it('D-RCPT-13: maps each Receipt id to its input, output and context', () => {
    const r = readPayloadsText('{"r1":{"input":{"t":1E-7,"s":-0},"output":[]},"r2":{"context":{"n":1e20}}}');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.byId.get('r1')).toEqual({ input: { t: 1e-7, s: -0 }, output: [] });
    expect(r.byId.get('r2')).toEqual({ context: { n: 1e20 } });
  });

  it.each([
    ['{"r1":{"input":{"n":9007199254740993}}}', /not exactly an IEEE 754 double/],
    ['{"r1":{"input":{"n":1e400}}}', /outside the IEEE 754 double range/],
    ['[]', /expected a JSON object/],
    ['{"r1":1}', /is not an object/],
    ['{"r1":{"request":{}}}', /"request"/],
    ['{"r1":{},"r1":{}}', /duplicate member name/],
    ['\ufeff{}', /byte order mark/],
  ])('D-RCPT-13: refuses %j', (text, why) => {
    expect(detail(readPayloadsText(text))).toMatch(why);
  });

  it('D-RCPT-13: a refusal names the file\'s ids and keys clipped, so it stays one line whatever the file holds (fuzz finding)', () => {
    const long = 'k'.repeat(100_000);
    const keys = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${long}${i}`, 1]));
    const d = detail(readPayloadsText(JSON.stringify({ [long]: keys })));
    expect(d.length).toBeLessThan(400);
    expect(d).toMatch(/^the entry for "k{60}…" has "k{60}…", "k{60}…", "k{60}…" and 47 more \(allowed: input, output, context\)$/);
    expect(detail(readPayloadsText(JSON.stringify({ [long]: 1 })))).toMatch(/^the entry for "k{60}…" is not an object$/);
  });

  it('D-RCPT-13: refuses bytes that are not UTF-8 instead of replacing them', () => {
    expect(detail(readPayloadsBytes(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x7b, 0x7d, 0x7d])))).toMatch(/not UTF-8/);
    expect(readPayloadsBytes(new TextEncoder().encode('{"r":{}}')).ok).toBe(true);
  });
});
