import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EventBounds } from './event-bounds.ts';

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Feeds `text` in reads of `size` bytes; the first refusal's finding, or null. */
function scan(text: string, stream = true, size = 7, limits = { jsonDepth: 4, sseEventBytes: 64 }): string | null {
  const b = new EventBounds(stream, limits);
  const all = bytes(text);
  for (let i = 0; i < all.length; i += size) {
    const r = b.feed(all.subarray(i, i + size));
    if (r !== null) return r.finding;
  }
  return null;
}

describe('event bounds on the main thread', () => {
  it('HDR-015: bare nesting past the depth in a data line is refused, whatever the read boundaries', () => {
    expect(scan('data: [[[[[]]]]]\n\n')).toBe('json-too-deep');
    expect(scan('data: [[[[[]]]]]\n\n', true, 1)).toBe('json-too-deep');
    expect(scan('data: [[[[]]]]\n\ndata: [[[[]]]]\n\n')).toBeNull();
  });

  it('HDR-015: brackets inside strings, comments and other fields do not count', () => {
    expect(scan('data: {"a":"[[[[[[[[[[\\"[[[["}\n\n')).toBeNull();
    expect(scan(': [[[[[[[[\nevent: [[[[[[\ndata: {}\n\n')).toBeNull();
    expect(scan('datax: [[[[[[[[\n\n')).toBeNull();
  });

  it('CHAT-STREAM-046: an event whose data lines together pass the size is refused; separate events are not', () => {
    const line = `data: "${'x'.repeat(40)}"`;
    expect(scan(`${line}\n${line}\n\n`)).toBe('event-too-long');
    expect(scan(`${line}\n\n${line}\r\n\r\n${line}\r\r`)).toBeNull();
  });

  it('HDR-015, CHAT-STREAM-046: whole events in one read (passed over when they cannot break a bound) are held to both bounds', () => {
    const whole = (text: string): string | null => scan(text, true, 100_000);
    // Past the depth, and past the size, with the events around them plain.
    expect(whole('data: {}\n\ndata: [[[[[]]]]]\n\ndata: {}\n\n')).toBe('json-too-deep');
    expect(whole('data:[[[[[]]]]]\n\n')).toBe('json-too-deep');
    expect(whole(`data: {}\n\ndata: "${'x'.repeat(63)}"\n\n`)).toBe('event-too-long');
    // At the bounds: 4 levels, 64 bytes of data.
    expect(whole('data: [[[[]]]]\n\ndata: {"a":[{"b":[]}]}\n\n')).toBeNull();
    expect(whole(`data: "${'x'.repeat(62)}"\n\n`)).toBeNull();
    // More opening brackets than the depth, inside a string: counted exactly, not refused.
    expect(whole('data: {"a":"[[[[[[[[[["}\n\n')).toBeNull();
    // Two data lines of one event, a field before the data: not whole events, still bounded.
    expect(whole('data: [[[\ndata: [[]]]]]\n\n')).toBe('json-too-deep');
    expect(whole('event: x\ndata: [[[[[]]]]]\n\n')).toBe('json-too-deep');
  });

  it('HDR-015, CHAT-STREAM-046: a leading byte order mark is stripped as the SSE reader strips it, whatever the reads (fuzz finding: the first event passed both bounds)', () => {
    for (const size of [1, 2, 3, 7, 1000]) {
      expect(scan('\uFEFFdata: [[[[[]]]]]\n\n', true, size)).toBe('json-too-deep');
      expect(scan(`\uFEFFdata: "${'x'.repeat(70)}"\n\n`, true, size)).toBe('event-too-long');
    }
    // The first two bytes of a BOM and then a data line: a field named "\xEF\xBBdata", not data (as the reader reads it).
    const b = new EventBounds(true, { jsonDepth: 4, sseEventBytes: 64 });
    expect(b.feed(Buffer.concat([Buffer.from([0xef, 0xbb]), bytes('data: [[[[[]]]]]\n\ndata: [1]\n\n')]))).toBeNull();
  });

  it('CHAT-STREAM-046: lines that are just "data" count their joining newline, so a run of them is bounded (fuzz finding: 8 MiB of them passed)', () => {
    expect(scan('data\n'.repeat(66) + '\n')).toBe('event-too-long');
    expect(scan('data\n'.repeat(65) + '\n')).toBeNull();
    // An event of exactly the bound is not refused: 64 characters of data in one line, or split over lines.
    expect(scan(`data: ${'x'.repeat(64)}\n\n`)).toBeNull();
    expect(scan(`data: ${'x'.repeat(31)}\ndata\ndata: ${'x'.repeat(31)}\n\n`)).toBeNull();
    expect(scan(`data: ${'x'.repeat(31)}\ndata\ndata: ${'x'.repeat(32)}\n\n`)).toBe('event-too-long');
  });

  it('HDR-015: a whole body is one value: its nesting is bounded, its size is not', () => {
    expect(scan('{"a":[[[[1]]]]}', false)).toBe('json-too-deep');
    expect(scan(`{"a":"${'x'.repeat(500)}"}`, false)).toBeNull();
  });
});

