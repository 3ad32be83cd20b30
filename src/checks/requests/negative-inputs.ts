import fc from 'fast-check';

/** One generated invalid chat request body and what makes it invalid. */
export interface NegativeInput {
  why: string;
  body: unknown;
}

const wrongScalars = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}), fc.double({ noNaN: true }));

/**
 * Invalid chat request bodies built from a valid one: a required field missing, a field of the
 * wrong type, or a value out of its documented range (compat, CreateChatCompletionRequest).
 */
export function negativeInputArbitrary(model: string): fc.Arbitrary<NegativeInput> {
  const base = (): Record<string, unknown> => ({ model, messages: [{ role: 'user', content: 'hi' }] });
  const missing = fc.constantFrom('model', 'messages').map((field) => {
    const body = base();
    delete body[field];
    return { why: `missing ${field}`, body };
  });
  const wrongType = fc
    .tuple(fc.constantFrom('model', 'messages', 'temperature', 'stream', 'n', 'max_completion_tokens', 'top_p', 'tools', 'stop'), wrongScalars, fc.string({ minLength: 1, maxLength: 8 }))
    .filter(([field, value]) => {
      // Keep only values that really are of the wrong type for the field.
      if (field === 'temperature' || field === 'top_p') return typeof value !== 'number' && value !== null;
      if (field === 'n' || field === 'max_completion_tokens') return !(Number.isInteger(value)) && value !== null;
      if (field === 'stream') return typeof value !== 'boolean' && value !== null;
      if (field === 'stop') return !(value === null || typeof value === 'string' || Array.isArray(value));
      if (field === 'tools') return !Array.isArray(value) && value !== null;
      return true;
    })
    .map(([field, value, text]) => {
      const body = base();
      body[field] = field === 'temperature' || field === 'top_p' || field === 'n' || field === 'max_completion_tokens' || field === 'stream' ? (value === null ? text : value) : value;
      if ((field === 'model' || field === 'messages') && body[field] === null) body[field] = 0;
      return { why: `${field} of the wrong type`, body };
    });
  const badMessage = fc
    .oneof(
      fc.constant({ why: 'message is not an object', msg: 'hi' as unknown }),
      fc.constant({ why: 'message without role', msg: { content: 'hi' } as unknown }),
      fc.string({ minLength: 1, maxLength: 10 }).filter((r) => !['system', 'user', 'assistant', 'tool', 'developer', 'function'].includes(r)).map((role) => ({ why: `unknown role ${JSON.stringify(role)}`, msg: { role, content: 'hi' } as unknown })),
      fc.oneof(fc.integer(), fc.boolean(), fc.constant({ nested: 1 })).map((content) => ({ why: 'content of the wrong type', msg: { role: 'user', content } as unknown })),
    )
    .map(({ why, msg }) => ({ why, body: { ...base(), messages: [msg] } }));
  const outOfRange = fc
    .oneof(
      fc.double({ min: 2.0001, max: 1e6, noNaN: true }).map((v) => ['temperature', v] as const),
      fc.double({ min: -1e6, max: -0.0001, noNaN: true }).map((v) => ['temperature', v] as const),
      fc.double({ min: 1.0001, max: 1e6, noNaN: true }).map((v) => ['top_p', v] as const),
      fc.integer({ min: -1000, max: 0 }).map((v) => ['n', v] as const),
      fc.integer({ min: 129, max: 100_000 }).map((v) => ['n', v] as const),
      fc.integer({ min: -1000, max: -1 }).map((v) => ['max_completion_tokens', v] as const),
    )
    .map(([field, value]) => ({ why: `${field} ${value} out of range`, body: { ...base(), [field]: value } }));
  return fc.oneof(missing, wrongType, badMessage, outOfRange);
}

/** A bounded, seeded sample: the same seed gives the same inputs (so reports are reproducible). */
export function sampleNegativeInputs(model: string, seed: number, count: number): NegativeInput[] {
  return fc.sample(negativeInputArbitrary(model), { seed, numRuns: count });
}
