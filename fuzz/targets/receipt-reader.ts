import { isDeepStrictEqual } from 'node:util';
import { ALL_FINDING_CODES, verifyChain, verifyReceiptStream, type ChainVerifyResult, type VerifyOptions } from '../../src/receipts/index.ts';
import { chainFiles, plainOptions, richOptions, vectorInputs } from '../receipt-inputs.ts';
import { cutsOf, holds, ownErrorsOnlyAsync, show, split, type FuzzTarget } from '../target.ts';

const codes = new Set<string>(ALL_FINDING_CODES);

async function* chunks(reads: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const r of reads) yield r;
}

function sane(r: ChainVerifyResult, o: VerifyOptions): void {
  const kept = [...r.errors, ...r.warnings];
  for (const f of kept) {
    holds(codes.has(f.code), () => `finding code ${show(f.code)} is not in the closed set`);
    holds(f.index === null || (Number.isInteger(f.index) && f.index >= 0 && f.index < r.count), () => `finding ${f.code} at index ${f.index} of ${r.count} Receipts`);
  }
  holds(r.valid === (r.errors.length === 0), () => `valid is ${r.valid} with errors ${show(r.errors.map((e) => e.code))}`);
  holds(r.errors.length <= (o.maxFindings ?? 1000), () => `${r.errors.length} errors kept over maxFindings ${o.maxFindings}`);
}

async function run(input: Uint8Array): Promise<void> {
  for (const options of [plainOptions, richOptions]) {
    const whole = await ownErrorsOnlyAsync(async () => verifyChain(input, options), () => false, 'verifyChain');
    if (!whole.ok) return;
    sane(whole.value, options);
    // The streaming reader (one thread) reads the same chain from any reads.
    const streamed = await ownErrorsOnlyAsync(() => verifyReceiptStream(chunks(split(input, cutsOf(input))), { ...options, jobs: 1 }), () => false, 'verifyReceiptStream');
    if (!streamed.ok) return;
    holds(isDeepStrictEqual(streamed.value, whole.value), () => `streamed in reads, the result differs: ${show(streamed.value.errors.map((e) => e.code))} vs ${show(whole.value.errors.map((e) => e.code))}`);
  }
}

export const receiptReader: FuzzTarget = {
  name: 'receipt-reader',
  sources: ['src/receipts/verify-chain.ts', 'src/receipts/chain-verifier.ts', 'src/receipts/receipt-checks.ts', 'src/receipts/receipt-facts.ts', 'src/receipts/receipt-schema.ts', 'src/receipts/ed25519.ts', 'src/receipts/keyref.ts', 'src/receipts/base64url.ts'],
  invariants: [
    'verifyChain and verifyReceiptStream never throw on any file (fixed, valid options): every problem is a finding',
    'every finding code is in the closed set (FINDING_TABLE), at the index of a Receipt read or of the chain; valid exactly when no error; at most maxFindings kept',
    'the file streamed in any reads gives the same result as read whole',
    'one input of up to 32 KiB takes at most 5 s (signatures included)',
  ],
  maxLen: 32 * 1024,
  timeBoundMs: 5_000,
  valid: chainFiles,
  seeds: vectorInputs,
  async: true,
  run,
};
