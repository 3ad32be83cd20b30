import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeBase64url } from './base64url.ts';
import { canonicalString } from './canonical.ts';
import { digestOf } from './digest.ts';
import { receiptSigInput } from './pae.ts';
import { sealReceipt, sealReceiptText } from './seal.ts';
import { Ed25519Key } from './signing-key.ts';
import type { UnsignedReceipt } from './types.ts';
import { newReceiptId } from './receipt-id.ts';

const key = Ed25519Key.fromSeed(new Uint8Array(32).fill(7));

function base(): UnsignedReceipt {
  return {
    proto: '1.0-draft.2', type: 'receipt', id: 'rcpt_1', iss: key.keyref, iat: 1_700_000_000, actor: key.keyref,
    act: { verb: 'model.call', resource: 'model:iari-mini' }, decision: { result: 'allowed' }, cost: { amount: '0.00002', unit: 'USD' },
  };
}

const jsonValue = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const memberName = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constantFrom('sia', 'sig2', 'sh', 'si', 'Sig', 'zz', '', 'é', '🚀', 'prev'));

describe('sealReceipt', () => {
  it('signs JCS(receipt without sig) and digests JCS(receipt with sig), whose text it returns, for any extra members, names and values', () => {
    fc.assert(
      fc.property(fc.dictionary(memberName, fc.oneof(jsonValue, fc.constant(undefined)), { maxKeys: 6 }), (extra) => {
        const unsigned = { ...base(), ...extra, iss: key.keyref } as unknown as UnsignedReceipt;
        const { receipt, digest, text } = sealReceiptText(unsigned, key);
        expect(text).toBe(canonicalString(receipt));
        expect(digest).toBe(digestOf(receipt));
        expect(sealReceipt(unsigned, key)).toEqual({ receipt, digest });
        expect(receipt.sig.val).toBe(encodeBase64url(key.sign(receiptSigInput(unsigned as unknown as Record<string, unknown>))));
      }),
      { numRuns: 300 },
    );
  });

  it('replaces an existing sig and leaves an undefined prev out of both signed and digested bytes', () => {
    const first = sealReceipt(base(), key).receipt;
    const again = sealReceipt({ ...first, prev: undefined } as unknown as UnsignedReceipt, key);
    expect(again.receipt.sig).toEqual(first.sig);
    expect(again.digest).toBe(digestOf(first));
    expect(canonicalString(again.receipt)).toBe(canonicalString(first));
  });
});

describe('newReceiptId', () => {
  it('gives distinct rcpt_ UUIDv7 ids carrying the millisecond time', () => {
    const ms = 1_700_000_000_123;
    const ids = Array.from({ length: 2_000 }, () => newReceiptId(ms));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^rcpt_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Number.parseInt(id.slice(5, 13) + id.slice(14, 18), 16)).toBe(ms);
    }
  });
});
