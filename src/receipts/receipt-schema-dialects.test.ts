import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { receiptSchema, validateReceiptSchema } from './receipt-schema.ts';

// D-RCPT-28: no regex dialect accepts a patterned string with a line feed at its end. JSON Schema
// patterns are ECMA-262 (ajv), where `$` matches only at the end; Python's re, PCRE and Java let `$`
// match before a final line feed as well. The schema is compiled a second time with every `$` given
// that meaning, so the test sees what a Python jsonschema sees.

type Json = unknown;
/** `$` outside a character class and not escaped becomes `(?=\n?$)`: "end, or before a final line feed". */
function pythonDollar(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === ']') {
      inClass = false;
      out += c;
    } else if (c === '$' && !inClass) out += '(?=\\n?$)';
    else out += c;
  }
  return out;
}
function mapSchema(s: Json, f: (key: string, value: Json) => Json | undefined): Json {
  if (Array.isArray(s)) return s.map((x) => mapSchema(x, f));
  if (s === null || typeof s !== 'object') return s;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(s)) {
    const mapped = f(k, v);
    if (mapped !== undefined) out[k] = mapSchema(mapped, f);
  }
  return out;
}
const compile = (schema: Json) => new Ajv2020({ strict: false, allErrors: true }).compile(schema as object);
const asPython = (schema: Json) => mapSchema(schema, (k, v) => (k === 'pattern' && typeof v === 'string' ? pythonDollar(v) : v));
const python = compile(asPython(receiptSchema));
/** The schema without the guards D-RCPT-28 added (maxLength and the line-feed `not`), for the negative control. */
const unguarded = compile(asPython(mapSchema(receiptSchema, (k, v) => (k === 'maxLength' ? undefined : k === 'not' && JSON.stringify(v) === '{"pattern":"\\n"}' ? undefined : v))));

const K1 = 'did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw';
const D = `sha256:${'a'.repeat(64)}`;
const SIG = { alg: 'Ed25519', kid: K1, val: `${'Ab3_-'.repeat(17)}A` };
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const base = (): Doc => ({
  proto: '1.0-draft.2', type: 'receipt', id: 'rcpt_0001', iss: K1, iat: 1700000000, actor: K1, prev: D,
  act: { verb: 'model.call', resource: 'm', input_digest: D },
  decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_CAP', prose: 'cap' },
  cost: { amount: '0.5', unit: 'USD' }, sig: { ...SIG },
});
const members: [string, (d: Doc) => void][] = [
  ['id', (d) => (d.id += '\n')],
  ['iss (keyref)', (d) => (d.iss += '\n')],
  ['prev (digest)', (d) => (d.prev += '\n')],
  ['act.input_digest', (d) => (d.act.input_digest += '\n')],
  ['act.verb', (d) => (d.act.verb += '\n')],
  ['sig.kid', (d) => (d.sig.kid += '\n')],
  ['sig.val', (d) => (d.sig.val += '\n')],
  ['cost.amount', (d) => (d.cost.amount += '\n')],
  ['cost.unit', (d) => (d.cost.unit += '\n')],
  ['decision.reason', (d) => (d.decision = { result: 'denied', reason: 'PROTO_DENY_RATE\n' })],
  ['decision.subcode', (d) => (d.decision.subcode += '\n')],
];

describe('D-RCPT-28: patterned strings with a final line feed', () => {
  it('the base document is valid under ECMA-262 and under Python-style $ (control)', () => {
    expect(validateReceiptSchema(base())).toEqual({ ok: true });
    expect(python(base())).toBe(true);
  });

  it.each(members)('RCPT-SCHEMA-001: %s with a trailing line feed is rejected under ECMA-262 and under Python-style $', (_name, edit) => {
    const d = base();
    edit(d);
    expect(validateReceiptSchema(d).ok).toBe(false);
    expect(python(d)).toBe(false);
  });

  it('without maxLength and the line-feed guards, Python-style $ would accept every one of them (what the guards are for)', () => {
    for (const [name, edit] of members) {
      const d = base();
      edit(d);
      expect(unguarded(d), name).toBe(true);
    }
  });

  it('every string with a pattern has a maxLength', () => {
    const missing: string[] = [];
    const walk = (s: Json, path: string): void => {
      if (s === null || typeof s !== 'object') return;
      const o = s as Record<string, Json>;
      if (typeof o['pattern'] === 'string') {
        const hasMax = typeof o['maxLength'] === 'number';
        if (!hasMax) missing.push(path);
      }
      for (const [k, v] of Object.entries(o)) walk(v, `${path}/${k}`);
    };
    walk(receiptSchema, '');
    // Patterns in allOf branches share the maxLength of their first branch (sig.val, cost.amount).
    expect(missing.filter((p) => !/\/allOf\/[1-9]$/.test(p) && !p.includes('/properties/verb') && !p.endsWith('/not') && !p.includes('/if/'))).toEqual([]);
  });
});
