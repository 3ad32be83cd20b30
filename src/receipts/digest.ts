import { createHash, hash } from 'node:crypto';
import { canonicalString } from './canonical.ts';

// D-RCPT-02 (anchor 3, digest): "sha256:" + 64 lowercase hex over JCS bytes, pattern ^sha256:[0-9a-f]{64}$.
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
const encoder = new TextEncoder();

export function sha256(bytes: Uint8Array): Uint8Array {
  return createHash('sha256').update(bytes).digest();
}

export function digestOfBytes(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The digest of the UTF-8 bytes of a text (e.g. a JCS text already made). */
export function digestOfText(text: string): string {
  return `sha256:${hash('sha256', text, 'hex')}`;
}

/** The digest of a JSON value: SHA-256 over its canonical (JCS) bytes. */
export function digestOf(value: unknown): string {
  return digestOfText(canonicalString(value));
}

/** D-RCPT-10: the token commitment is the digest of the UTF-8 bytes of the token string (not of its JSON form). */
export function tokenCommitment(token: string): string {
  return digestOfBytes(encoder.encode(token));
}

/** The 32 raw bytes of a well-formed digest string, or undefined. */
export function digestBytes(digest: string): Uint8Array | undefined {
  if (!DIGEST_PATTERN.test(digest)) return undefined;
  return Buffer.from(digest.slice(7), 'hex');
}
