import { describe, expect, it } from 'vitest';
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

  it('HDR-015: a whole body is one value: its nesting is bounded, its size is not', () => {
    expect(scan('{"a":[[[[1]]]]}', false)).toBe('json-too-deep');
    expect(scan(`{"a":"${'x'.repeat(500)}"}`, false)).toBeNull();
  });
});
