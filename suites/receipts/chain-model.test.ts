import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainBuilder, Ed25519Key, verifyChain, type ChainVerifyResult } from '../../src/receipts/index.ts';
import { KEYS, applyStep, fcParams, newBuilder, optionsFor, stepArb, type Step } from './arbitraries.ts';

const ALLOWED_WARNINGS = new Set(['GATE_OPEN', 'UNKNOWN_DENY_REASON']);
const noErrors = (r: ChainVerifyResult) => r.errors.length === 0 && r.warnings.every((w) => ALLOWED_WARNINGS.has(w.code));

describe('RCPT-CHAIN model-based chains', () => {
  it('RCPT-CHAIN-002: every generated chain and every prefix verifies with no errors (levels 1 to 3, both stop modes)', () => {
    fc.assert(
      fc.property(fc.constantFrom(1 as const, 2 as const, 3 as const), fc.array(stepArb, { minLength: 1, maxLength: 10 }), (level, steps: Step[]) => {
        const b = newBuilder(level);
        const clock = { t: 1_700_000_000 };
        const options = optionsFor(level);
        for (const step of steps) {
          if (!applyStep(b, step, clock, level)) continue;
          const r = verifyChain(b.receipts, options);
          if (!noErrors(r)) throw new Error(`prefix of ${b.receipts.length}: ${JSON.stringify([...r.errors, ...r.warnings])}`);
          if (r.head !== b.head) throw new Error('head differs from the builder head');
        }
        const full = verifyChain(b.receipts, { ...options, expectedHead: b.head ?? undefined } as typeof options);
        expect(noErrors(full)).toBe(true);
      }),
      fcParams(12),
    );
  });

  it('RCPT-CHAIN-002: the verdict does not depend on input order (the chain is a set)', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 2, maxLength: 8 }), fc.nat(), (steps, seed) => {
        const b = newBuilder(1);
        const clock = { t: 1_700_000_000 };
        for (const s of steps) applyStep(b, s, clock, 1);
        const shuffled = [...b.receipts].map((r, i) => ({ r, k: (i * 7919 + seed) % 104729 })).sort((x, y) => x.k - y.k).map((x) => x.r);
        const a = verifyChain(b.receipts, optionsFor(1));
        const c = verifyChain(shuffled, optionsFor(1));
        expect(c.valid).toBe(a.valid);
        expect(c.head).toBe(a.head);
        expect(c.errors.map((e) => e.code)).toEqual(a.errors.map((e) => e.code));
      }),
      fcParams(10),
    );
  });

  it('RCPT-SIG-005: chains built from random seeds verify only with their own issuer trusted', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.array(stepArb, { minLength: 1, maxLength: 4 }), (seed, steps) => {
        const issuer = Ed25519Key.fromSeed(seed);
        const b = new ChainBuilder({ issuer, actor: KEYS.actor });
        const clock = { t: 1_700_000_000 };
        for (const s of steps) applyStep(b, s, clock, 1);
        fc.pre(b.receipts.length > 0);
        const opts = { ...optionsFor(1), trustedIssuers: [issuer.keyref] };
        expect(verifyChain(b.receipts, opts).errors).toEqual([]);
        expect(verifyChain(b.receipts, optionsFor(1)).errors.map((e) => e.code)).toEqual(['ISSUER_UNTRUSTED']);
      }),
      fcParams(6),
    );
  });
});
