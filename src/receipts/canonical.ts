import canonicalize from 'canonicalize';

const encoder = new TextEncoder();

export class CanonicalizationError extends Error {
  override readonly name = 'CanonicalizationError';
}

/**
 * D-RCPT-01: the canonical form of a value is its RFC 8785 (JCS) serialisation, as produced by
 * the `canonicalize` package (4.0.0). Feed it only values from the strict JSON reader or plain
 * JSON data built in code (no `toJSON`, functions, undefined, NaN, lone surrogates).
 */
export function canonicalString(value: unknown): string {
  let out: string | undefined;
  try {
    out = canonicalize(value);
  } catch (error) {
    throw new CanonicalizationError((error as Error).message, { cause: error });
  }
  if (typeof out !== 'string') throw new CanonicalizationError('value has no JSON form');
  return out;
}

/** D-RCPT-01: canonical bytes = UTF-8 of the JCS string. */
export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalString(value));
}
