import { describe, expect, it } from 'vitest';
import { jsonDepthExceeded, parseJsonBounded, previewJson, SseJsonDepthGuard } from './json-depth.ts';

describe('bounded JSON (HDR-015)', () => {
  it('HDR-015: a million nested arrays are refused by the scan before any parse, in well under a second', () => {
    const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    const t0 = performance.now();
    const r = parseJsonBounded(deep);
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(r).toMatchObject({ ok: false, tooDeep: true });
    expect(r.ok ? '' : r.error).toMatch(/nested deeper than 64 levels \(at character 64\)/);
  });

  it('HDR-015: brackets inside strings, escaped quotes included, do not count; 64 levels parse, 65 do not', () => {
    expect(jsonDepthExceeded(JSON.stringify({ s: '['.repeat(500), t: 'a\\"[[[[' + '{'.repeat(100) }))).toBe(-1);
    const nest = (n: number): string => '{"a":'.repeat(n - 1) + '[1]' + '}'.repeat(n - 1);
    expect(parseJsonBounded(nest(64))).toMatchObject({ ok: true });
    expect(parseJsonBounded(nest(65))).toMatchObject({ ok: false, tooDeep: true });
    expect(parseJsonBounded('{"a":')).toMatchObject({ ok: false, tooDeep: false });
  });

  it('HDR-015: the event-stream guard follows data lines only, across split reads and CRLF, and starts over at each event', () => {
    const enc = new TextEncoder();
    const ok = new SseJsonDepthGuard(3);
    // Depth 3 in each event, ids and comments full of brackets, an event split over two data lines.
    const text = ': [[[[[[\r\nid: [[[[[\r\ndata: [[[1]]]\r\n\r\ndata: [[\ndata: [2]]]\n\n';
    for (const piece of text.match(/[\s\S]{1,3}/g) ?? []) expect(ok.feed(enc.encode(piece))).toBe(false);
    const deep = new SseJsonDepthGuard(3);
    expect(deep.feed(enc.encode('data: {"a":[[["x"]]]}\n\n'))).toBe(true);
  });

  it('HDR-015: the event-stream guard strips a leading byte order mark as SSE clients do, even split across reads (fuzz finding: the first event passed)', () => {
    const stream = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('data: [[[[1]]]]\n\n')]);
    for (const size of [1, 2, 4, stream.length]) {
      const guard = new SseJsonDepthGuard(3);
      let tripped = false;
      for (let i = 0; i < stream.length; i += size) tripped ||= guard.feed(stream.subarray(i, i + size));
      expect(tripped).toBe(true);
    }
    // Two bytes of a BOM, then "data:": a field that is not data (as the reader reads it).
    expect(new SseJsonDepthGuard(3).feed(Buffer.concat([Buffer.from([0xef, 0xbb]), Buffer.from('data: [[[[1]]]]\n\n')]))).toBe(false);
  });

  it('previews any value in bounded time and length: deep, huge and odd values', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(previewJson(deep, 80).length).toBeLessThanOrEqual(83);
    expect(previewJson('x'.repeat(10_000_000), 80)).toBe(`"${'x'.repeat(79)}...`);
    expect(previewJson({ a: [1, 'b', null, true], n: NaN }, 80)).toBe('{"a":[1,"b",null,true],"n":null}');
    expect(previewJson(undefined, 80)).toBe('undefined');
  });
});
