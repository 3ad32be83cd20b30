import { open, stat } from 'node:fs/promises';
import { ChainVerifier, type ChainVerifyResult } from './chain-verifier.ts';
import { ReceiptSplitter, type SplitItem } from './receipt-splitter.ts';
import { DEFAULT_LIMITS } from './strict-json.ts';
import type { VerifyOptions } from './verify-options.ts';
import { defaultJobs, ParallelFeeder } from './verify-pool.ts';

function handle(verifier: ChainVerifier, item: SplitItem): void {
  if (item.kind === 'receipt') verifier.push(item.bytes);
  else if (item.kind === 'oversize') {
    verifier.pushUnreadable('JSON_LIMITS', `Receipt of ${item.size} bytes is larger than the limit`);
  } else verifier.addInputFinding({ code: 'JSON_SYNTAX', index: null, detail: item.detail });
}

/**
 * Verifies one Mandate's chain given as Receipt values (serialised and read strictly, like any
 * input) or as JSONL / JSON-array text or bytes.
 */
export function verifyChain(input: readonly unknown[] | string | Uint8Array, options: VerifyOptions = {}): ChainVerifyResult {
  const verifier = new ChainVerifier(options);
  if (Array.isArray(input)) {
    for (const value of input) {
      let text: string | undefined;
      try {
        text = JSON.stringify(value);
      } catch {
        text = undefined;
      }
      verifier.push(text ?? '');
    }
  } else {
    const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : (input as Uint8Array);
    const splitter = new ReceiptSplitter((options.limits ?? DEFAULT_LIMITS).maxBytes);
    splitter.feed(bytes, (item) => handle(verifier, item));
    splitter.end((item) => handle(verifier, item));
  }
  return verifier.finish();
}

export interface StreamOptions {
  /**
   * Worker threads for the per-Receipt checks (signatures included) of a long chain; default the
   * number of cores. 1 keeps everything on this thread; the chain logic always stays here.
   */
  jobs?: number;
  /** The input's length when known (a file's size): a long input starts its worker threads at once instead of after 1,000 Receipts. */
  expectedBytes?: number;
}

/** Streams JSONL or a JSON array of Receipts from any byte stream, in bounded memory. */
export async function verifyReceiptStream(stream: AsyncIterable<Uint8Array>, options: VerifyOptions & StreamOptions = {}): Promise<ChainVerifyResult> {
  const verifier = new ChainVerifier(options);
  const splitter = new ReceiptSplitter((options.limits ?? DEFAULT_LIMITS).maxBytes);
  const feeder = new ParallelFeeder(verifier, options.jobs ?? defaultJobs(), options.expectedBytes ?? 0);
  try {
    for await (const chunk of stream) {
      splitter.feed(chunk, (item) => feeder.item(item));
      await feeder.settle();
    }
    splitter.end((item) => feeder.item(item));
    await feeder.finish();
  } finally {
    await feeder.close();
  }
  return verifier.finish();
}

/**
 * Reads a file into one reused 1 MiB buffer. A read stream allocates a new buffer per chunk, and
 * the spent ones wait for a full collection as external memory (tens of MiB on a long chain); the
 * splitter copies every Receipt out of the chunk before the next read, so reuse is safe.
 */
async function* readReusingBuffer(path: string): AsyncGenerator<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafeSlow(1 << 20);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await file.close();
  }
}

/** Streams a file (read errors reject the promise; the caller maps them to "unreadable input"). */
export async function verifyReceiptFile(path: string, options: VerifyOptions & StreamOptions = {}): Promise<ChainVerifyResult> {
  // The size only decides when worker threads start (a long file: at once); what is read is the stream.
  const size = await stat(path).then(
    (s) => (s.isFile() ? s.size : 0),
    () => 0,
  );
  return verifyReceiptStream(readReusingBuffer(path), { ...options, expectedBytes: size });
}
