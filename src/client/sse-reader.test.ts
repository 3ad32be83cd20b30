import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SseReader, firstInvalidUtf8, readAllSse, type SseEvent } from './sse-reader.ts';

const enc = new TextEncoder();
const bytes = (s: string): Uint8Array => enc.encode(s);

/** What an event means, independent of how the bytes were split into reads. */
function meaning(ev: SseEvent) {
  const { arrivedAt: _a, chunkIndex: _c, ...rest } = ev;
  return rest;
}

function readSplit(input: Uint8Array, cuts: number[]) {
  const reader = new SseReader();
  const events: SseEvent[] = [];
  let prev = 0;
  for (const cut of [...cuts, input.length]) {
    events.push(...reader.feed(input.subarray(prev, cut), BigInt(cut)));
    prev = cut;
  }
  const end = reader.end();
  return { events, end, reader };
}

const sample =
  '\uFEFF: keep-alive\r\n' +
  'data: {"a":"héllo 😀 世界"}\r\n\r\n' +
  'event: ping\rid: 7\rretry: 1500\rdata:no-space\rdata:  two spaces\r\r' +
  'data\n\n' +
  'id: only-meta\n\n' +
  'data: [DONE]\n\n';

describe('SseReader framing', () => {
  it('parses LF-terminated events and reports byte offsets of each block', () => {
    const input = 'data: one\n\ndata: two\n\n';
    const { events, end } = readAllSse(bytes(input));
    expect(events.map((e) => e.data)).toEqual(['one', 'two']);
    expect(events[0]).toMatchObject({ startOffset: 0, endOffset: 10, kind: 'message', dataLines: 1 });
    expect(events[1]).toMatchObject({ startOffset: 11, endOffset: 21, index: 1 });
    expect(end.findings).toEqual([]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['lone CR', '\r'],
  ])('accepts %s line endings', (_name, eol) => {
    const input = `data: a${eol}data: b${eol}${eol}: c${eol}data: z${eol}${eol}`;
    const { events, end, stats } = readAllSse(bytes(input));
    expect(events.map((e) => e.data)).toEqual(['a\nb', 'z']);
    expect(end.findings).toEqual([]);
    const key = eol === '\n' ? 'lf' : eol === '\r\n' ? 'crlf' : 'cr';
    expect(stats.lineEndings[key]).toBe(6);
  });

  it('accepts mixed line endings within one stream', () => {
    const { events } = readAllSse(bytes('data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r'));
    expect(events.map((e) => e.data)).toEqual(['a\nb\nc', 'd']);
  });

  it('strips exactly one space after the colon and none when absent', () => {
    const { events } = readAllSse(bytes('data:x\n\ndata: y\n\ndata:  z\n\n'));
    expect(events.map((e) => e.data)).toEqual(['x', 'y', ' z']);
  });

  it('treats a field name without a colon as the field with an empty value', () => {
    const { events } = readAllSse(bytes('data\n\ndata\ndata\n\n'));
    expect(events.map((e) => e.data)).toEqual(['', '\n']);
  });

  it('ignores comment lines and counts them, including a comment-only block', () => {
    const { events, stats } = readAllSse(bytes(': ping\n\n:\ndata: x\n: mid\n\n'));
    expect(events.map((e) => e.data)).toEqual(['x']);
    expect(stats.comments).toBe(3);
    expect(stats.firstCommentOffset).toBe(0);
    expect(events[0]?.startOffset).toBe(10);
  });

  it('reports event, id and retry fields of a block', () => {
    const { events } = readAllSse(bytes('event: delta\nid: 42\nretry: 3000\ndata: x\n\n'));
    expect(events[0]).toMatchObject({ event: 'delta', id: '42', retry: 3000, data: 'x' });
  });

  it('yields blocks without data as meta events, which the standard does not dispatch', () => {
    const { events } = readAllSse(bytes('id: 5\nretry: 10\n\ndata: x\n\n'));
    expect(events.map((e) => e.kind)).toEqual(['meta', 'message']);
    expect(events[0]).toMatchObject({ id: '5', retry: 10, data: '' });
  });

  it('strips a leading BOM and counts its bytes in offsets, but not a BOM later in the stream', () => {
    const { events, stats, end } = readAllSse(bytes('\uFEFFdata: a\n\n\uFEFFdata: b\n\n'));
    expect(stats.bom).toBe(true);
    expect(events[0]).toMatchObject({ data: 'a', startOffset: 3 });
    expect(events[1]).toMatchObject({ kind: 'meta', startOffset: 12 });
    expect(end.findings).toEqual([expect.objectContaining({ code: 'unknown-field', offset: 12 })]);
  });

  it('reports invalid UTF-8 with the offset of the bad byte and decodes with U+FFFD', () => {
    const input = Uint8Array.from([...bytes('data: ab'), 0xff, ...bytes('c\n\n')]);
    const { events, end } = readAllSse(input);
    expect(events[0]?.data).toBe('ab\uFFFDc');
    expect(end.findings).toEqual([expect.objectContaining({ code: 'invalid-utf8', offset: 8 })]);
  });

  it('reports an overlong encoding and a truncated sequence as invalid UTF-8', () => {
    expect(firstInvalidUtf8(Uint8Array.from([0x61, 0xc0, 0x80]), 0, 3)).toBe(1);
    expect(firstInvalidUtf8(Uint8Array.from([0x61, 0x62, 0xe4, 0xb8]), 0, 4)).toBe(2);
    expect(firstInvalidUtf8(Uint8Array.from([0xed, 0xa0, 0x80]), 0, 3)).toBe(0);
    expect(firstInvalidUtf8(bytes('héllo 😀'), 0, bytes('héllo 😀').length)).toBe(bytes('héllo 😀').length);
  });

  it('reports a stream that ends mid-event and mid-line, with the partial event', () => {
    const { events, end } = readAllSse(bytes('data: a\n\ndata: b\ndata: [DONE]'));
    expect(events.map((e) => e.data)).toEqual(['a']);
    expect(end.findings.map((f) => [f.code, f.offset])).toEqual([
      ['ended-mid-line', 17],
      ['ended-mid-event', 9],
    ]);
    expect(end.unterminatedLine?.text).toBe('data: [DONE]');
    expect(end.partialEvent).toMatchObject({ data: 'b', startOffset: 9 });
  });

  it('does not report a stream that ends after a dangling comment as mid-event', () => {
    const { end } = readAllSse(bytes('data: a\n\n: bye'));
    expect(end.findings.map((f) => f.code)).toEqual(['ended-mid-line']);
    expect(end.partialEvent).toBeUndefined();
  });

  it('reports unknown fields, non-digit retry and NUL in id, and ignores them', () => {
    const { events, end } = readAllSse(bytes('foo: bar\nretry: 1s\nid: a\u0000b\ndata: x\n\n'));
    expect(events[0]).toMatchObject({ data: 'x', retry: undefined, id: undefined });
    expect(end.findings.map((f) => [f.code, f.offset])).toEqual([
      ['unknown-field', 0],
      ['invalid-retry', 9],
      ['id-contains-nul', 19],
    ]);
  });

  it('discards a line longer than the limit and resynchronises on the next terminator', () => {
    const reader = new SseReader({ maxLineBytes: 16 });
    const out = [...reader.feed(bytes('data: ' + 'x'.repeat(40)), 1n), ...reader.feed(bytes('yyy\ndata: ok\n\n'), 2n)];
    expect(out.map((e) => e.data)).toEqual(['ok']);
    expect(reader.findings[0]).toMatchObject({ code: 'line-too-long', offset: 0 });
  });

  it('discards a line over the limit whether it arrives in one read or several (fuzz finding: a whole line in one read was kept)', () => {
    const input = bytes(`e${'x'.repeat(66)}:\n\ndata: ok\n\n`);
    for (const cuts of [[], [1], [30, 60]]) {
      const reader = new SseReader({ maxLineBytes: 64 });
      const reads = [...cuts, input.length].map((c, i, all) => input.subarray(i === 0 ? 0 : (all[i - 1] as number), c));
      const events = reads.flatMap((r, i) => [...reader.feed(r, BigInt(i))]);
      expect(events.map((e) => e.data)).toEqual(['ok']);
      expect(reader.findings.map((f) => [f.code, f.offset])).toEqual([['line-too-long', 0]]);
    }
  });

  it('a discarded over-long line ending in a CRLF split across reads leaves the block\'s line ending as its last field line\'s (fuzz finding)', () => {
    const input = bytes(`id: 4\n${'x'.repeat(70)}\r\n\n`);
    const eol = (cuts: number[]) => {
      const reader = new SseReader({ maxLineBytes: 64 });
      const reads = [...cuts, input.length].map((c, i, all) => input.subarray(i === 0 ? 0 : (all[i - 1] as number), c));
      return reads.flatMap((r, i) => [...reader.feed(r, BigInt(i))]).map((e) => e.eol);
    };
    expect(eol([])).toEqual(['lf']);
    expect(eol([input.length - 2])).toEqual(['lf']);
    expect(eol([20, input.length - 2])).toEqual(['lf']);
  });

  it('stamps each event with the arrival time and index of the read that completed it', () => {
    const reader = new SseReader();
    expect(reader.feed(bytes('data: a\n'), 10n)).toEqual([]);
    const [ev] = reader.feed(bytes('\ndata: b'), 20n);
    expect(ev).toMatchObject({ data: 'a', arrivedAt: 20n, chunkIndex: 1 });
  });

  it('joins a CRLF split across two reads into one terminator', () => {
    const { events, reader } = readSplit(bytes('data: a\r\n\r\ndata: b\r\n\r\n'), [8, 10]);
    expect(events.map((e) => e.data)).toEqual(['a', 'b']);
    expect(reader.stats.lineEndings).toEqual({ lf: 0, crlf: 4, cr: 0 });
  });

  it('keeps a CRLF together across an empty read between CR and LF', () => {
    const { events } = readSplit(bytes('data: x\r\ndata: y\r\n\r\n'), [8, 8]);
    expect(events.map((e) => e.data)).toEqual(['x\ny']);
  });

  it('produces the same events for the sample stream split at every single byte position', () => {
    const input = bytes(sample);
    const whole = readAllSse(input).events.map(meaning);
    expect(whole.map((e) => e.data)).toEqual(['{"a":"héllo 😀 世界"}', 'no-space\n two spaces', '', '', '[DONE]']);
    for (let cut = 1; cut < input.length; cut++) {
      expect(readSplit(input, [cut]).events.map(meaning)).toEqual(whole);
    }
  });

  it('produces the same events when the sample stream arrives one byte per read', () => {
    const input = bytes(sample);
    const cuts = Array.from({ length: input.length - 1 }, (_, i) => i + 1);
    const { events, end } = readSplit(input, cuts);
    expect(events.map(meaning)).toEqual(readAllSse(input).events.map(meaning));
    expect(end.findings).toEqual([]);
  });

  it('any split of a valid stream yields the same events (property)', () => {
    const field = fc.constantFrom('data', 'event', 'id', 'data', 'data');
    const text = fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/[\r\n\u0000]/g, ''));
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    const line = fc.oneof(
      fc.tuple(field, fc.constantFrom(':', ': '), text).map(([f, c, v]) => f + c + v),
      text.map((v) => ':' + v),
    );
    const block = fc.tuple(fc.array(fc.tuple(line, eol), { minLength: 1, maxLength: 4 }), eol).map(
      ([lines, end]) => lines.map(([l, e]) => l + e).join('') + end,
    );
    const stream = fc.tuple(fc.boolean(), fc.array(block, { maxLength: 5 })).map(([bom, blocks]) => bytes((bom ? '\uFEFF' : '') + blocks.join('')));
    fc.assert(
      fc.property(
        stream.chain((input) =>
          fc.tuple(fc.constant(input), fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, input.length - 1) }), { maxLength: 12 })),
        ),
        ([input, cuts]) => {
          const sorted = cuts.filter((c) => c < input.length).sort((a, b) => a - b);
          const whole = readAllSse(input);
          const split = readSplit(input, sorted);
          expect(split.events.map(meaning)).toEqual(whole.events.map(meaning));
          expect(split.end.findings.map((f) => [f.code, f.offset])).toEqual(whole.end.findings.map((f) => [f.code, f.offset]));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses to be fed after end', () => {
    const reader = new SseReader();
    reader.end();
    expect(() => reader.feed(bytes('x'), 0n)).toThrow(/after end/);
  });
});

