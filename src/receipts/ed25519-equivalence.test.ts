import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ed25519, ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';
import { checkPublicKey, verifyEd25519, type SignatureCheck } from './ed25519.ts';
import { verifyEd25519Noble, verifyEd25519Reference } from '../../test-support/ed25519-reference.ts';

// Issue 13: the node:crypto path (JS strictness checks + OpenSSL's cofactorless equation) against
// (a) the same rules written with noble's point arithmetic: equal on every input, and (b) the noble
// path iari used before (cofactored): equal except where R or A has a small-order component, where
// only the cofactored equation can hold (a malleable variant of a signature, or a key with torsion).

const { Point } = ed25519;
const L = Point.Fn.ORDER;
const P = 2n ** 255n - 19n;
const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const le = (n: bigint, len = 32) => {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
};
const fromLe = (b: Uint8Array) => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);
const cat = (...parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts));
const TORSION = ED25519_TORSION_SUBGROUP.map((h) => Point.fromHex(h));

function sign(seed: Uint8Array, msg: Uint8Array): { pk: Uint8Array; sig: Uint8Array } {
  return { pk: ed25519.getPublicKey(seed), sig: ed25519.sign(msg, seed) };
}

/** A signature by the seed's scalar for the key A + T (T a small-order point): honest apart from the torsion. */
function signForMixedKey(seed: Uint8Array, msg: Uint8Array, t: number): { pk: Uint8Array; sig: Uint8Array } {
  const { prefix, scalar, point } = ed25519.utils.getExtendedPublicKey(seed);
  const pk = point.add(TORSION[t] as InstanceType<typeof Point>).toBytes();
  const r = fromLe(createHash('sha512').update(prefix).update(msg).digest()) % L;
  const R = Point.BASE.multiply(r).toBytes();
  const k = fromLe(createHash('sha512').update(R).update(pk).update(msg).digest()) % L;
  return { pk, sig: cat(R, le((r + k * scalar) % L)) };
}

const hasTorsion = (bytes: Uint8Array): boolean => {
  try {
    const p = Point.fromBytes(bytes, false);
    return !p.isTorsionFree();
  } catch {
    return false;
  }
};

type Case = { kind: string; sig: Uint8Array; msg: Uint8Array; pk: Uint8Array };
const seedArb = fc.uint8Array({ minLength: 32, maxLength: 32 });
const msgArb = fc.uint8Array({ maxLength: 80 });
/** y values (little-endian, sign bit separate) that do not decode to a curve point. */
const offCurveY = fc.bigInt({ min: 2n, max: P - 1n }).filter((y) => {
  try {
    Point.fromBytes(le(y), false);
    return false;
  } catch {
    return true;
  }
});

const caseArb: fc.Arbitrary<Case> = fc.oneof(
  fc.record({ seed: seedArb, msg: msgArb }).map(({ seed, msg }) => ({ kind: 'valid', msg, ...sign(seed, msg) })),
  fc.record({ seed: seedArb, msg: msgArb, bit: fc.nat(64 * 8 - 1), where: fc.constantFrom('sig', 'msg', 'pk') }).map(({ seed, msg, bit, where }) => {
    const s = sign(seed, msg);
    const c: Case = { kind: `mutated-${where}`, msg: Uint8Array.from(msg), sig: Uint8Array.from(s.sig), pk: Uint8Array.from(s.pk) };
    const target = where === 'sig' ? c.sig : where === 'pk' ? c.pk : c.msg.length > 0 ? c.msg : c.sig;
    const i = (bit >> 3) % target.length;
    target[i] = (target[i] as number) ^ (1 << (bit & 7));
    return c;
  }),
  fc.record({ seed: seedArb, msg: msgArb, how: fc.constantFrom('plusL', 'isL', 'max', 'plus2L') }).map(({ seed, msg, how }) => {
    const s = sign(seed, msg);
    const S = fromLe(s.sig.subarray(32));
    const bad = how === 'plusL' ? S + L : how === 'isL' ? L : how === 'plus2L' ? S + 2n * L : 2n ** 256n - 1n;
    return { kind: `scalar-${how}`, msg, pk: s.pk, sig: cat(s.sig.subarray(0, 32), le(bad % 2n ** 256n)) };
  }),
  fc.record({ seed: seedArb, msg: msgArb, k: fc.nat(18), sign: fc.boolean() }).map(({ seed, msg, k, sign: signBit }) => {
    const s = sign(seed, msg);
    const r = le(P + BigInt(k));
    if (signBit) r[31] = (r[31] as number) | 0x80;
    return { kind: 'noncanonical-R', msg, pk: s.pk, sig: cat(r, s.sig.subarray(32)) };
  }),
  fc.record({ seed: seedArb, msg: msgArb, t: fc.nat(7), sign: fc.boolean(), where: fc.constantFrom('R', 'A') }).map(({ seed, msg, t, sign: signBit, where }) => {
    const s = sign(seed, msg);
    const point = hex(ED25519_TORSION_SUBGROUP[t] as string);
    if (signBit) point[31] = (point[31] as number) ^ 0x80;
    return where === 'R' ? { kind: 'small-order-R', msg, pk: s.pk, sig: cat(point, s.sig.subarray(32)) } : { kind: 'small-order-A', msg, pk: point, sig: s.sig };
  }),
  fc.record({ seed: seedArb, msg: msgArb, y: offCurveY, sign: fc.boolean(), where: fc.constantFrom('R', 'A') }).map(({ seed, msg, y, sign: signBit, where }) => {
    const s = sign(seed, msg);
    const point = le(y);
    if (signBit) point[31] = (point[31] as number) | 0x80;
    return where === 'R' ? { kind: 'off-curve-R', msg, pk: s.pk, sig: cat(point, s.sig.subarray(32)) } : { kind: 'off-curve-A', msg, pk: point, sig: s.sig };
  }),
  fc.record({ seed: seedArb, msg: msgArb, len: fc.constantFrom(0, 32, 63, 65, 128) }).map(({ seed, msg, len }) => {
    const s = sign(seed, msg);
    return { kind: 'length', msg, pk: s.pk, sig: cat(s.sig, new Uint8Array(64)).subarray(0, len) };
  }),
);

