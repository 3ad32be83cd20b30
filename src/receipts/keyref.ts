import { base58 } from '@scure/base';
import { checkPublicKey } from './ed25519.ts';

// D-RCPT-03 (anchor 3, keyref): did:key for Ed25519 only, ^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$;
// "Decode with base58btc, require the multicodec 0xed01 prefix and 32 bytes, and require a re-encode match.
// Reject small-order or non-canonical keys."
export const KEYREF_PATTERN = /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$/;
const PREFIX = 'did:key:z';

export function keyrefOf(publicKey: Uint8Array): string {
  const bytes = new Uint8Array(34);
  bytes[0] = 0xed;
  bytes[1] = 0x01;
  bytes.set(publicKey, 2);
  return PREFIX + base58.encode(bytes);
}

export type KeyrefDecode = { ok: true; publicKey: Uint8Array } | { ok: false; pattern: boolean; reason: string };

export function decodeKeyref(keyref: string): KeyrefDecode {
  if (!KEYREF_PATTERN.test(keyref)) return { ok: false, pattern: true, reason: 'not a did:key Ed25519 key reference' };
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(keyref.slice(PREFIX.length));
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
