import fc from 'fast-check';

/** Nesting depth of a parsed JSON value (a scalar is 0, `[]` is 1), without recursion. */
export function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    const here = d + 1;
    if (here > max) max = here;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, here]);
  }
  return max;
}

/** JSON.parse, or undefined when the text is not JSON. */
export function parsed(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** JSON text that reaches the corners: deep nesting, strings full of brackets and escapes, every number form. */
export const jsonText: fc.Arbitrary<string> = fc.oneof(
  fc.json({ depthSize: 'medium' }),
  fc.integer({ min: 1, max: 80 }).chain((n) => fc.tuple(fc.constant(n), fc.array(fc.constantFrom('[', '{"k":'), { minLength: n, maxLength: n }))).map(([, opens]) => opens.join('') + '1' + opens.map((o) => (o === '[' ? ']' : '}')).reverse().join('')),
  fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ':', ',', '1') , maxLength: 40 }),
  fc.jsonValue().map((v) => JSON.stringify(v)),
);