/** Inputs whose R or A carries a small-order component: the only place the cofactored equation can differ. */
const mixedArb: fc.Arbitrary<Case> = fc.oneof(
  fc.record({ seed: seedArb, msg: msgArb, t: fc.integer({ min: 1, max: 7 }) }).map(({ seed, msg, t }) => {
    const s = sign(seed, msg);
    const R = Point.fromBytes(s.sig.subarray(0, 32)).add(TORSION[t] as InstanceType<typeof Point>);
    return { kind: 'mixed-order-R', msg, pk: s.pk, sig: cat(R.toBytes(), s.sig.subarray(32)) };
  }),
  fc.record({ seed: seedArb, msg: msgArb, t: fc.integer({ min: 1, max: 7 }) }).map(({ seed, msg, t }) => ({ kind: 'mixed-order-A', msg, ...signForMixedKey(seed, msg, t) })),
);

describe('Ed25519: node:crypto path against noble', () => {
  it('RCPT-SIG-001: equals the cofactorless noble reference on valid, mutated, non-canonical, small-order, off-curve and short inputs', () => {
    const kinds = new Map<string, Set<SignatureCheck>>();
    fc.assert(
      fc.property(caseArb, (c) => {
        const ours = verifyEd25519(c.sig, c.msg, c.pk);
        expect(ours).toBe(verifyEd25519Reference(c.sig, c.msg, c.pk));
        kinds.set(c.kind, (kinds.get(c.kind) ?? new Set()).add(ours));
      }),
      { numRuns: 200 },
    );
    // The generators reach every class of input and both outcomes they should produce.
    expect(kinds.get('valid')).toEqual(new Set(['valid']));
    expect(kinds.get('scalar-plusL')).toEqual(new Set(['noncanonical']));
    expect(kinds.get('small-order-R')).toEqual(new Set(['noncanonical']));
    expect(kinds.get('small-order-A')).toEqual(new Set(['invalid']));
    expect(kinds.get('off-curve-R')).toEqual(new Set(['noncanonical']));
    expect(kinds.get('noncanonical-R')).toEqual(new Set(['noncanonical']));
  }, 180_000);

  it('RCPT-SIG-001: equals the noble path iari used before on every input without a small-order component', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        if (hasTorsion(c.sig.subarray(0, 32)) || hasTorsion(c.pk)) return;
        expect(verifyEd25519(c.sig, c.msg, c.pk)).toBe(verifyEd25519Noble(c.sig, c.msg, c.pk));
      }),
      { numRuns: 200 },
    );
  }, 180_000);

  it('RCPT-SIG-003: rejects what only the cofactored equation accepts (R or A with a small-order component), and nothing more', () => {
    let differed = 0;
    fc.assert(
      fc.property(mixedArb, (c) => {
        const ours = verifyEd25519(c.sig, c.msg, c.pk);
        const before = verifyEd25519Noble(c.sig, c.msg, c.pk);
        expect(ours).toBe(verifyEd25519Reference(c.sig, c.msg, c.pk));
        expect(ours).toBe('invalid');
        if (before === 'valid') differed++;
        else expect(before).toBe(ours);
      }),
      { numRuns: 60 },
    );
    // R + T always satisfies the cofactored equation; so the old path accepted malleated signatures.
    expect(differed).toBeGreaterThan(0);
  }, 180_000);

  it('RCPT-SIG-004: a key with a small-order component is not a valid public key', () => {
    const seed = new Uint8Array(32).fill(7);
    const { pk } = signForMixedKey(seed, new Uint8Array(0), 3);
    expect(checkPublicKey(pk)).toEqual({ ok: false, reason: 'public key has a small-order component (not in the prime-order subgroup)' });
    expect(checkPublicKey(ed25519.getPublicKey(seed)).ok).toBe(true);
  });
});

