// fast-check arbitraries of JSON Schemas as clients send them in response_format (test helpers for
// the sampler's and the mock's property tests).
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);
const PATTERNS = ['^[a-z]{3}-\\d{2}$', '^[A-Z][a-z]+$', '^(yes|no|maybe)$', '^\\d{4}-\\d{2}$', '^[0-9a-f]{8}$'];
const FORMATS = ['date-time', 'date', 'time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'];

const leaf: fc.Arbitrary<Schema> = fc.oneof(
  fc.constant({ type: 'string' }),
  fc.constantFrom(...PATTERNS).map((pattern) => ({ type: 'string', pattern })),
  fc.constantFrom(...FORMATS).map((format) => ({ type: 'string', format })),
  fc.uniqueArray(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 4 }).map((e) => ({ type: 'string', enum: e })),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
  fc.record({ minimum: fc.integer({ min: -50, max: 50 }), span: fc.integer({ min: 0, max: 100 }) }).map(({ minimum, span }) => ({ type: 'integer', minimum, maximum: minimum + span })),
  fc.record({ minimum: fc.integer({ min: -5, max: 5 }), multipleOf: fc.constantFrom(0.5, 0.25, 0.1, 2, 3) }).map(({ minimum, multipleOf }) => ({ type: 'number', minimum, maximum: minimum + 20, multipleOf })),
  fc.record({ exclusiveMinimum: fc.integer({ min: 0, max: 10 }) }).map(({ exclusiveMinimum }) => ({ type: 'number', exclusiveMinimum, exclusiveMaximum: exclusiveMinimum + 1 })),
  fc.constant({ type: ['string', 'null'] }),
  fc.jsonValue({ maxDepth: 1 }).map((c) => ({ const: c })),
);

/** Schemas in OpenAI's strict subset: every object closed and fully required, anyOf, arrays with bounds. */
export const strictSchema: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema; object: Schema }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('object'),
    fc.record({ items: tie('node'), minItems: fc.integer({ min: 0, max: 2 }), extra: fc.integer({ min: 0, max: 3 }) }).map(({ items, minItems, extra }) => ({ type: 'array', items, minItems, maxItems: minItems + extra })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
  ),
  object: fc.dictionary(name, tie('node'), { maxKeys: 4 }).map((properties) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false })),
})).object;

/** Beyond strict mode: optional properties, allOf, oneOf, prefixItems, length bounds, uniqueItems. */
export const looseSchema: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ minLength: fc.integer({ min: 0, max: 5 }), extra: fc.integer({ min: 0, max: 10 }) }).map(({ minLength, extra }) => ({ type: 'string', minLength, maxLength: minLength + extra })),
    fc.record({ properties: fc.dictionary(name, tie('node'), { maxKeys: 4 }), req: fc.integer({ min: 0, max: 4 }) }).map(({ properties, req }) => ({ type: 'object', properties, required: Object.keys(properties).slice(0, req) })),
    fc.tuple(tie('node'), tie('node')).map(([a, b]) => ({ prefixItems: [a, b], type: 'array', items: false })),
    fc.record({ items: fc.constantFrom({ type: 'integer', minimum: 0, maximum: 1000 }, { type: 'string', pattern: '^[0-9a-f]{8}$' }), minItems: fc.integer({ min: 0, max: 3 }) }).map(({ items, minItems }) => ({ type: 'array', items, minItems, uniqueItems: true })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((parts) => ({ allOf: [{ type: 'object', properties: { kind: { const: 'x' } }, required: ['kind'] }, ...parts.filter((p) => p['type'] === 'object')] })),
  ),
})).node;

/** A recursive tree through $defs, as zod's z.lazy turns into JSON Schema. */
export const TREE: Schema = {
  type: 'object',
  properties: { root: { $ref: '#/$defs/node' } },
  required: ['root'],
  additionalProperties: false,
  $defs: {
    node: {
      type: 'object',
      properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } }, next: { anyOf: [{ $ref: '#/$defs/node' }, { type: 'null' }] } },
      required: ['label', 'children', 'next'],
      additionalProperties: false,
    },
  },
};
