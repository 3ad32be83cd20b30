import { fc, test } from '@fast-check/vitest';
import { base58 } from '@scure/base';
import { describe, expect } from 'vitest';
import { base58Decode, base58Encode, decodeKeyref, keyrefOf } from './keyref.ts';

describe('keyref base58btc without @scure/base', () => {
  test.prop([fc.uint8Array({ maxLength: 40 })], { numRuns: 500 })('RCPT-SCHEMA-007: base58Encode and base58Decode agree with @scure/base (leading zeros included)', (bytes) => {
    const text = base58.encode(bytes);
    expect(base58Encode(bytes)).toBe(text);
    expect(Buffer.from(base58Decode(text)).toString('hex')).toBe(Buffer.from(bytes).toString('hex'));
  });

  test.prop([fc.string({ maxLength: 50 })], { numRuns: 300 })('RCPT-SCHEMA-007: base58Decode rejects what @scure/base rejects and decodes the rest alike', (text) => {
    let theirs: string | undefined;
    try {
      theirs = Buffer.from(base58.decode(text)).toString('hex');
    } catch {
      theirs = undefined;
    }
    let ours: string | undefined;
    try {
      ours = Buffer.from(base58Decode(text)).toString('hex');
    } catch {
      ours = undefined;
    }
    expect(ours).toBe(theirs);
  });

  test('RCPT-SCHEMA-007: a keyref round-trips and a small-order key is refused', () => {
    const pk = Uint8Array.from(Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex'));
    const ref = keyrefOf(pk);
    expect(ref).toBe(`did:key:z${base58.encode(Uint8Array.from([0xed, 0x01, ...pk]))}`);
    const back = decodeKeyref(ref);
    expect(back.ok && Buffer.from(back.publicKey).equals(Buffer.from(pk))).toBe(true);
    const small = decodeKeyref(keyrefOf(new Uint8Array(32).fill(0).map((_, i) => (i === 0 ? 1 : 0))));
    expect(small).toEqual({ ok: false, pattern: false, reason: 'public key is a small-order point' });
  });
});
