import { verifyChain, type ChainVerifyResult, type ReceiptPayloads, type VerifyOptions } from '../../src/receipts/index.ts';

export interface VectorTest {
  tcId: number;
  comment: string;
  flags: string[];
  options: Omit<VerifyOptions, 'payloads'> & { payloads?: Record<string, ReceiptPayloads> };
  input: { text: string } | { base64: string };
  result: 'valid' | 'invalid';
  errors: { code: string; index: number | null }[];
  warnings: { code: string; index: number | null }[];
}

export interface VectorFile {
  numberOfTests: number;
  testGroups: { type: string; tests: VectorTest[] }[];
}

/** Runs one vector through the library verifier (payload maps become the payloads callback). */
export function runVector(t: VectorTest): ChainVerifyResult {
  const { payloads, ...rest } = t.options;
  const options: VerifyOptions = { ...rest };
  if (payloads !== undefined) options.payloads = (index) => payloads[String(index)];
  const bytes = 'text' in t.input ? new TextEncoder().encode(t.input.text) : new Uint8Array(Buffer.from(t.input.base64, 'base64'));
  return verifyChain(bytes, options);
}

export const pairs = (list: readonly { code: string; index: number | null }[]) => list.map((f) => `${f.code}@${f.index ?? 'chain'}`).sort();
