import { ed25519, ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';

// Anchor 2, Ed25519: "{zip215:false} rejects non-canonical point encodings and A.isSmallOrder().
// S<L is checked in both modes." A small-order R is rejected here, before noble.

/** L, the order of the prime-order subgroup, little-endian (RFC 8032 §5.1). */
const L_LE = Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex');

/** The 8 small-order points (sign bit cleared), plus the two non-canonical y = p, p+1 encodings. */
const SMALL_ORDER = new Set<string>(
  [...ED25519_TORSION_SUBGROUP, 'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'].map((hex) => {
    const b = Buffer.from(hex, 'hex');
    b[31] = (b[31] ?? 0) & 0x7f;
    return b.toString('hex');
  }),
);

/** True when a 32-byte point encoding (either sign) is one of the small-order points. */
export function isSmallOrderEncoding(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  const b = Buffer.from(bytes);
  b[31] = (b[31] ?? 0) & 0x7f;
  return SMALL_ORDER.has(b.toString('hex'));
}

/** RFC 8032 §5.1.7: "0 <= S < L". */
export function isCanonicalScalar(sLe: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    const a = sLe[i] ?? 0;
    const l = L_LE[i] ?? 0;
    if (a !== l) return a < l;
  }
  return false;
}

export type PublicKeyCheck = { ok: true } | { ok: false; reason: string };

/** A public key must decode strictly (y < p, canonical sign) and must not be of small order. */
export function checkPublicKey(publicKey: Uint8Array): PublicKeyCheck {
  if (publicKey.length !== 32) return { ok: false, reason: 'public key is not 32 bytes' };
  let point;
  try {
    point = ed25519.Point.fromBytes(publicKey, false);
  } catch {
    return { ok: false, reason: 'public key is not a canonical curve point encoding' };
  }
  if (point.isSmallOrder()) return { ok: false, reason: 'public key is a small-order point' };
  return { ok: true };
}

export type SignatureCheck = 'valid' | 'invalid' | 'noncanonical';

/**
 * Strict Ed25519 verification: @noble/curves with zip215:false, plus rejection of small-order R.
 * `noncanonical` = wrong length, S >= L, small-order or undecodable R; `invalid` = the equation fails.
 */
export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): SignatureCheck {
  if (signature.length !== 64) return 'noncanonical';
  const r = signature.subarray(0, 32);
  if (!isCanonicalScalar(signature.subarray(32, 64))) return 'noncanonical';
  if (isSmallOrderEncoding(r)) return 'noncanonical';
  if (ed25519.verify(signature, message, publicKey, { zip215: false })) return 'valid';
  try {
    ed25519.Point.fromBytes(r, false);
  } catch {
    return 'noncanonical';
  }
  return 'invalid';
}

