import { checkPublicKey } from './ed25519.ts';

// D-RCPT-03 (anchor 3, keyref): did:key for Ed25519 only, ^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$;
// "Decode with base58btc, require the multicodec 0xed01 prefix and 32 bytes, and require a re-encode match.
// Reject small-order or non-canonical keys."
export const KEYREF_PATTERN = /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$/;
const PREFIX = 'did:key:z';

// base58btc (the Bitcoin alphabet) in bigints: @scure/base's import cost about 10 ms of the CLI's
// start-up for two 34-byte conversions. keyref.test.ts compares both ways with @scure/base.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** base58btc encoding: leading zero bytes become '1's, the rest is the number in base 58. */
export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (let i = zeros; i < bytes.length; i++) n = (n << 8n) | BigInt(bytes[i] as number);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  return '1'.repeat(zeros) + out;
}

/** base58btc decoding; throws on a character outside the alphabet. */
export function base58Decode(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  let n = 0n;
  for (let i = zeros; i < text.length; i++) {
    const digit = ALPHABET.indexOf(text[i] as string);
    if (digit === -1) throw new Error(`not a base58btc character at ${i}`);
    n = n * 58n + BigInt(digit);
  }
  const tail: number[] = [];
  while (n > 0n) {
    tail.push(Number(n & 0xffn));
    n >>= 8n;
  }
  const out = new Uint8Array(zeros + tail.length);
  for (let i = 0; i < tail.length; i++) out[out.length - 1 - i] = tail[i] as number;
  return out;
}

export function keyrefOf(publicKey: Uint8Array): string {
  const bytes = new Uint8Array(34);
  bytes[0] = 0xed;
  bytes[1] = 0x01;
  bytes.set(publicKey, 2);
  return PREFIX + base58Encode(bytes);
}

export type KeyrefDecode = { ok: true; publicKey: Uint8Array } | { ok: false; pattern: boolean; reason: string };

export function decodeKeyref(keyref: string): KeyrefDecode {
  if (!KEYREF_PATTERN.test(keyref)) return { ok: false, pattern: true, reason: 'not a did:key Ed25519 key reference' };
  let bytes: Uint8Array;
  try {
    bytes = base58Decode(keyref.slice(PREFIX.length));
  } catch {
    return { ok: false, pattern: false, reason: 'base58btc does not decode' };
  }
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) return { ok: false, pattern: false, reason: 'not multicodec 0xed01 followed by 32 bytes' };
  const publicKey = bytes.slice(2);
  if (keyrefOf(publicKey) !== keyref) return { ok: false, pattern: false, reason: 'base58btc does not re-encode to the same text' };
  const check = checkPublicKey(publicKey);
  if (!check.ok) return { ok: false, pattern: false, reason: check.reason };
  return { ok: true, publicKey };
}

/** A public key argument: a did:key keyref, or the text of a .pub file (its first line). */
export function readPublicKeyref(text: string): { ok: true; keyref: string } | { ok: false; reason: string } {
  const keyref = text.trim().split(/\r?\n/)[0]?.trim() ?? '';
  const decoded = decodeKeyref(keyref);
  if (!decoded.ok) return { ok: false, reason: decoded.reason };
  return { ok: true, keyref };
}
