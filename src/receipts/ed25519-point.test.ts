import { fc, test } from '@fast-check/vitest';
import { ed25519, ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';
import { describe, expect } from 'vitest';
import { decodePoint, isSmallOrderPoint, isTorsionFreePoint } from './ed25519-point.ts';

// The verify path's per-key point checks (ed25519-point.ts) against @noble/curves, which they replace there.

const { Point } = ed25519;
const nobleDecode = (bytes: Uint8Array) => {
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return undefined;
  }
};
const fromHex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const torsion = ED25519_TORSION_SUBGROUP.map((h) => Point.fromBytes(fromHex(h), false));

/** Random bytes, near-p and sign-bit encodings, public keys, and public keys plus a torsion point. */
const encodings = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  fc.tuple(fc.integer({ min: 0, max: 40 }), fc.boolean()).map(([k, sign]) => {
    const b = new Uint8Array(32).fill(0xff);
    b[0] = 0xed - 20 + k;
    b[31] = sign ? 0xff : 0x7f;
    return b;
  }),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((seed) => ed25519.getPublicKey(seed)),
  fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 0, max: 7 })).map(([seed, t]) => Point.fromBytes(ed25519.getPublicKey(seed)).add(torsion[t] as InstanceType<typeof Point>).toBytes()),
  fc.tuple(fc.integer({ min: 0, max: 7 }), fc.boolean()).map(([t, sign]) => {
    const b = fromHex(ED25519_TORSION_SUBGROUP[t] as string);
    b[31] = sign ? (b[31] as number) | 0x80 : (b[31] as number) & 0x7f;
    return b;
  }),
);

describe('Ed25519 point checks without noble', () => {
  test.prop([encodings], { numRuns: 300 })('RCPT-SIG-004: decoding, small order and subgroup membership agree with @noble/curves', (bytes) => {
    const ours = decodePoint(bytes);
    const theirs = nobleDecode(bytes);
    expect(ours === undefined).toBe(theirs === undefined);
    if (ours === undefined || theirs === undefined) return;
    const affine = theirs.toAffine();
    expect(ours.X).toBe(affine.x);
    expect(ours.Y).toBe(affine.y);
    expect(isSmallOrderPoint(ours)).toBe(theirs.isSmallOrder());
    expect(isTorsionFreePoint(ours)).toBe(theirs.isTorsionFree());
  });

  test('RCPT-SIG-004: every torsion point is small order, the base point is torsion-free and not small order', () => {
    for (const h of ED25519_TORSION_SUBGROUP) expect(isSmallOrderPoint(decodePoint(fromHex(h)) as NonNullable<ReturnType<typeof decodePoint>>)).toBe(true);
    const base = decodePoint(Point.BASE.toBytes());
    expect(base).toBeDefined();
    expect(isSmallOrderPoint(base as NonNullable<typeof base>)).toBe(false);
    expect(isTorsionFreePoint(base as NonNullable<typeof base>)).toBe(true);
  });
});
