import { checkVerifyOptions, readPayloadsText, verifyChain, VerifyOptionsError, type ChainVerifyResult, type ReceiptPayloads, type VerifyOptions } from '../../src/receipts/index.ts';

export interface VectorTest {
  tcId: number;
  comment: string;
  flags: string[];
  /** payloads: Receipt index → payloads; payloadsFile: the text of a --payloads FILE (Receipt id → payloads). */
  options: Omit<VerifyOptions, 'payloads'> & { payloads?: Record<string, ReceiptPayloads>; payloadsFile?: string };
  input: { text: string } | { base64: string };
  /** refused: the verifier refuses the options before reading any Receipt (the CLI exits 2); `refusal` says why. */
  result: 'valid' | 'invalid' | 'refused';
  refusal?: 'TRUSTED_KEY_INVALID' | 'APPROVER_KEY_INVALID' | 'PAYLOADS_INVALID';
  errors: { code: string; index: number | null }[];
  warnings: { code: string; index: number | null }[];
}

export interface VectorFile {
  numberOfTests: number;
  testGroups: { type: string; tests: VectorTest[] }[];
}

export type VectorOutcome = { result: 'refused'; refusal: NonNullable<VectorTest['refusal']> } | { result: 'valid' | 'invalid'; chain: ChainVerifyResult };

/**
 * Runs one vector through the library, refusals in the order D-RCPT-21 gives when several options are
 * bad: the trusted issuer keys, then the approver keys, then the payloads file (as iari receipts verify).
 */
export function runVectorOutcome(t: VectorTest): VectorOutcome {
  const { payloads, payloadsFile, ...rest } = t.options;
  const options: VerifyOptions = { ...rest };
  const keys = checkVerifyOptions(options);
  if (!keys.ok) return { result: 'refused', refusal: keys.code };
  if (payloads !== undefined) options.payloads = (index) => payloads[String(index)];
  if (payloadsFile !== undefined) {
    const read = readPayloadsText(payloadsFile);
    if (!read.ok) return { result: 'refused', refusal: 'PAYLOADS_INVALID' };
    options.payloads = (_index, id) => (id === undefined ? undefined : read.byId.get(id));
  }
  const bytes = 'text' in t.input ? new TextEncoder().encode(t.input.text) : new Uint8Array(Buffer.from(t.input.base64, 'base64'));
  try {
    const chain = verifyChain(bytes, options);
    return { result: chain.valid ? 'valid' : 'invalid', chain };
  } catch (error) {
    if (error instanceof VerifyOptionsError) return { result: 'refused', refusal: error.code };
    throw error;
  }
}

/** Runs a vector the verifier does not refuse (throws for a refused one). */
export function runVector(t: VectorTest): ChainVerifyResult {
  const o = runVectorOutcome(t);
  if (o.result === 'refused') throw new Error(`vector ${t.tcId} is refused (${o.refusal})`);
  return o.chain;
}

export const pairs = (list: readonly { code: string; index: number | null }[]) => list.map((f) => `${f.code}@${f.index ?? 'chain'}`).sort();
