import { encodeBase64url } from './base64url.ts';
import { digestOf } from './digest.ts';
import { actorSigInput, approvalSigInput, receiptSigInput } from './pae.ts';
import type { Ed25519Key } from './signing-key.ts';
import type { Act, Receipt, SealedReceipt, Sig, UnsignedReceipt } from './types.ts';

function sigOf(key: Ed25519Key, input: Uint8Array): Sig {
  return { alg: 'Ed25519', kid: key.keyref, val: encodeBase64url(key.sign(input)) };
}

/** Adds the envelope sig (D-RCPT-05, envelope): the issuer key must be the one named by `iss`. */
export function sealReceipt(unsigned: UnsignedReceipt | Receipt, issuerKey: Ed25519Key): SealedReceipt {
  const { sig: _old, ...body } = unsigned as Receipt;
  if (body.iss !== issuerKey.keyref) throw new TypeError('sealReceipt: iss must equal the issuer key reference');
  const receipt: Receipt = { ...body, sig: sigOf(issuerKey, receiptSigInput(body as unknown as Record<string, unknown>)) };
  return { receipt, digest: digestOf(receipt) };
}

/** Returns the act with actor_sig over PAE(actor_sig, JCS([grantId, act without actor_sig])). */
export function signAct(act: Act, actorKey: Ed25519Key, grantId: string): Act {
  const { actor_sig: _old, ...bare } = act;
  return { ...bare, actor_sig: sigOf(actorKey, actorSigInput(grantId, bare as unknown as Record<string, unknown>)) };
}

/** The approver's detached signature over PAE(approval, JCS([serviceId, actDigest])). */
export function approveAct(act: Act, serviceId: string, approverKey: Ed25519Key): Sig {
  return sigOf(approverKey, approvalSigInput(serviceId, act as unknown as Record<string, unknown>));
}
