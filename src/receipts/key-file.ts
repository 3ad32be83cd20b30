import { decodeBase64url, encodeBase64url } from './base64url.ts';
import { Ed25519Key } from './signing-key.ts';
import { parseStrictText } from './strict-json.ts';

/** A private key file is an RFC 8037 OKP JWK with `kid` = the did:key keyref; written with mode 0600. */
export function privateKeyFileText(key: Ed25519Key): string {
  return `${JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: encodeBase64url(key.publicKey), d: encodeBase64url(key.exportSeed()), kid: key.keyref })}\n`;
}

export type KeyFileRead = { ok: true; key: Ed25519Key } | { ok: false; reason: string };

export function readPrivateKeyText(text: string): KeyFileRead {
  const parsed = parseStrictText(text.trim());
  if (!parsed.ok) return { ok: false, reason: `not JSON: ${parsed.error.detail}` };
  const jwk = parsed.value as Record<string, unknown>;
  if (jwk === null || typeof jwk !== 'object' || jwk['kty'] !== 'OKP' || jwk['crv'] !== 'Ed25519' || typeof jwk['d'] !== 'string') {
    return { ok: false, reason: 'not an Ed25519 OKP JWK with a private part "d"' };
  }
  const d = decodeBase64url(jwk['d'], 32);
  if (!d.ok) return { ok: false, reason: '"d" is not 32 bytes of canonical base64url' };
  const key = Ed25519Key.fromSeed(d.bytes);
  if (jwk['x'] !== undefined && jwk['x'] !== encodeBase64url(key.publicKey)) return { ok: false, reason: '"x" does not match the private key' };
  if (jwk['kid'] !== undefined && jwk['kid'] !== key.keyref) return { ok: false, reason: '"kid" does not match the private key' };
  return { ok: true, key };
}

// Kept in keyref.ts so that `iari receipts verify` does not load the signing code (noble) at start-up.
export { readPublicKeyref } from './keyref.ts';
