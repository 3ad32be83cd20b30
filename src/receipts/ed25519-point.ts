// The little Edwards25519 point arithmetic the verifier needs once per public key (strict decoding,
// small-order and subgroup checks), in plain bigints. It replaces @noble/curves on the verify path
// only because importing noble's curve costs about 80 ms of start-up (issue 13: `iari receipts
// verify` on a short file in under 300 ms), while these few checks cost about 2 ms per key; signing
// and the test oracles keep noble, and ed25519-point.test.ts compares the two on random and edge inputs.

const P = 2n ** 255n - 19n;
/** RFC 8032 §5.1: d = -121665/121666 mod p; L the prime order of the base point. */
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
/** sqrt(-1) mod p (RFC 8032 §5.1.3 step 3). */
const SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;

const mod = (a: bigint): bigint => {
  const r = a % P;
  return r >= 0n ? r : r + P;
};

function pow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if ((e & 1n) === 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

/** Extended coordinates (X:Y:Z:T), x = X/Z, y = Y/Z, xy = T/Z. */
interface Ext {
  X: bigint;
  Y: bigint;
  Z: bigint;
  T: bigint;
}

const ZERO: Ext = { X: 0n, Y: 1n, Z: 1n, T: 0n };

/** add-2008-hwcd-3 for a = -1 (complete on Edwards25519). */
function add(p: Ext, q: Ext): Ext {
  const a = mod((p.Y - p.X) * (q.Y - q.X));
  const b = mod((p.Y + p.X) * (q.Y + q.X));
  const c = mod(2n * D * p.T * q.T);
  const d = mod(2n * p.Z * q.Z);
  const e = b - a;
  const f = d - c;
  const g = d + c;
  const h = b + a;
  return { X: mod(e * f), Y: mod(g * h), Z: mod(f * g), T: mod(e * h) };
}

/** dbl-2008-hwcd for a = -1. */
function double(p: Ext): Ext {
  const a = mod(p.X * p.X);
  const b = mod(p.Y * p.Y);
  const c = mod(2n * p.Z * p.Z);
  const d = -a;
  const e = mod((p.X + p.Y) * (p.X + p.Y) - a - b);
  const g = d + b;
  const f = g - c;
  const h = d - b;
  return { X: mod(e * f), Y: mod(g * h), Z: mod(f * g), T: mod(e * h) };
}

function multiply(p: Ext, n: bigint): Ext {
  let result = ZERO;
  for (let i = BigInt(n.toString(2).length - 1); i >= 0n; i--) {
    result = double(result);
    if (((n >> i) & 1n) === 1n) result = add(result, p);
  }
  return result;
}

/** The identity in projective terms: X = 0 and Y = Z. */
const isIdentity = (p: Ext): boolean => mod(p.X) === 0n && mod(p.Y - p.Z) === 0n;

/**
 * RFC 8032 §5.1.3 strict decoding: y < p, x from (y² - 1)/(dy² + 1) must exist, and x = 0 with the
 * sign bit set is rejected (noble's `Point.fromBytes(bytes, false)`). Undefined when any step fails.
 */
export function decodePoint(bytes: Uint8Array): Ext | undefined {
  if (bytes.length !== 32) return undefined;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? (bytes[i] as number) & 0x7f : (bytes[i] as number));
  const sign = ((bytes[31] as number) & 0x80) !== 0;
  if (y >= P) return undefined;
  const y2 = (y * y) % P;
  const u = mod(y2 - 1n);
  const v = mod(D * y2 + 1n);
  // §5.1.3 step 3: x = u v³ (u v⁷)^((p-5)/8), then fix up by sqrt(-1) or fail.
  const v3 = (v * v * v) % P;
  const v7 = (v3 * v3 * v) % P;
  let x = (u * v3 * pow(u * v7, (P - 5n) / 8n)) % P;
  const vx2 = (v * x * x) % P;
  if (vx2 === u) {
    // x is a root
  } else if (vx2 === mod(-u)) x = (x * SQRT_M1) % P;
  else return undefined;
  if (x === 0n && sign) return undefined;
  if ((x & 1n) === 1n !== sign) x = P - x;
  return { X: x, Y: y, Z: 1n, T: (x * y) % P };
}

/** [8]P is the identity. */
export function isSmallOrderPoint(p: Ext): boolean {
  return isIdentity(double(double(double(p))));
}

/** [L]P is the identity: P lies in the prime-order subgroup. */
export function isTorsionFreePoint(p: Ext): boolean {
  return isIdentity(multiply(p, L));
}
