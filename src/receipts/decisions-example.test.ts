import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalString } from './canonical.ts';
import { actDigestOf, actorSigInput, approvalSigInput, receiptSigInput } from './pae.ts';
import { approveAct, sealReceipt, signAct } from './seal.ts';
import { Ed25519Key } from './signing-key.ts';
import { tokenCommitment } from './digest.ts';
import type { UnsignedReceipt } from './types.ts';

const decisions = readFileSync(new URL('../../spec/DECISIONS.md', import.meta.url), 'utf8');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('D-RCPT-05 worked example in spec/DECISIONS.md', () => {
  const issuer = Ed25519Key.fromSeed(new Uint8Array(Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex')));
  const actor = Ed25519Key.fromSeed(new Uint8Array(Buffer.from('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb', 'hex')));
  const act = signAct({ verb: 'stop.approve', resource: 'session/1' }, actor, 'grant_1');
  const unsigned: UnsignedReceipt = { proto: '1.0-draft.2', type: 'receipt', id: 'rcpt_ex1', iss: issuer.keyref, iat: 1700000000, actor: actor.keyref, act, decision: { result: 'allowed' }, cost: { amount: '0', unit: 'USD' } };
  const approval = approveAct(act, issuer.keyref, actor);
  unsigned.approval = approval;
  const sealed = sealReceipt(unsigned, issuer);

  it('quotes the signature inputs, signatures and digest that the library computes', () => {
    const quoted = [
      hex(actorSigInput('grant_1', act as unknown as Record<string, unknown>)),
      act.actor_sig?.val as string,
      actDigestOf(act as unknown as Record<string, unknown>),
      hex(approvalSigInput(issuer.keyref, act as unknown as Record<string, unknown>)),
      approval.val,
      hex(receiptSigInput(sealed.receipt as unknown as Record<string, unknown>).subarray(0, 64)),
      sealed.receipt.sig.val,
      sealed.digest,
      tokenCommitment('tok_abc'),
      // The full seeds and public keys, and the whole Receipt in its canonical form with its length.
      hex(issuer.exportSeed()),
      hex(actor.exportSeed()),
      hex(issuer.publicKey),
      hex(actor.publicKey),
      canonicalString(sealed.receipt),
      `these ${Buffer.byteLength(canonicalString(sealed.receipt))} bytes`,
    ];
    for (const q of quoted) expect(decisions.includes(q), `DECISIONS.md lacks ${q}`).toBe(true);
  });

  it('uses PAE lengths in bytes of the JCS body', () => {
    const input = Buffer.from(receiptSigInput(sealed.receipt as unknown as Record<string, unknown>)).toString('utf8');
    const { sig: _sig, ...body } = sealed.receipt;
    const jcs = canonicalString(body);
    expect(input).toBe(`DSSEv1 31 urn:receipt:1.0-draft.2:receipt ${Buffer.byteLength(jcs)} ${jcs}`);
  });
});
