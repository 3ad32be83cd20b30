import { describe, expect, it } from 'vitest';
import { readAllSse } from '../src/client/sse-reader.ts';
import { chunk, frame, textCompletion, usageChunk, type FrameOptions } from './stream-builder.ts';

const enc = new TextEncoder();

describe('stream builder', () => {
  const events = [...textCompletion(['a\nb', 'ç']), usageChunk(1, 2)];
  it.each<[string, FrameOptions]>([
    ['LF', {}],
    ['CRLF', { eol: '\r\n' }],
    ['CR', { eol: '\r' }],
    ['no space, BOM and comments', { noSpace: true, bom: true, comment: ' k' }],
  ])('frames payloads that the reader gives back unchanged (%s)', (_name, options) => {
    const { events: read, stats } = readAllSse(enc.encode(frame(events, options)));
    expect(read.map((e) => e.data)).toEqual([...events.map((e) => JSON.stringify(e)), '[DONE]']);
    expect(stats.bom).toBe(options.bom === true);
    expect(stats.comments).toBe(options.comment === undefined ? 0 : events.length + 1);
  });

  it('splits a string payload with newlines over several data lines and passes raw events through', () => {
    const text = frame(['x\ny', { raw: ': raw\n\n' }], { done: false });
    expect(text).toBe('data: x\ndata: y\n\n: raw\n\n');
  });

  it('builds chunks with an explicit finish_reason and usage member', () => {
    expect(chunk({}, { finish: 'stop', usage: 'null', index: 1 })).toMatchObject({ choices: [{ index: 1, delta: {}, finish_reason: 'stop' }], usage: null });
    expect('usage' in chunk({})).toBe(false);
  });
});
