import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_FINDING_CODES } from '../../src/receipts/index.ts';
import { VECTORS_PATH, vectorsFileText } from '../../scripts/gen-receipt-vectors.ts';
import { pairs, runVectorOutcome, type VectorFile } from './vector-runner.ts';

const committed = readFileSync(VECTORS_PATH, 'utf8');
const file = JSON.parse(committed) as VectorFile;
const tests = file.testGroups.flatMap((g) => g.tests);

describe('receipt test vectors (fixtures/receipts)', () => {
  it('the committed vector file is exactly what scripts/gen-receipt-vectors.ts generates', () => {
    expect(vectorsFileText() === committed, 'fixtures/receipts/receipt_chain_test.json is stale: run npx tsx scripts/gen-receipt-vectors.ts').toBe(true);
  });

  it('holds at least 80 vectors, valid and invalid, with unique tcIds', () => {
    expect(tests.length).toBeGreaterThanOrEqual(80);
    expect(file.numberOfTests).toBe(tests.length);
    expect(new Set(tests.map((t) => t.tcId)).size).toBe(tests.length);
    expect(tests.some((t) => t.result === 'valid')).toBe(true);
    expect(tests.some((t) => t.result === 'invalid')).toBe(true);
  });

  it('covers every finding code of the closed set', () => {
    const seen = new Set(tests.flatMap((t) => [...t.errors, ...t.warnings].map((f) => f.code)));
    expect(ALL_FINDING_CODES.filter((c) => !seen.has(c))).toEqual([]);
  });

  it.each(tests.map((t) => [t.tcId, t.comment, t] as const))('vector %i: %s', (_id, _comment, t) => {
    const r = runVectorOutcome(t);
    expect(r.result).toBe(t.result);
    if (r.result === 'refused') {
      expect(r.refusal).toBe(t.refusal);
      return;
    }
    expect(pairs(r.chain.errors)).toEqual(pairs(t.errors));
    expect(pairs(r.chain.warnings)).toEqual(pairs(t.warnings));
  });
});
