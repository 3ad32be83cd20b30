import { canonicalBytes } from './canonical.ts';
import { digestOf } from './digest.ts';

// Anchor 2, DSSE: "PAE = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body and LEN is an ASCII
// decimal with no leading zeros". D-RCPT-05 uses it for the spec's "joined with".
export const PROTO = '1.0-draft.2';
export const PAYLOAD_TYPE = {
  receipt: `urn:receipt:${PROTO}:receipt`,
  actorSig: `urn:receipt:${PROTO}:actor_sig`,
  approval: `urn:receipt:${PROTO}:approval`,
} as const;

const encoder = new TextEncoder();

function paeHead(payloadType: string, bodyLength: number): string {
  return `DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${bodyLength} `;
}

export function pae(payloadType: string, body: Uint8Array): Uint8Array {
  const head = encoder.encode(paeHead(payloadType, body.length));
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

/** `pae` over the UTF-8 of a text (e.g. a JCS text), encoded once. */
export function paeOfText(payloadType: string, text: string): Uint8Array {
  return Buffer.from(`${paeHead(payloadType, Buffer.byteLength(text))}${text}`);
}

function without(object: Record<string, unknown>, member: string): Record<string, unknown> {
  const { [member]: _dropped, ...rest } = object;
  return rest;
}

/** Envelope sig: PAE(urn:receipt:1.0-draft.2:receipt, JCS(receipt without "sig")). */
export function receiptSigInput(receipt: Record<string, unknown>): Uint8Array {
  return pae(PAYLOAD_TYPE.receipt, canonicalBytes(without(receipt, 'sig')));
}

/** Seed: "actor_sig ... over the grant identifier joined with the canonical act": PAE(actor_sig type, JCS([grantId, act without actor_sig])). */
export function actorSigInput(grantId: string, act: Record<string, unknown>): Uint8Array {
  return pae(PAYLOAD_TYPE.actorSig, canonicalBytes([grantId, without(act, 'actor_sig')]));
}

/** The act digest: digest of JCS(act without actor_sig), so an approval does not depend on the conformance level. */
export function actDigestOf(act: Record<string, unknown>): string {
  return digestOf(without(act, 'actor_sig'));
}

/** Seed: "approval ... over the the service identifier joined with the act digest": PAE(approval type, JCS([serviceId, actDigest])). */
export function approvalSigInput(serviceId: string, act: Record<string, unknown>): Uint8Array {
  return pae(PAYLOAD_TYPE.approval, canonicalBytes([serviceId, actDigestOf(act)]));
}
