import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import type { VerifyOptions } from '../src/receipts/index.ts';

interface Vectors {
  constants: { grantId: string; token: string; tokenCommitment: string; now: number };
  keys: Record<string, { keyref: string }>;
  testGroups: { tests: { input: { text?: string; base64?: string } }[] }[];
}

const vectors = JSON.parse(readFileSync(new URL('../fixtures/receipts/receipt_chain_test.json', import.meta.url), 'utf8')) as Vectors;

/** The input files of the Receipt chain vectors (fixtures/receipts/receipt_chain_test.json): JSONL and JSON arrays, valid and broken. */
export function vectorInputs(): Uint8Array[] {
  return vectors.testGroups.flatMap((g) => g.tests.map((t) => new Uint8Array(t.input.base64 === undefined ? Buffer.from(t.input.text ?? '', 'utf8') : Buffer.from(t.input.base64, 'base64'))));
}

const keyref = (name: string): string => vectors.keys[name]?.keyref ?? '';

/** Options that reach every check: the vectors' keys trusted, level 3, JCS wire, a grant and token. */
export const richOptions: VerifyOptions = {
  level: 3,
  trustedIssuers: [keyref('issuer')],
  approvers: [keyref('approver')],
  tokenCommitments: [vectors.constants.tokenCommitment],
  grantId: vectors.constants.grantId,
  strictWire: true,
  now: vectors.constants.now,
  maxFindings: 20,
};

/** What a verifier is given with no configuration but a clock. */
export const plainOptions: VerifyOptions = { now: vectors.constants.now };

/** Valid chains (the vectors), cut into lines, rejoined as a JSON array or as JSONL with CRLF and blank lines. */
export const chainFiles: fc.Arbitrary<Uint8Array> = fc
  .tuple(fc.constantFrom(...vectorInputs()), fc.constantFrom('jsonl', 'crlf', 'array', 'array-spaced', 'as-is'))
  .map(([input, layout]) => {
    const text = Buffer.from(input).toString('utf8');
    const lines = text.trim().startsWith('[') ? [text] : text.split('\n').filter((l) => l.trim() !== '');
    switch (layout) {
      case 'jsonl':
        return Buffer.from(`${lines.join('\n')}\n`);
      case 'crlf':
        return Buffer.from(`\r\n${lines.join('\r\n\r\n')}\r\n`);
      case 'array':
        return Buffer.from(`[${lines.join(',')}]`);
      case 'array-spaced':
        return Buffer.from(`  [\n  ${lines.join(' ,\n\t')}\n]  \n`);
      default:
        return input;
    }
  })
  .map((b) => new Uint8Array(b));
