import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ed25519Key, canonicalString, digestOf, parseStrictText, verifyChain, verifyEd25519 } from '../../src/receipts/index.ts';
import { chainArb, fcParams } from './arbitraries.ts';
import { tinyJcs } from './tiny-jcs.ts';

/** Replaces every number by a non-negative safe integer (the Receipt number form). */
function integerize(v: unknown): unknown {
  if (typeof v === 'number') return Math.min(Math.abs(Math.trunc(v)), Number.MAX_SAFE_INTEGER);
  if (Array.isArray(v)) return v.map(integerize);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: integerize(x), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

/** Serialises JSON with shuffled member order, random whitespace and random (valid) escape spellings. */
function variant(v: unknown, rnd: () => number): string {
  const ws = () => [' ', '\n', '\t', '\r\n', ''][Math.floor(rnd() * 5)] as string;
  const str = (s: string) => {
    let out = '"';
    for (const ch of s) {
      const c = ch.codePointAt(0) as number;
      if (ch === '"' || ch === '\\' || c < 0x20) out += JSON.stringify(ch).slice(1, -1);
      else if (ch === '/' && rnd() < 0.5) out += '\\/';
      else if (c < 0x10000 && rnd() < 0.3) out += `\\u${c.toString(16).padStart(4, '0')[rnd() < 0.5 ? 'toUpperCase' : 'toLowerCase']()}`;
      else if (c >= 0x10000 && rnd() < 0.3) out += Array.from({ length: 2 }, (_x, k) => `\\u${ch.charCodeAt(k).toString(16)}`).join('');
      else out += ch;
    }
    return `${out}"`;
  };
  if (typeof v === 'string') return str(v);
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${ws()}${v.map((x) => variant(x, rnd)).join(`${ws()},${ws()}`)}${ws()}]`;
  const keys = Object.keys(v).sort(() => rnd() - 0.5);
  return `{${ws()}${keys.map((k) => `${str(k)}${ws()}:${ws()}${variant((v as Record<string, unknown>)[k], rnd)}`).join(`,${ws()}`)}${ws()}}`;
}
const rng = (seed: number) => {
  let s = seed >>> 0 || 1;
  return () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
};
const jsonArb = fc.jsonValue({ maxDepth: 4 });

describe('RCPT canonicalization (RFC 8785) invariants', () => {
  it('RCPT-SIG-008: canonicalize agrees with an independent small JCS on any JSON value', () => {
    fc.assert(fc.property(jsonArb, (v) => {
        expect(canonicalString(v)).toBe(tinyJcs(v));
      }), fcParams(300));
  });

  it('RCPT-SIG-008: JCS output is idempotent and has sorted keys and no whitespace outside strings', () => {
    fc.assert(
      fc.property(jsonArb, (v) => {
        const once = canonicalString(v);
        expect(canonicalString(JSON.parse(once))).toBe(once);
        expect(tinyJcs(JSON.parse(once))).toBe(once);
      }),
      fcParams(200),
    );
  });

  it('RCPT-SIG-008: member order, whitespace and escape spelling change no digest (strict reader then JCS)', () => {
    fc.assert(
      fc.property(jsonArb.map(integerize), fc.nat(), (v, seed) => {
        const text = variant(v, rng(seed));
        const r = parseStrictText(text);
        if (!r.ok) throw new Error(`${r.error.code} on ${text}`);
        expect(digestOf(r.value)).toBe(digestOf(v));
      }),
      fcParams(200),
    );
  });

  it('RCPT-SCHEMA-041: the strict reader agrees with JSON.parse on JSON without duplicates or non-integer numbers', () => {
    fc.assert(
      fc.property(jsonArb.map(integerize), (v) => {
        const text = JSON.stringify(v);
        const r = parseStrictText(text);
        expect(r.ok && canonicalString(r.value)).toBe(canonicalString(JSON.parse(text)));
      }),
      fcParams(200),
    );
  });

  it('RCPT-SIG-008: a re-spelled chain (any member order, whitespace, escapes) verifies the same (negative control)', () => {
    fc.assert(
      fc.property(chainArb, fc.nat(), (c, seed) => {
        const rnd = rng(seed);
        const text = c.receipts.map((r) => variant(r, rnd).replace(/[\r\n]+/g, ' ')).join('\n');
        const a = verifyChain(c.receipts, c.options);
        const b = verifyChain(text, c.options);
        expect(b.errors).toEqual(a.errors);
        expect(b.head).toBe(a.head);
        expect(b.valid).toBe(true);
      }),
      fcParams(5),
    );
  });

  it('RCPT-SIG-001: noble (zip215:false) and node:crypto agree on generated and tampered signatures', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 64 }), fc.nat(511), (seed, msg, flip) => {
        const key = Ed25519Key.fromSeed(seed);
        const spki = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), key.publicKey]), format: 'der', type: 'spki' });
        const sig = key.sign(msg);
        const bad = Uint8Array.from(sig);
        bad[flip >> 3] = (bad[flip >> 3] ?? 0) ^ (1 << (flip & 7));
        for (const s of [sig, bad]) {
          const ours = verifyEd25519(s, msg, key.publicKey) === 'valid';
          if (ours !== nodeVerify(null, msg, spki, s)) throw new Error(`noble and node:crypto disagree: seed ${Buffer.from(seed).toString('hex')} sig ${Buffer.from(s).toString('hex')}`);
        }
      }),
      fcParams(40),
    );
  });
});
