import { createPrivateKey, createPublicKey, randomBytes, sign as nodeSign, type KeyObject } from 'node:crypto';
import { keyrefOf } from './keyref.ts';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * An Ed25519 key pair, all in node:crypto: signing is deterministic RFC 8032, and the public key is
 * the JWK `x` of the key node:crypto derives (ed25519.test.ts checks both byte for byte against
 * @noble/curves). Deriving it with noble cost every run that starts the mock 14 modules, about 60 ms
 * of CPU and 20 MiB for its precomputed tables (issue 41).
 */
export class Ed25519Key {
  readonly publicKey: Uint8Array;
  readonly keyref: string;
  readonly #seed: Uint8Array;
  readonly #nodeKey: KeyObject;

  private constructor(seed: Uint8Array) {
    this.#seed = Uint8Array.from(seed);
    this.#nodeKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, this.#seed]), format: 'der', type: 'pkcs8' });
    this.publicKey = new Uint8Array(Buffer.from(createPublicKey(this.#nodeKey).export({ format: 'jwk' }).x ?? '', 'base64url'));
    if (this.publicKey.length !== 32) throw new Error('node:crypto derived an Ed25519 public key that is not 32 bytes');
    this.keyref = keyrefOf(this.publicKey);
  }

  static fromSeed(seed: Uint8Array): Ed25519Key {
    if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new TypeError('Ed25519 seed must be 32 bytes');
    return new Ed25519Key(seed);
  }

  static generate(): Ed25519Key {
    return new Ed25519Key(randomBytes(32));
  }

  /** The 32-byte private seed. Handle with care: never print it. */
  exportSeed(): Uint8Array {
    return Uint8Array.from(this.#seed);
  }

  sign(message: Uint8Array): Uint8Array {
    return new Uint8Array(nodeSign(null, message, this.#nodeKey));
  }

  /** `sign` as base64url text (no copy of the signature bytes). */
  signToBase64url(message: Uint8Array): string {
    return nodeSign(null, message, this.#nodeKey).toString('base64url');
  }
}

export function generateKey(): Ed25519Key {
  return Ed25519Key.generate();
}
