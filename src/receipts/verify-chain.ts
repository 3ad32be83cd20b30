import { createReadStream } from 'node:fs';
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
}

/** Streams JSONL or a JSON array of Receipts from any byte stream, in bounded memory. */
export async function verifyReceiptStream(stream: AsyncIterable<Uint8Array>, options: VerifyOptions & StreamOptions = {}): Promise<ChainVerifyResult> {
  const verifier = new ChainVerifier(options);
  const splitter = new ReceiptSplitter((options.limits ?? DEFAULT_LIMITS).maxBytes);
  const feeder = new ParallelFeeder(verifier, options.jobs ?? defaultJobs());
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

/** Streams a file (read errors reject the promise; the caller maps them to "unreadable input"). */
export function verifyReceiptFile(path: string, options: VerifyOptions & StreamOptions = {}): Promise<ChainVerifyResult> {
  return verifyReceiptStream(createReadStream(path, { highWaterMark: 1 << 20 }), options);
}
