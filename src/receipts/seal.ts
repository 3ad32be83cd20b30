import { canonicalMembersAround, canonicalString } from './canonical.ts';
import { digestOfText } from './digest.ts';
import { actorSigInput, approvalSigInput, paeOfText, PAYLOAD_TYPE } from './pae.ts';
import type { Ed25519Key } from './signing-key.ts';
import type { Act, Receipt, SealedReceipt, Sig, UnsignedReceipt } from './types.ts';

function sigOf(key: Ed25519Key, input: Uint8Array): Sig {
  return { alg: 'Ed25519', kid: key.keyref, val: key.signToBase64url(input) };
}

const joinMembers = (...parts: string[]): string => parts.filter((part) => part.length > 0).join(',');

/** A sealed Receipt with its JCS text (sig included): the bytes its digest is over. */
export interface SealedReceiptText extends SealedReceipt {
  text: string;
}

/**
 * Adds the envelope sig (D-RCPT-05, envelope): the issuer key must be the one named by `iss`.
 * The body is canonicalised once: the signature input is JCS(body) and the digest is over
 * JCS(body + sig), whose bytes are the same members with the "sig" member put in its sorted place.
 */
export function sealReceiptText(unsigned: UnsignedReceipt | Receipt, issuerKey: Ed25519Key): SealedReceiptText {
  let body: UnsignedReceipt = unsigned;
  if ('sig' in unsigned) {
    const { sig: _old, ...rest } = unsigned;
    body = rest;
  }
  if (body.iss !== issuerKey.keyref) throw new TypeError('sealReceipt: iss must equal the issuer key reference');
  const { before, after } = canonicalMembersAround(body as unknown as Record<string, unknown>, 'sig');
  const bodyText = `{${joinMembers(before, after)}}`;
  // Envelope sig: PAE(urn:receipt:1.0-draft.2:receipt, JCS(receipt without "sig")), as receiptSigInput.
  const sig = sigOf(issuerKey, paeOfText(PAYLOAD_TYPE.receipt, bodyText));
  const receipt = { ...body, sig } as Receipt;
  const text = `{${joinMembers(before, `"sig":${canonicalString(sig)}`, after)}}`;
  return { receipt, digest: digestOfText(text), text };
}

/** sealReceipt is sealReceiptText without the text. */
export function sealReceipt(unsigned: UnsignedReceipt | Receipt, issuerKey: Ed25519Key): SealedReceipt {
  const { receipt, digest } = sealReceiptText(unsigned, issuerKey);
  return { receipt, digest };
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
