import { ed25519, ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { ChainVerifier } from './chain-verifier.ts';
import { keyrefOf } from './keyref.ts';
import { checkVerifyOptions, VerifyOptionsError } from './verify-options.ts';

const good = keyrefOf(ed25519.getPublicKey(new Uint8Array(32).fill(1)));
const smallOrder = keyrefOf(Buffer.from(ED25519_TORSION_SUBGROUP[1] as string, 'hex'));
const yAboveP = keyrefOf(Buffer.from('eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex'));

describe('keys given to the verifier (D-RCPT-21)', () => {
  it('D-RCPT-21: accepts valid trusted issuer and approver keys', () => {
    expect(checkVerifyOptions({ trustedIssuers: [good], approvers: [good] })).toEqual({ ok: true });
  });

  it.each([
    ['trustedIssuers', smallOrder, 'TRUSTED_KEY_INVALID'],
    ['trustedIssuers', yAboveP, 'TRUSTED_KEY_INVALID'],
    ['trustedIssuers', 'did:key:zNope', 'TRUSTED_KEY_INVALID'],
    ['approvers', smallOrder, 'APPROVER_KEY_INVALID'],
    ['approvers', yAboveP, 'APPROVER_KEY_INVALID'],
  ] as const)('D-RCPT-21: refuses %s [%s] with %s, and the verifier throws before any Receipt is read', (option, key, code) => {
    const options = { [option]: [good, key] };
    expect(checkVerifyOptions(options)).toMatchObject({ ok: false, code, key });
    let thrown: unknown;
    try {
      new ChainVerifier(options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(VerifyOptionsError);
    expect((thrown as VerifyOptionsError).code).toBe(code);
  });
});
