import fc from 'fast-check';

/**
 * The input mix every target's fast-check arbitrary draws from: valid inputs from a model of the
 * format (the differential and model checks need them), corpus seeds mutated byte by byte (what a
 * mutational fuzzer does, without coverage feedback), and raw bytes.
 */

type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'set'; at: number; byte: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'erase'; at: number; length: number }
  | { kind: 'repeat'; at: number; length: number; times: number }
  | { kind: 'splice'; at: number; from: number; length: number };

/** Bytes that matter to most of the text formats here: terminators, quotes, brackets, escapes, separators. */
const interesting = [0x0a, 0x0d, 0x00, 0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x3a, 0x2c, 0x20, 0x09, 0x23, 0x3d, 0xef, 0xbb, 0xbf, 0xff, 0xc0, 0xed, 0xa0, 0x80];

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), byte: fc.oneof(fc.constantFrom(...interesting), fc.integer({ min: 0, max: 255 })) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.constantFrom(...interesting).map((b) => Uint8Array.of(b))) }),
  fc.record({ kind: fc.constant('erase' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }), times: fc.integer({ min: 2, max: 2000 }) }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), from: fc.nat(), length: fc.integer({ min: 1, max: 256 }) }),
);

function apply(input: Uint8Array, m: Mutation, maxLen: number): Uint8Array {
  const n = input.length;
  const at = n === 0 ? 0 : m.at % (n + 1);
  const join = (...parts: Uint8Array[]): Uint8Array => {
    const total = parts.reduce((s, p) => s + p.length, 0);
    const out = new Uint8Array(Math.min(total, maxLen));
    let o = 0;
    for (const p of parts) {
      if (o >= out.length) break;
      const take = p.subarray(0, out.length - o);
      out.set(take, o);
      o += take.length;
    }
    return out;
  };
  switch (m.kind) {
    case 'flip': {
      if (n === 0) return input;
      const out = input.slice();
      out[at % n] = (out[at % n] as number) ^ (1 << m.bit);
      return out;
    }
    case 'set': {
      if (n === 0) return Uint8Array.of(m.byte);
      const out = input.slice();
      out[at % n] = m.byte;
      return out;
    }
    case 'insert':
      return join(input.subarray(0, at), m.bytes, input.subarray(at));
    case 'erase':
      return join(input.subarray(0, at), input.subarray(Math.min(n, at + m.length)));
    case 'repeat': {
      const piece = input.subarray(at, Math.min(n, at + m.length));
      if (piece.length === 0) return input;
      return join(input.subarray(0, at), ...Array.from({ length: Math.min(m.times, Math.ceil(maxLen / piece.length)) }, () => piece), input.subarray(at));
    }
    case 'splice': {
      const from = n === 0 ? 0 : m.from % n;
      return join(input.subarray(0, at), input.subarray(from, Math.min(n, from + m.length)), input.subarray(at));
    }
  }
}

/** A seed (from the corpus, or a valid generated input) with up to eight byte-level mutations. */
export function mutated(base: fc.Arbitrary<Uint8Array>, maxLen: number): fc.Arbitrary<Uint8Array> {
  return fc.tuple(base, fc.array(mutation, { minLength: 1, maxLength: 8 })).map(([input, ms]) => ms.reduce((acc, m) => apply(acc, m, maxLen), input.subarray(0, maxLen)));
}

/** The usual mix: valid inputs, mutated valid inputs, mutated corpus seeds, raw bytes. */
export function inputMix(valid: fc.Arbitrary<Uint8Array>, seeds: readonly Uint8Array[], maxLen: number): fc.Arbitrary<Uint8Array> {
  const seed = seeds.length === 0 ? valid : fc.constantFrom(...seeds);
  return fc.oneof(
    { arbitrary: valid, weight: 3 },
    { arbitrary: mutated(valid, maxLen), weight: 3 },
    { arbitrary: seeds.length === 0 ? mutated(valid, maxLen) : fc.oneof(seed.map((s) => s.subarray(0, maxLen)), mutated(seed, maxLen)), weight: 3 },
    { arbitrary: fc.uint8Array({ maxLength: Math.min(maxLen, 512) }), weight: 1 },
  );
}

/** Text that stays readable but reaches the corners: ASCII, escapes, multibyte and astral characters, lone surrogates' replacements. */
export const someText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: fc.constantFrom('a', ' ', '\\', '"', 'n', '\t', 'é', '€', '😀', '\u2028', '=', ',', '{', '}', ':'), maxLength }),
  );
