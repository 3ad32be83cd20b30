import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalMembersAround, canonicalString, CanonicalizationError } from './canonical.ts';

/** The reference: the `canonicalize` package itself, its errors as text. */
function reference(value: unknown): { text: string | undefined } | { error: string } {
  try {
    return { text: canonicalize(value) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function ours(value: unknown): { text: string | undefined } | { error: string } {
  try {
    return { text: canonicalString(value) };
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw error;
    // The package returns undefined where canonicalString refuses ("no JSON form").
    return error.message === 'value has no JSON form' ? { text: undefined } : { error: error.message };
  }
}

const runs = (n: number) => ({ numRuns: n, ...(process.env['FC_SEED'] === undefined ? {} : { seed: Number(process.env['FC_SEED']) }) });

describe('canonicalString is the canonicalize package (RFC 8785) on every value', () => {
  it('gives the same text as the package on JSON values with any UTF-16 strings, lone surrogates included', () => {
    const strings = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('\ud800', 'a\udfffb', '\ud83d\ude00', '\u2028', '"\\/\b\f\n\r\t\u0000\u001f\u007f'));
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(strings, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(-0, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, NaN, Infinity)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 5 }), fc.dictionary(strings, tie('node'), { maxKeys: 5 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(ours(v)).toEqual(reference(v));
      }),
      runs(2000),
    );
  });

  it('gives the same text or error as the package on anything (undefined, symbols, functions, toJSON, sparse arrays, boxed values, bigint)', () => {
    const value = fc.anything({ withBoxedValues: true, withSet: true, withMap: true, withNullPrototype: true, withBigInt: true, withDate: true, withTypedArray: true, withSparseArray: true, withObjectString: true, stringUnit: 'binary' });
    fc.assert(
      fc.property(value, fc.constantFrom(undefined, Symbol('s'), () => 1), (v, odd) => {
        expect(ours(v)).toEqual(reference(v));
        const withOdd = { a: v, b: odd, c: [odd, v] };
        expect(ours(withOdd)).toEqual(reference(withOdd));
      }),
      runs(1000),
    );
  });

  it('refuses a cycle with the package message, and nests deeper than the fast writer goes', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = { back: cyclic };
    expect(() => canonicalString(cyclic)).toThrow(new CanonicalizationError('Circular reference detected'));
    let deep: unknown = 'x';
    for (let i = 0; i < 2000; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    expect(canonicalString(deep)).toBe(canonicalize(deep));
  });

  it('sorts keys by UTF-16 code units, not by code points or locale', () => {
    const value = { '\ud83d\ude00': 1, '\uffff': 2, b: 3, B: 4, '10': 5, '9': 6 };
    expect(canonicalString(value)).toBe('{"10":5,"9":6,"B":4,"b":3,"\ud83d\ude00":1,"\uffff":2}');
    expect(new TextDecoder().decode(canonicalBytes(value))).toBe(canonicalString(value));
  });

  it('splits the members of an object around a name it lacks, so that the JCS with that member added is the join', () => {
    const names = fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom('sia', 'sih', 'si', 'sig2', 'Sig', '', 'prev', 'zz'));
    fc.assert(
      fc.property(fc.dictionary(names, fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined), fc.string({ unit: 'binary' }))), fc.jsonValue({ maxDepth: 1 }), (object, added) => {
        if ('sig' in object) return;
        const whole = ours({ ...object, sig: added });
        let split: { text: string | undefined } | { error: string };
        try {
          const { before, after } = canonicalMembersAround(object, 'sig');
          split = { text: `{${[before, `"sig":${canonicalString(added)}`, after].filter((t) => t.length > 0).join(',')}}` };
        } catch (error) {
          split = { error: (error as Error).message };
        }
        expect(split).toEqual(whole);
      }),
      runs(1000),
    );
    expect(() => canonicalMembersAround({ sig: 1 }, 'sig')).toThrow(CanonicalizationError);
  });
});
