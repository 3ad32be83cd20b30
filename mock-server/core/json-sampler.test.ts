import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from './rng.ts';
import { sampleJson } from './json-sampler.ts';
import { strictSchemaError } from '../../src/protocols/chat-completions/chat-response-format.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

import { TREE, looseSchema, strictSchema, type Schema } from '../../test-support/schema-arbitraries.ts';

function sample(schema: Schema, seed: number): unknown {
  return sampleJson(schema, mulberry32(seed));
}

describe('JSON Schema sampler', () => {
  it('answers values valid against any schema of OpenAI\'s strict subset (property, checked by ajv)', () => {
    fc.assert(
      fc.property(strictSchema, fc.integer({ min: 0, max: 2 ** 31 - 1 }), (schema, seed) => {
        expect(strictSchemaError('s', schema)).toBeNull();
        const value = sample(schema, seed);
        const validate = ajv.compile(schema);
        expect(validate(value), JSON.stringify({ value, errors: validate.errors })).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('answers values valid against schemas beyond strict mode: optional properties, allOf, prefixItems, lengths, uniqueItems (property, ajv)', () => {
    fc.assert(
      fc.property(looseSchema, fc.integer({ min: 0, max: 2 ** 31 - 1 }), (schema, seed) => {
        const value = sample(schema, seed);
        const validate = ajv.compile(schema);
        expect(validate(value), JSON.stringify({ schema, value, errors: validate.errors })).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves out an optional property two allOf parts define differently (fast-check counterexample: const [] and enum [""])', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        a: {
          allOf: [
            { type: 'object', properties: { kind: { const: 'x' } }, required: ['kind'] },
            { type: 'object', properties: { m__: { const: [] } }, required: [] },
            { type: 'object', properties: { m__: { type: 'string', enum: [''] } }, required: [] },
          ],
        },
      },
      required: ['a'],
    };
    const validate = ajv.compile(schema);
    for (let seed = 0; seed < 20; seed++) {
      const value = sample(schema, seed);
      expect(validate(value), JSON.stringify({ value, errors: validate.errors })).toBe(true);
    }
  });

  it('expands a recursive $defs schema to a finite tree that validates', () => {
    const validate = ajv.compile(TREE);
    for (let seed = 0; seed < 50; seed++) {
      const value = sample(TREE, seed);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
      expect(JSON.stringify(value).length).toBeLessThan(20_000);
    }
  });

  it('gives the same value for the same seed and different values across seeds (property)', () => {
    fc.assert(
      fc.property(strictSchema, fc.integer({ min: 0, max: 2 ** 31 - 1 }), (schema, seed) => {
        expect(JSON.stringify(sample(schema, seed))).toBe(JSON.stringify(sample(schema, seed)));
      }),
      { numRuns: 100 },
    );
    const distinct = new Set(Array.from({ length: 20 }, (_, seed) => JSON.stringify(sample(TREE, seed))));
    expect(distinct.size).toBeGreaterThan(10);
  });
});
