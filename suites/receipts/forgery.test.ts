import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalString, decodeKeyref, Ed25519Key, encodeBase64url, parseStrictText, receiptSigInput } from '../../src/receipts/index.ts';
import { VECTORS_PATH } from '../../scripts/gen-receipt-vectors.ts';
import { pairs, runVector, type VectorFile, type VectorTest } from './vector-runner.ts';

// Issue 13 / D-RCPT-25: findings never hide a forgery. Every invalid vector is taken again with the
// envelope signature of each Receipt it reports on replaced by a signature of the same bytes by
// another key: the verifier must report SIG_INVALID there, and still every finding it reported at
// that Receipt before (other Receipts may change: the forged Receipt's digest changes its links).

const file = JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as VectorFile;
const FORGER = Ed25519Key.fromSeed(new Uint8Array(32).fill(9));
// Vectors about the signature value or the wire form itself are left out: forging rewrites both.
const SKIP = (code: string) => code.startsWith('JSON_') || ['SIG_INVALID', 'SIG_NONCANONICAL', 'BAD_SIG_ENCODING', 'NONCANONICAL_BASE64URL', 'WIRE_NOT_CANONICAL', 'DUPLICATE_RECEIPT'].includes(code);
type Obj = Record<string, unknown>;

function cases(): { name: string; test: VectorTest; at: number }[] {
  const out: { name: string; test: VectorTest; at: number }[] = [];
  for (const g of file.testGroups) {
    for (const t of g.tests) {
      if (t.result !== 'invalid' || !('text' in t.input) || t.input.text.trimStart().startsWith('[')) continue;
      const lines = t.input.text.split('\n');
      for (const at of new Set(t.errors.map((e) => e.index).filter((i): i is number => i !== null))) {
        if (t.errors.some((e) => e.index === at && SKIP(e.code))) continue;
        const parsed = parseStrictText(lines[at] ?? '');
        if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) continue;
        const r = parsed.value as Obj;
        const sig = r['sig'] as Obj | undefined;
        if (typeof r['iss'] !== 'string' || !decodeKeyref(r['iss']).ok || sig === undefined || typeof sig['val'] !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(sig['val'])) continue;
        out.push({ name: `${t.tcId} ${t.comment} (Receipt ${at})`, test: t, at });
      }
    }
  }
  return out;
}

function forge(t: VectorTest, at: number): VectorTest {
  const lines = (t.input as { text: string }).text.split('\n');
  const r = (parseStrictText(lines[at] as string) as { ok: true; value: Obj }).value;
  const sig = r['sig'] as Obj;
  r['sig'] = { ...sig, val: encodeBase64url(FORGER.sign(receiptSigInput(r))) };
  lines[at] = canonicalString(r);
  return { ...t, input: { text: lines.join('\n') } };
}

const all = cases();

describe('D-RCPT-25: a forged signature is reported whatever else fails', () => {
  it('covers a forgery on every schema, rules, crypto, chain and pairing vector that reports on a signed Receipt', () => {
    const groups = new Set(all.map((c) => file.testGroups.find((g) => g.tests.includes(c.test))?.type));
    for (const g of ['schema', 'rules', 'crypto', 'chain', 'pairing']) expect(groups.has(`ReceiptChainVerify/${g}`), g).toBe(true);
    expect(all.length).toBeGreaterThan(60);
  });

  it.each(all.map((c) => [c.name, c] as const))('RCPT-SIG-001: %s, forged', (_name, c) => {
    const before = runVector(c.test);
    const after = runVector(forge(c.test, c.at));
    expect(after.valid).toBe(false);
    const at = (list: readonly { code: string; index: number | null }[]) => pairs(list.filter((f) => f.index === c.at));
    expect(at(after.errors)).toEqual(expect.arrayContaining([...at(before.errors), `SIG_INVALID@${c.at}`]));
  });
});
