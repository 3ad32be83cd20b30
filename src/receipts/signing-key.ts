import { createPrivateKey, randomBytes, sign as nodeSign, type KeyObject } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { keyrefOf } from './keyref.ts';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An Ed25519 key pair. Signing uses node:crypto (deterministic RFC 8032, byte-identical to noble; see tests). */
export class Ed25519Key {
  readonly publicKey: Uint8Array;
  readonly keyref: string;
  readonly #seed: Uint8Array;
  readonly #nodeKey: KeyObject;

  private constructor(seed: Uint8Array) {
    this.#seed = Uint8Array.from(seed);
    this.publicKey = ed25519.getPublicKey(this.#seed);
    this.keyref = keyrefOf(this.publicKey);
    this.#nodeKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, this.#seed]), format: 'der', type: 'pkcs8' });
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

  /** Reference signing path (pure noble); same bytes as `sign`. */
  signWithNoble(message: Uint8Array): Uint8Array {
    return ed25519.sign(message, this.#seed);
  }
}

export function generateKey(): Ed25519Key {
  return Ed25519Key.generate();
}
