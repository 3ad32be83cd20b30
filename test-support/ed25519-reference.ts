import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { isCanonicalScalar, isSmallOrderEncoding, type SignatureCheck } from '../src/receipts/ed25519.ts';
// verifyEd25519Noble shares the byte-level checks with ed25519.ts (as iari's old path did);
// verifyEd25519Reference uses none of them, only noble's point arithmetic and bigints.

// Test oracles for src/receipts/ed25519.ts (not used by the verifier).

const { Point } = ed25519;
const L = Point.Fn.ORDER;

function leToBigint(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i] ?? 0);
  return n;
}

function decode(bytes: Uint8Array): InstanceType<typeof Point> | undefined {
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return undefined;
  }
}

/**
 * The verifier before node:crypto (iari until issue 13): @noble/curves ed25519.verify with
 * zip215:false, which checks the cofactored equation [8][S]B = [8]R + [8][k]A, plus the same
 * S < L and small-order-R checks.
 */
export function verifyEd25519Noble(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): SignatureCheck {
  if (signature.length !== 64) return 'noncanonical';
  const r = signature.subarray(0, 32);
  if (!isCanonicalScalar(signature.subarray(32, 64))) return 'noncanonical';
  if (isSmallOrderEncoding(r)) return 'noncanonical';
  if (ed25519.verify(signature, message, publicKey, { zip215: false })) return 'valid';
  return decode(r) === undefined ? 'noncanonical' : 'invalid';
}

/**
 * The same rules written out with noble's point arithmetic, cofactorless as node:crypto:
 * A decodes strictly, is not of small order and is torsion-free; then [S]B - [k]A must encode to R.
 */
export function verifyEd25519Reference(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): SignatureCheck {
  if (signature.length !== 64) return 'noncanonical';
  const rBytes = signature.subarray(0, 32);
  const sBytes = signature.subarray(32, 64);
  const s = leToBigint(sBytes);
  if (s >= L) return 'noncanonical';
  const R = decode(rBytes);
  if (R === undefined || R.isSmallOrder()) return 'noncanonical';
  const A = publicKey.length === 32 ? decode(publicKey) : undefined;
  if (A === undefined || A.isSmallOrder() || !A.isTorsionFree()) return 'invalid';
  const k = leToBigint(createHash('sha512').update(rBytes).update(publicKey).update(message).digest()) % L;
  const sB = s === 0n ? Point.ZERO : Point.BASE.multiply(s);
  const kA = k === 0n ? Point.ZERO : A.multiplyUnsafe(k);
  const check = sB.subtract(kA);
  return Buffer.from(check.toBytes()).equals(Buffer.from(rBytes)) ? 'valid' : 'invalid';
}
