import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw, type Gunzip } from 'node:zlib';
import { formatBytes, responseLimits, violation, type BoundViolation } from './body-limits.ts';

/** A body read to its end or to a bound: what arrived (decoded), when, and why it stopped early. */
export interface BoundedBody {
  /** Decoded bytes as they came out, with their arrival in ms since `startedAt`. */
  chunks: { at: number; bytes: Uint8Array }[];
  /** Decoded bytes in all. */
  bytes: number;
  /** Bytes on the wire. */
  wireBytes: number;
  /** The content coding that was undone, if any. */
  decoded: string | undefined;
  /** The bound the body crossed (iari stopped reading), if it did. */
  violation: BoundViolation | undefined;
  /** Any other reason the body ended early (the server's reset, a deadline, a corrupt coding). */
  error: unknown;
}

class BoundCrossed extends Error {
  constructor(readonly violation: BoundViolation) {
    super(violation.message);
  }
}

/**
 * The decoder for a Content-Encoding the way fetch-based clients undo it (gzip, deflate with or
 * without its zlib wrapper, br); undefined for identity or a coding nobody decodes (the bytes are
 * then judged as they are).
 */
function decoderFor(encoding: string | undefined): { name: string; make: (first: number) => Transform } | undefined {
  const e = encoding?.trim().toLowerCase();
  if (e === 'gzip' || e === 'x-gzip') return { name: e, make: () => createGunzip() as Gunzip };
  // "deflate" is meant to be zlib-wrapped; servers also send raw deflate (a zlib header's low nibble is 8).
  if (e === 'deflate') return { name: e, make: (first) => ((first & 0x0f) === 8 ? createInflate() : createInflateRaw()) };
  if (e === 'br') return { name: e, make: () => createBrotliDecompress() };
  return undefined;
}

/**
 * Reads a response body within the body limits (body-limits.ts): at most `maxWireBytes` on the
 * wire (HDR-013) and, for a content-coded body, at most `maxDecodedBytes` inflated (HDR-014),
 * counting the inflated bytes as they come out and stopping the inflater at the bound, so a
 * decompression bomb never grows past it. Never rejects: the outcome says how the body ended.
 */
export async function readBounded(
  body: Readable,
  contentEncoding: string | undefined,
  startedAt: number,
  limits: { maxWireBytes?: number; maxDecodedBytes?: number } = {},
): Promise<BoundedBody> {
  const maxWire = limits.maxWireBytes ?? responseLimits.bodyBytes;
  const maxDecoded = limits.maxDecodedBytes ?? responseLimits.decodedBytes;
  const coding = decoderFor(contentEncoding);
  const out: BoundedBody = { chunks: [], bytes: 0, wireBytes: 0, decoded: coding?.name, violation: undefined, error: undefined };
  let decoder: Transform | undefined;
  const wire = new Transform({
    transform(chunk: Buffer, _enc, done) {
      out.wireBytes += chunk.length;
      if (out.wireBytes > maxWire) return done(new BoundCrossed(violation('body-size', `the response body is longer than ${formatBytes(maxWire)}; iari stopped reading it`)));
      done(null, chunk);
    },
  });
  // The inflater is chosen on the first byte (raw or wrapped deflate), then fed everything.
  const decode = new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (decoder === undefined && coding !== undefined) {
        decoder = coding.make(chunk[0] ?? 0);
        decoder.on('data', (d: Buffer) => this.push(d));
        decoder.on('error', (e) => this.destroy(e));
      }
      if (decoder === undefined) return done(null, chunk);
      if (decoder.write(chunk)) done();
      else decoder.once('drain', () => done());
    },
    flush(done) {
      if (decoder === undefined) return done();
      decoder.once('end', () => done());
      decoder.end();
    },
  });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.bytes += chunk.length;
      if (coding !== undefined && out.bytes > maxDecoded) {
        return done(new BoundCrossed(violation('decoded-size', `the ${coding.name}-encoded response body inflates past ${formatBytes(maxDecoded)} (${formatBytes(out.wireBytes)} on the wire so far); iari stopped inflating it`)));
      }
      out.chunks.push({ at: performance.now() - startedAt, bytes: chunk });
      done();
    },
  });
  try {
    await (coding === undefined ? pipeline(body, wire, sink) : pipeline(body, wire, decode, sink));
  } catch (error) {
    if (error instanceof BoundCrossed) out.violation = error.violation;
    else out.error = error;
  } finally {
    decoder?.destroy();
  }
  if (out.violation?.kind === 'decoded-size') out.bytes = out.chunks.reduce((n, c) => n + c.bytes.byteLength, 0);
  return out;
}