describe('SseReader on arbitrary bytes', () => {
  it('never throws, and reports events with increasing, in-bounds offsets (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uniqueArray(fc.integer({ min: 1, max: 299 }), { maxLength: 8 }), (input, cuts) => {
        const sorted = cuts.filter((c) => c < input.length).sort((a, b) => a - b);
        const { events, end } = readSplit(input, sorted);
        let prev = -1;
        for (const ev of events) {
          expect(ev.startOffset).toBeGreaterThan(prev);
          expect(ev.endOffset).toBeGreaterThanOrEqual(ev.startOffset);
          expect(ev.endOffset).toBeLessThanOrEqual(input.length);
          prev = ev.endOffset;
        }
        for (const f of end.findings) expect(f.offset).toBeLessThanOrEqual(input.length);
      }),
      { numRuns: 500 },
    );
  });
});

describe('SseReader bounds', () => {
  it('CHAT-STREAM-046: an event whose data lines pass the limit is reported once and discarded, not buffered; the next event is read', () => {
    const reader = new SseReader({ maxEventBytes: 1000 });
    const out: SseEvent[] = [];
    for (let i = 0; i < 100; i++) out.push(...reader.feed(bytes(`data: ${'x'.repeat(98)}\n`), 0n));
    out.push(...reader.feed(bytes('\ndata: {"ok":true}\n\n'), 1n));
    const end = reader.end();
    expect(out.map((e) => e.data)).toEqual(['{"ok":true}']);
    expect(end.findings.filter((f) => f.code === 'event-too-long')).toHaveLength(1);
  });

  it('keeps at most 50 findings of one code, counting the rest, however many bad lines arrive', () => {
    const reader = new SseReader();
    reader.feed(bytes('nope: 1\n'.repeat(10_000) + '\n'), 0n);
    const end = reader.end();
    expect(end.findings.filter((f) => f.code === 'unknown-field')).toHaveLength(50);
    expect(reader.suppressedFindings).toBe(10_000 - 50);
  });
});
