import { createPublicKey, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { ed25519, ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';

// D-RCPT-04: RFC 8032 §5.1.7 strict verification. The cheap strictness checks run here in JS
// (byte comparisons, or once per key); the group equation [S]B = R + [k]A runs in node:crypto
// (OpenSSL), whose ED25519_verify is the cofactorless form of §5.1.7 ("It's sufficient, but not
// required, to instead check [S]B = R + [k]A'"). Anchor 2, Ed25519: OpenSSL checks S < L itself,
// but on Node 20 does not reject small-order points, so those checks stay here.

/** L, the order of the prime-order subgroup, little-endian (RFC 8032 §5.1). */
const L_LE = Uint8Array.from(Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex'));

/** The 8 small-order points, plus the two non-canonical y = p, p+1 encodings, with the sign bit cleared. */
const SMALL_ORDER: readonly Uint8Array[] = [...ED25519_TORSION_SUBGROUP, 'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'].map((hex) => {
  const b = Uint8Array.from(Buffer.from(hex, 'hex'));
  b[31] = (b[31] ?? 0) & 0x7f;
  return b;
});

/** True when a 32-byte point encoding (either sign) is one of the small-order points. */
export function isSmallOrderEncoding(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  next: for (const s of SMALL_ORDER) {
    for (let i = 0; i < 31; i++) if (bytes[i] !== s[i]) continue next;
    if (((bytes[31] as number) & 0x7f) === s[31]) return true;
  }
  return false;
}

/** RFC 8032 §5.1.7: "0 <= S < L". */
export function isCanonicalScalar(sLe: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    const a = sLe[i] ?? 0;
    const l = L_LE[i] as number;
    if (a !== l) return a < l;
  }
  return false;
}

/** RFC 8032 §5.1.3 step 1: the encoded y (the low 255 bits) is below p = 2^255 - 19. */
export function isCanonicalY(bytes: Uint8Array): boolean {
  if (((bytes[31] as number) & 0x7f) !== 0x7f) return true;
  for (let i = 30; i >= 1; i--) if (bytes[i] !== 0xff) return true;
  return (bytes[0] as number) < 0xed;
}

/** True when 32 bytes are the canonical encoding of a curve point (y < p, x exists, no x = 0 with the sign bit set). */
export function isCanonicalPoint(bytes: Uint8Array): boolean {
  if (bytes.length !== 32 || !isCanonicalY(bytes)) return false;
  try {
    ed25519.Point.fromBytes(bytes, false);
    return true;
  } catch {
    return false;
  }
}

export type PublicKeyCheck = { ok: true } | { ok: false; reason: string };

/**
 * A public key must decode strictly (y < p, canonical sign), must not be of small order and must lie
 * in the prime-order subgroup (no torsion component: every key made from a seed does), so that the
 * cofactorless equation gives the same answer as the cofactored one for every signature under it.
 */
export function checkPublicKey(publicKey: Uint8Array): PublicKeyCheck {
  if (publicKey.length !== 32) return { ok: false, reason: 'public key is not 32 bytes' };
  let point;
  try {
    point = ed25519.Point.fromBytes(publicKey, false);
  } catch {
    return { ok: false, reason: 'public key is not a canonical curve point encoding' };
  }
  if (point.isSmallOrder()) return { ok: false, reason: 'public key is a small-order point' };
  if (!point.isTorsionFree()) return { ok: false, reason: 'public key has a small-order component (not in the prime-order subgroup)' };
  return { ok: true };
}

/** A checked public key with its node:crypto KeyObject (made once per key). */
export interface VerifyKey {
  readonly publicKey: Uint8Array;
  readonly keyObject: KeyObject;
}

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The node:crypto key for a public key that passed `checkPublicKey`. */
export function verifyKeyOf(publicKey: Uint8Array): VerifyKey {
  const keyObject = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]), format: 'der', type: 'spki' });
  return { publicKey: Uint8Array.from(publicKey), keyObject };
}

/** Raw-key calls (`verifyEd25519(sig, msg, bytes)`) check and convert each key once. */
const rawKeys = new Map<string, VerifyKey | null>();
function rawKey(publicKey: Uint8Array): VerifyKey | null {
  const hex = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('hex');
  let k = rawKeys.get(hex);
  if (k === undefined) {
    if (rawKeys.size >= 1024) rawKeys.clear();
    k = checkPublicKey(publicKey).ok ? verifyKeyOf(publicKey) : null;
    rawKeys.set(hex, k);
  }
  return k;
}

export type SignatureCheck = 'valid' | 'invalid' | 'noncanonical';

/**
 * Strict Ed25519 verification (D-RCPT-04). `noncanonical` = wrong length, S >= L, R one of the
 * small-order points or not the canonical encoding of a curve point; `invalid` = the key is not a
 * valid public key (see `checkPublicKey`), or [S]B = R + [k]A fails. Give a `VerifyKey` (from
 * `verifyKeyOf`, after `checkPublicKey`) on hot paths; raw key bytes are checked and cached here.
 */
export function verifyEd25519(signature: Uint8Array, message: Uint8Array, key: Uint8Array | VerifyKey): SignatureCheck {
  if (signature.length !== 64) return 'noncanonical';
  if (!isCanonicalScalar(signature.subarray(32, 64))) return 'noncanonical';
  const r = signature.subarray(0, 32);
  if (!isCanonicalY(r) || isSmallOrderEncoding(r)) return 'noncanonical';
  const k = key instanceof Uint8Array ? rawKey(key) : key;
  if (k !== null && nodeVerify(null, message, k.keyObject, signature)) return 'valid';
  // Failure path only: an R that is no curve point at all is malformed rather than a wrong signature.
  return isCanonicalPoint(r) ? 'invalid' : 'noncanonical';
}
