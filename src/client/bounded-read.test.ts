import { Readable } from 'node:stream';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readBounded } from './bounded-read.ts';

const MiB = 1024 * 1024;
const body = (buf: Buffer, piece = 64 * 1024): Readable => Readable.from((function* () {
  for (let i = 0; i < buf.length; i += piece) yield buf.subarray(i, i + piece);
})());

describe('readBounded', () => {
  it('HDR-014: a gzip bomb (64 MiB inflated from about 64 KiB) stops at the inflated limit, never holding more than it', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * MiB, 0x20), { level: 9 });
    expect(bomb.length).toBeLessThan(MiB);
    const r = await readBounded(body(bomb), 'gzip', performance.now(), { maxDecodedBytes: 4 * MiB });
    expect(r.violation?.requirementId).toBe('HDR-014');
    expect(r.violation?.message).toMatch(/gzip-encoded response body inflates past 4 MiB/);
    expect(r.bytes).toBeLessThanOrEqual(4 * MiB);
  });

  it('HDR-013: a body longer than the wire limit stops there', async () => {
    const r = await readBounded(body(Buffer.alloc(3 * MiB, 0x61)), undefined, performance.now(), { maxWireBytes: MiB });
    expect(r.violation?.requirementId).toBe('HDR-013');
    expect(r.wireBytes).toBeLessThanOrEqual(MiB + 64 * 1024);
  });

  it('undoes gzip, wrapped and raw deflate and br the way fetch does, and leaves identity and unknown codings alone', async () => {
    const text = Buffer.from(JSON.stringify({ hello: 'x'.repeat(100_000) }));
    for (const [enc, data] of [['gzip', gzipSync(text)], ['deflate', deflateSync(text)], ['deflate', deflateRawSync(text)], ['br', brotliCompressSync(text)], [undefined, text], ['zstd', text]] as const) {
      const r = await readBounded(body(data, 1000), enc, performance.now());
      expect(r.violation, String(enc)).toBeUndefined();
      expect(r.error, String(enc)).toBeUndefined();
      expect(Buffer.concat(r.chunks.map((c) => c.bytes)).equals(text), String(enc)).toBe(true);
    }
  });

  it('reports a corrupt coding as an error of the body, with what inflated before it', async () => {
    const good = gzipSync(Buffer.from('abc'.repeat(1000)));
    const r = await readBounded(body(Buffer.concat([good.subarray(0, 20), Buffer.from('garbage garbage')]), 8), 'gzip', performance.now());
    expect(r.violation).toBeUndefined();
    expect(r.error).toBeInstanceOf(Error);
  });
});