/** The bounds written one byte at a time over the whole text (no reads, no state carried): the oracle of the property below. */
function reference(text: Buffer, stream: boolean, maxDepth: number, maxEventBytes: number): string | null {
  let line: 'start' | 'field' | 'value-start' | 'data' | 'skip' = stream ? 'start' : 'data';
  let field = '';
  let afterCr = false;
  let eventBytes = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const b of text) {
    const c = String.fromCharCode(b);
    if (stream) {
      if (c === '\n' || c === '\r') {
        if (c === '\n' && afterCr) {
          afterCr = false;
          continue;
        }
        afterCr = c === '\r';
        if (line === 'start') [eventBytes, depth, inString, escaped] = [0, 0, false, false];
        else {
          // A line that is just "data" is a data line too; the count runs one newline ahead of the data.
          if ((line === 'data' || line === 'value-start' || (line === 'field' && field === 'data')) && ++eventBytes > maxEventBytes + 1) return 'event-too-long';
          line = 'start';
        }
        continue;
      }
      afterCr = false;
      if (line === 'start') {
        field = '';
        if (c === ':') {
          line = 'skip';
          continue;
        }
        line = 'field';
      }
      if (line === 'field') {
        if (c === ':') line = field === 'data' ? 'value-start' : 'skip';
        else field += c;
        continue;
      }
      if (line === 'skip') continue;
      if (line === 'value-start') {
        line = 'data';
        if (c === ' ') continue;
      }
      if (++eventBytes > maxEventBytes) return 'event-too-long';
    }
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > maxDepth) return 'json-too-deep';
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return null;
}

describe('event bounds against their first per-byte form', () => {
  it('HDR-015, CHAT-STREAM-046: any stream or body, read in any pieces, is refused exactly when and as the per-byte scan refuses it (property)', () => {
    // Weighted towards what the bounds count: data lines, open brackets and event ends.
    const piece = fc.constantFrom('data: ', 'data: ', 'data:', 'data', 'event: ', ': ', 'datax:', '[', '[', '[', '{', ']', '}', '"', '\\', 'x', 'yz', '\n', '\r', '\r\n', '\n\n', '\n\n', '\r\r', ' ');
    // Whole events of data lines of brackets: what carries nesting (wrongly) from one event to the next.
    const dataLine = fc.array(fc.constantFrom('[', '[', '{', ']', '}', '"', 'x', '\\'), { maxLength: 6 }).map((l) => (l.length === 0 ? 'data:' : `data: ${l.join('')}`));
    const events = fc.array(fc.tuple(fc.array(dataLine, { minLength: 1, maxLength: 3 }), fc.constantFrom('\n', '\r', '\r\n')), { maxLength: 8 }).map((es) => es.map(([lines, eol]) => `${lines.join(eol)}${eol}${eol}`));
    fc.assert(
      fc.property(fc.oneof(fc.array(piece, { maxLength: 80 }), events), fc.boolean(), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 4 }), fc.oneof(fc.integer({ min: 4, max: 40 }), fc.constant(10_000)), (parts, stream, size, depth, eventBytes) => {
        const text = Buffer.from(parts.join(''), 'latin1');
        const b = new EventBounds(stream, { jsonDepth: depth, sseEventBytes: eventBytes });
        let got: string | null = null;
        for (let i = 0; i < text.length && got === null; i += size) got = b.feed(text.subarray(i, i + size))?.finding ?? null;
        expect(got).toBe(reference(text, stream, depth, eventBytes));
      }),
      { numRuns: 3000 },
    );
  });
});
