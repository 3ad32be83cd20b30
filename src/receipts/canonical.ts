import canonicalize from 'canonicalize';

const encoder = new TextEncoder();

export class CanonicalizationError extends Error {
  override readonly name = 'CanonicalizationError';
}

// With the u flag a surrogate pair is one code point, so this matches only lone surrogates.
const LONE_SURROGATE = /\p{Cs}/u;
const MAX_FAST_DEPTH = 512;
/** Thrown inside the fast writer when a value needs the reference library (errors included). */
const FALLBACK: unique symbol = Symbol('canonical-fallback');

function jsonString(text: string): string {
  // Most strings need no escape at all: quoted as they are (what JSON.stringify would give).
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) {
      if (LONE_SURROGATE.test(text)) throw FALLBACK;
      return JSON.stringify(text);
    }
  }
  return `"${text}"`;
}

/**
 * JCS of plain JSON data, the same text as `canonicalize` 5.1.0: keys sorted by UTF-16 code units,
 * undefined and symbol members left out, undefined and symbol array entries as null, strings and
 * numbers as JSON.stringify (RFC 8785 uses the ECMAScript forms). Anything else (toJSON, sparse
 * arrays, boxed primitives, functions, bigint, NaN, Infinity, lone surrogates, very deep nesting) is
 * not decided here.
 */
function fastJcs(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return jsonString(value);
    case 'number':
      if (!Number.isFinite(value)) throw FALLBACK;
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth > MAX_FAST_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function' || value instanceof Boolean || value instanceof Number || value instanceof String) throw FALLBACK;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          const item: unknown = value[i];
          if (item === undefined || typeof item === 'symbol') {
            if (!(i in value)) throw FALLBACK;
            out += 'null';
          } else out += fastJcs(item, depth + 1);
        }
        return `${out}]`;
      }
      const object = value as Record<string, unknown>;
      const keys = Object.keys(object).sort();
      let out = '{';
      for (const key of keys) {
        const item = object[key];
        if (item === undefined || typeof item === 'symbol') continue;
        if (out.length > 1) out += ',';
        out += `${jsonString(key)}:${fastJcs(item, depth + 1)}`;
      }
      return `${out}}`;
    }
    default:
      throw FALLBACK;
  }
}

/**
 * D-RCPT-01: the canonical form of a value is its RFC 8785 (JCS) serialisation, as produced by
 * the `canonicalize` package (5.1.0). Feed it only values from the strict JSON reader or plain
 * JSON data built in code (no `toJSON`, functions, undefined, NaN, lone surrogates).
 * Plain JSON data takes a faster writer with the same output (src/receipts/canonical.test.ts
 * compares the two on generated values); everything else, errors included, is the package's.
 */
export function canonicalString(value: unknown): string {
  try {
    return fastJcs(value, 0);
  } catch {
    // Not plain data, or an error: the reference decides (same text, same error message).
  }
  let out: string | undefined;
  try {
    out = canonicalize(value);
  } catch (error) {
    throw new CanonicalizationError((error as Error).message, { cause: error });
  }
  if (typeof out !== 'string') throw new CanonicalizationError('value has no JSON form');
  return out;
}

/**
 * The JCS members (`"name":value`, in JCS order, comma-joined) of an object that has no member
 * `split`, as two texts: the members sorted before `split` and those after. Joined around a
 * `"split":...` member they give the JCS of the object with that member added.
 */
export function canonicalMembersAround(object: Record<string, unknown>, split: string): { before: string; after: string } {
  const keys = Object.keys(object).sort();
  let before = '';
  let after = '';
  for (const key of keys) {
    const value = object[key];
    if (value === undefined || typeof value === 'symbol') continue;
    if (key === split) throw new CanonicalizationError(`the object already has a member "${split}"`);
    let text: string;
    try {
      text = `${jsonString(key)}:${fastJcs(value, 1)}`;
    } catch {
      text = `${canonicalString(key)}:${canonicalString(value)}`;
    }
    if (key < split) before += before.length === 0 ? text : `,${text}`;
    else after += after.length === 0 ? text : `,${text}`;
  }
  return { before, after };
}

/**
 * The JCS members of an object, in JCS order: `keys[i]` and its member text `"name":value`.
 * `{` + texts.join(',') + `}` is the object's JCS; leaving members out gives the JCS of the rest.
 */
export function canonicalMembers(object: Record<string, unknown>): { keys: string[]; texts: string[] } {
  const sorted = Object.keys(object).sort();
  const keys: string[] = [];
  const texts: string[] = [];
  for (const key of sorted) {
    const value = object[key];
    if (value === undefined || typeof value === 'symbol') continue;
    let text: string;
    try {
      text = `${jsonString(key)}:${fastJcs(value, 1)}`;
    } catch {
      text = `${canonicalString(key)}:${canonicalString(value)}`;
    }
    keys.push(key);
    texts.push(text);
  }
  return { keys, texts };
}

/** D-RCPT-01: canonical bytes = UTF-8 of the JCS string. */
export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalString(value));
}
