import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519, ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';
import { checkPublicKey, isCanonicalScalar, isSmallOrderEncoding, verifyEd25519 } from './ed25519.ts';
import { decodeKeyref, keyrefOf } from './keyref.ts';
import { Ed25519Key } from './signing-key.ts';

const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const TEST1 = Ed25519Key.fromSeed(hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'));

describe('Ed25519', () => {
  it('reproduces RFC 8032 7.1 TEST 1 (public key and signature of the empty message)', () => {
    expect(Buffer.from(TEST1.publicKey).toString('hex')).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    expect(Buffer.from(TEST1.sign(new Uint8Array())).toString('hex')).toBe(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    );
  });

  it('derives the public key and signs with node:crypto byte-identically to noble for many keys and messages', () => {
    for (let i = 0; i < 20; i++) {
      const key = Ed25519Key.generate();
      const msg = new Uint8Array(Buffer.from(`message ${i} ${'x'.repeat(i * 7)}`));
      expect(Buffer.from(key.publicKey).equals(Buffer.from(ed25519.getPublicKey(key.exportSeed())))).toBe(true);
      expect(Buffer.from(key.sign(msg)).equals(Buffer.from(ed25519.sign(msg, key.exportSeed())))).toBe(true);
    }
  });

  it('agrees with node:crypto on valid and tampered signatures', () => {
    const spki = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), TEST1.publicKey]), format: 'der', type: 'spki' });
    for (let i = 0; i < 20; i++) {
      const msg = new Uint8Array(Buffer.from(`m${i}`));
      const sig = TEST1.sign(msg);
      const bad = Uint8Array.from(sig);
      bad[i % 64] = (bad[i % 64] ?? 0) ^ 1;
      for (const s of [sig, bad]) expect(verifyEd25519(s, msg, TEST1.publicKey) === 'valid').toBe(nodeVerify(null, msg, spki, s));
    }
  });

  it('rejects S + L as non-canonical although the equation holds modulo L', () => {
    const msg = new Uint8Array([1, 2, 3]);
    const sig = TEST1.sign(msg);
    let s = 0n;
    for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i] ?? 0);
    s += ed25519.Point.Fn.ORDER;
    const out = Uint8Array.from(sig);
    for (let i = 0; i < 32; i++) out[32 + i] = Number((s >> BigInt(8 * i)) & 0xffn);
    expect(verifyEd25519(out, msg, TEST1.publicKey)).toBe('noncanonical');
    expect(isCanonicalScalar(sig.subarray(32))).toBe(true);
  });

  it('knows every point of the torsion subgroup as small order, and no ordinary key', () => {
    for (const h of ED25519_TORSION_SUBGROUP) {
      expect(isSmallOrderEncoding(hex(h))).toBe(true);
      expect(ed25519.Point.fromHex(h).isSmallOrder()).toBe(true);
    }
    for (let i = 0; i < 10; i++) expect(isSmallOrderEncoding(Ed25519Key.generate().publicKey)).toBe(false);
  });

  it('rejects a signature whose R is a small-order point, even one that verifies under the cofactored equation', () => {
    const msg = new Uint8Array([9]);
    const sig = TEST1.sign(msg);
    const r0 = Uint8Array.from(sig);
    r0.set(hex(ED25519_TORSION_SUBGROUP[0] as string), 0);
    expect(verifyEd25519(r0, msg, TEST1.publicKey)).toBe('noncanonical');
  });

  it('rejects small-order and non-canonical public keys', () => {
    expect(checkPublicKey(hex(ED25519_TORSION_SUBGROUP[3] as string)).ok).toBe(false);
    expect(checkPublicKey(hex('eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f')).ok).toBe(false);
    expect(checkPublicKey(TEST1.publicKey).ok).toBe(true);
  });
});

describe('did:key keyrefs', () => {
  it('encodes the RFC 8032 TEST 1 key as the known did:key', () => {
    expect(TEST1.keyref).toBe('did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw');
    const d = decodeKeyref(TEST1.keyref);
    expect(d.ok && Buffer.from(d.publicKey).equals(Buffer.from(TEST1.publicKey))).toBe(true);
  });

  it('rejects wrong multicodec, bad base58 and small-order keys', () => {
    expect(decodeKeyref('did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMs0').ok).toBe(false);
    expect(decodeKeyref('did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc').ok).toBe(false);
    expect(decodeKeyref(keyrefOf(hex(ED25519_TORSION_SUBGROUP[0] as string))).ok).toBe(false);
    expect(decodeKeyref(TEST1.keyref.toUpperCase()).ok).toBe(false);
  });
});