// RFC 8032 §7.1 test vectors (secret key, public key, message, signature).
const RFC8032: [string, string, string, string, string][] = [
  ['TEST 1', '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', '', 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b'],
  ['TEST 2', '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb', '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c', '72', '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00'],
  ['TEST 3', 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7', 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025', 'af82', '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a'],
  ['TEST SHA(abc)', '833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42', 'ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf', 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f', 'dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704'],
];

describe('Ed25519: RFC 8032 §7.1 vectors and edge cases', () => {
  it.each(RFC8032)('RCPT-SIG-001: %s verifies, and fails after any one-bit change of signature or message', (_name, sk, pk, msg, sig) => {
    expect(Buffer.from(ed25519.getPublicKey(hex(sk))).toString('hex')).toBe(pk);
    expect(verifyEd25519(hex(sig), hex(msg), hex(pk))).toBe('valid');
    for (let bit = 0; bit < 512; bit += 37) {
      const bad = hex(sig);
      bad[bit >> 3] = (bad[bit >> 3] as number) ^ (1 << (bit & 7));
      expect(verifyEd25519(bad, hex(msg), hex(pk))).not.toBe('valid');
    }
    expect(verifyEd25519(hex(sig), cat(hex(msg), new Uint8Array([0])), hex(pk))).toBe('invalid');
  });

  const [, , pk1, , sig1] = RFC8032[0] as [string, string, string, string, string];
  const R1 = hex(sig1).subarray(0, 32);
  const S1 = hex(sig1).subarray(32);
  const edge: [string, Uint8Array, Uint8Array, SignatureCheck][] = [
    ['S + L (malleable)', cat(R1, le(fromLe(S1) + L)), hex(pk1), 'noncanonical'],
    ['S = L', cat(R1, le(L)), hex(pk1), 'noncanonical'],
    ['S = 0', cat(R1, new Uint8Array(32)), hex(pk1), 'invalid'],
    ['R = the identity (small order)', cat(hex('01'.padEnd(64, '0')), S1), hex(pk1), 'noncanonical'],
    ['R = the identity with the sign bit set', cat(hex('01'.padEnd(62, '0') + '80'), S1), hex(pk1), 'noncanonical'],
    ['R with y = p (non-canonical)', cat(le(P), S1), hex(pk1), 'noncanonical'],
    ['R with y = p + 5 (non-canonical)', cat(le(P + 5n), S1), hex(pk1), 'noncanonical'],
    ['R + a point of order 8', cat(Point.fromBytes(R1).add(TORSION[1] as InstanceType<typeof Point>).toBytes(), S1), hex(pk1), 'invalid'],
    ['R + a point of order 2', cat(Point.fromBytes(R1).add(TORSION[4] as InstanceType<typeof Point>).toBytes(), S1), hex(pk1), 'invalid'],
    ['63-byte signature', hex(sig1).subarray(0, 63), hex(pk1), 'noncanonical'],
    ['65-byte signature', cat(hex(sig1), new Uint8Array(1)), hex(pk1), 'noncanonical'],
    ['small-order public key', hex(sig1), hex(ED25519_TORSION_SUBGROUP[2] as string), 'invalid'],
    ['public key with y = p + 1', hex(sig1), le(P + 1n), 'invalid'],
    ['31-byte public key', hex(sig1), hex(pk1).subarray(0, 31), 'invalid'],
  ];
  it.each(edge)('RCPT-SIG-003: TEST 1 with %s gives %s, as the reference does', (_name, sig, pk, expected) => {
    expect(verifyEd25519(sig, new Uint8Array(0), pk)).toBe(expected);
    expect(verifyEd25519Reference(sig, new Uint8Array(0), pk)).toBe(expected);
  });
});
