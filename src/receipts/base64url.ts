// Anchor 2, Encodings: Buffer.from(s,'base64url') is lenient (skips junk, accepts padding and
// non-zero trailing bits), so every decode is a pattern check plus a re-encode-equals check.

export type Base64urlDecode =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: 'alphabet' | 'length' | 'noncanonical' };

export function encodeBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

export function decodeBase64url(text: string, expectedBytes?: number): Base64urlDecode {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return { ok: false, reason: 'alphabet' };
  if (text.length % 4 === 1) return { ok: false, reason: 'length' };
  const bytes = Buffer.from(text, 'base64url');
  if (expectedBytes !== undefined && bytes.length !== expectedBytes) return { ok: false, reason: 'length' };
  if (bytes.toString('base64url') !== text) return { ok: false, reason: 'noncanonical' };
  return { ok: true, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}
