import { encodeBase64url } from './base64url.ts';
import { canonicalString } from './canonical.ts';
import { digestOfBytes } from './digest.ts';
import { actorSigInput, approvalSigInput, pae, PAYLOAD_TYPE } from './pae.ts';
import type { Ed25519Key } from './signing-key.ts';
import type { Act, Receipt, SealedReceipt, Sig, UnsignedReceipt } from './types.ts';

function sigOf(key: Ed25519Key, input: Uint8Array): Sig {
  return { alg: 'Ed25519', kid: key.keyref, val: encodeBase64url(key.sign(input)) };
}

const encoder = new TextEncoder();

/**
 * The JCS members of an object, `"key":value` each, in JCS order (keys sorted by UTF-16 code
 * units, undefined and symbol members left out): exactly the parts `canonicalize` joins.
 */
function canonicalMembers(object: Record<string, unknown>): { key: string; text: string }[] {
  const members: { key: string; text: string }[] = [];
  for (const key of Object.keys(object).sort()) {
    const value = object[key];
    if (value === undefined || typeof value === 'symbol') continue;
    members.push({ key, text: `${canonicalString(key)}:${canonicalString(value)}` });
  }
  return members;
}

/**
 * Adds the envelope sig (D-RCPT-05, envelope): the issuer key must be the one named by `iss`.
 * The body is canonicalised once: the signature input is JCS(body) and the digest is over
 * JCS(body + sig), whose bytes are the same members with the "sig" member put in its sorted place.
 */
export function sealReceipt(unsigned: UnsignedReceipt | Receipt, issuerKey: Ed25519Key): SealedReceipt {
  const { sig: _old, ...body } = unsigned as Receipt;
  if (body.iss !== issuerKey.keyref) throw new TypeError('sealReceipt: iss must equal the issuer key reference');
  const members = canonicalMembers(body as unknown as Record<string, unknown>);
  const texts = members.map((m) => m.text);
  // Envelope sig: PAE(urn:receipt:1.0-draft.2:receipt, JCS(receipt without "sig")), as receiptSigInput.
  const sig = sigOf(issuerKey, pae(PAYLOAD_TYPE.receipt, encoder.encode(`{${texts.join(',')}}`)));
  const receipt: Receipt = { ...body, sig };
  let at = members.findIndex((m) => m.key > 'sig');
  if (at < 0) at = members.length;
  texts.splice(at, 0, `"sig":${canonicalString(sig)}`);
  return { receipt, digest: digestOfBytes(encoder.encode(`{${texts.join(',')}}`)) };
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
