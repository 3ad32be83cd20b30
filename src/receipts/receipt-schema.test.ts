import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { ajvErrorPointer, findingCodeOfComment, receiptSchema, validateReceiptSchema } from './receipt-schema.ts';
import { VALIDATOR_PATH, validatorSource } from '../../scripts/gen-receipt-validator.ts';

// Schema-only documents: signatures are well-formed strings, not real signatures (the schema does not verify them).
const K1 = 'did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw';
const K2 = 'did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT';
const D = (c: string) => `sha256:${c.repeat(64)}`;
const SIG = (kid: string) => ({ alg: 'Ed25519', kid, val: `${'Ab3_-'.repeat(17)}A` });

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const gate = (): Doc => ({
  proto: '1.0-draft.2',
  type: 'receipt',
  id: 'rcpt_0001',
  iss: K1,
  iat: 1700000000,
  actor: K2,
  act: { verb: 'model.call', resource: 'gpt-4o-mini', input_digest: D('a') },
  decision: { result: 'allowed' },
  cost: { amount: '0.000123', unit: 'USD' },
  sig: SIG(K1),
});
const outcome = (): Doc => ({ ...gate(), id: 'rcpt_0002', prev: D('b'), gate: D('b'), outcome: { status: 'ok', output_digest: D('c'), effects: [], resolved: { provider: 'mock', model: 'gpt-4o-mini', boundary: ['default'] } } });
const denial = (): Doc => ({ ...gate(), decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: 'monthly spend cap reached' } });
const crit = (): Doc => ({ ...gate(), decision: { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT', crit_object: { object: D('d'), path: '/x~1y' } } });
const stop = (): Doc => ({ ...gate(), act: { verb: 'stop.approve', resource: 'session/1' }, approval: SIG(K2) });
const tokenStop = (): Doc => ({ ...gate(), act: { verb: 'stop.approve', resource: 'session/1' }, token: 'tok_1' });
const edit = (base: () => Doc, f: (d: Doc) => void) => () => {
  const d = base();
  f(d);
  return d;
};

const valid: [string, () => Doc][] = [
  ['an allowed model.call gate', gate],
  ['a model.call outcome with resolved', outcome],
  ['a PROTO_DENY_POLICY denial with subcode and prose', denial],
  ['a PROTO_DENY_UNKNOWN_CRIT denial with crit_object', crit],
  ['a stop.approve in signature mode', stop],
  ['a stop.approve in token mode', tokenStop],
  ['a decision with the member literally named "the service"', edit(gate, (d) => (d.decision['the service'] = D('e')))],
  ['a failed model.call outcome with resolved null', edit(outcome, (d) => (d.outcome = { status: 'failed', resolved: null }))],
  ['a level 3 Receipt with context and actor_sig', edit(gate, (d) => { d.context = D('f'); d.act.actor_sig = SIG(K2); })],
  ['a Receipt with an unknown but well-formed verb', edit(gate, (d) => (d.act.verb = 'tool.invoke'))],
  ['a budget in tokens with a canonical integer amount', edit(gate, (d) => (d.cost = { amount: '120', unit: 'tokens' }))],
];

// [rule (seed table line or D-RCPT decision), document, pointer, finding or keyword]
const invalid: [string, () => Doc, string, string][] = [
  ...(['proto', 'type', 'id', 'iss', 'actor', 'act', 'decision', 'cost', 'iat', 'sig'] as const).map(
    (m) => [`RCPT-SCHEMA-001 required top-level member ${m}`, edit(gate, (d) => delete d[m]), `/${m}`, 'required'] as [string, () => Doc, string, string],
  ),
  ['RCPT-SCHEMA-003 type: constant receipt', edit(gate, (d) => (d.type = 'Receipt')), '/type', 'const'],
  ['RCPT-SCHEMA-006 prev is a digest', edit(outcome, (d) => (d.prev = 'sha256:ABC')), '/prev', 'BAD_DIGEST'],
  ['RCPT-SCHEMA-007 actor is a keyref', edit(gate, (d) => (d.actor = 'did:web:x')), '/actor', 'BAD_KEYREF'],
  ['RCPT-SCHEMA-001 act is an object', edit(gate, (d) => (d.act = 'model.call')), '/act', 'type'],
  ['RCPT-SCHEMA-006 context is a digest', edit(gate, (d) => (d.context = 'ctx')), '/context', 'BAD_DIGEST'],
  ['RCPT-SCHEMA-008 approval is a sig', edit(stop, (d) => delete d.approval.val), '/approval/val', 'required'],
  ['RCPT-SCHEMA-036 token is a string', edit(tokenStop, (d) => (d.token = 1)), '/token', 'type'],
  ['RCPT-SCHEMA-001 decision is an object', edit(gate, (d) => (d.decision = 'allowed')), '/decision', 'type'],
  ['RCPT-SCHEMA-006 gate is a digest', edit(outcome, (d) => (d.gate = 'rcpt_0001')), '/gate', 'BAD_DIGEST'],
  ['RCPT-SCHEMA-001 outcome is an object', edit(outcome, (d) => (d.outcome = 'ok')), '/outcome', 'type'],
  ['RCPT-SCHEMA-009 cost is a budget', edit(gate, (d) => (d.cost = '0.1')), '/cost', 'type'],
  ['RCPT-SCHEMA-040 D-RCPT-15 the top level is closed', edit(gate, (d) => (d.note = 'x')), '/note', 'additionalProperties'],
  ['RCPT-SCHEMA-011 act.verb required', edit(gate, (d) => delete d.act.verb), '/act/verb', 'required'],
  ['RCPT-SCHEMA-012 act.verb is a verb', edit(gate, (d) => (d.act.verb = 'call')), '/act/verb', 'BAD_VERB'],
  ['RCPT-SCHEMA-014 act.resource required', edit(gate, (d) => delete d.act.resource), '/act/resource', 'required'],
  ['RCPT-SCHEMA-014 act.resource minimum length 1', edit(gate, (d) => (d.act.resource = '')), '/act/resource', 'minLength'],
  ['RCPT-SCHEMA-006 act.input_digest is a digest', edit(gate, (d) => (d.act.input_digest = D('A'))), '/act/input_digest', 'BAD_DIGEST'],
  ['RCPT-SCHEMA-008 act.actor_sig is a sig', edit(gate, (d) => (d.act.actor_sig = { ...SIG(K2), alg: 'EdDSA' })), '/act/actor_sig/alg', 'SIG_ALG_UNSUPPORTED'],
  ['RCPT-SCHEMA-011 act: no other members allowed', edit(gate, (d) => (d.act.model = 'x')), '/act/model', 'additionalProperties'],
  ['RCPT-SCHEMA-016 decision.result required', edit(gate, (d) => (d.decision = {})), '/decision/result', 'required'],
  ['RCPT-SCHEMA-016 decision.result allowed or denied', edit(gate, (d) => (d.decision.result = 'ok')), '/decision/result', 'enum'],
  ['RCPT-SCHEMA-018 decision.reason pattern ^PROTO_DENY_[A-Z_]+$', edit(gate, (d) => (d.decision = { result: 'denied', reason: 'DENY_POLICY' })), '/decision/reason', 'pattern'],
  ['RCPT-SCHEMA-017 decision.reason required when result is denied', edit(gate, (d) => (d.decision.result = 'denied')), '/decision/reason', 'REASON_MISSING'],
  ['RCPT-SCHEMA-019 D-RCPT-17 reason only when denied', edit(stop, (d) => (d.decision.reason = 'PROTO_DENY_X')), '/decision/reason', 'REASON_ON_ALLOWED'],
  ['RCPT-SCHEMA-021 decision.subcode pattern ^X_[A-Z0-9]+_[A-Z0-9_]+$', edit(denial, (d) => (d.decision.subcode = 'X_CAP')), '/decision/subcode', 'pattern'],
  ['RCPT-SCHEMA-020 decision.subcode required when reason is PROTO_DENY_POLICY', edit(denial, (d) => delete d.decision.subcode), '/decision/subcode', 'POLICY_DETAIL_MISSING'],
  ['RCPT-SCHEMA-022 decision.prose required when reason is PROTO_DENY_POLICY', edit(denial, (d) => delete d.decision.prose), '/decision/prose', 'POLICY_DETAIL_MISSING'],
  ['RCPT-SCHEMA-023 D-RCPT-17 subcode only with PROTO_DENY_POLICY', edit(crit, (d) => (d.decision.prose = 'x')), '/decision/prose', 'SCHEMA_UNKNOWN_FIELD'],
  ['RCPT-SCHEMA-027 decision["the service"] is a digest', edit(gate, (d) => (d.decision['the service'] = 'svc')), '/decision/the service', 'BAD_DIGEST'],
  ['RCPT-SCHEMA-024 decision.crit_object required when reason is PROTO_DENY_UNKNOWN_CRIT', edit(crit, (d) => delete d.decision.crit_object), '/decision/crit_object', 'CRIT_OBJECT_MISSING'],
  ['RCPT-SCHEMA-026 D-RCPT-17 crit_object only with PROTO_DENY_UNKNOWN_CRIT', edit(denial, (d) => (d.decision.crit_object = { object: D('d'), path: '' })), '/decision/crit_object', 'CRIT_OBJECT_UNEXPECTED'],
  ['RCPT-SCHEMA-025 crit_object.object required', edit(crit, (d) => delete d.decision.crit_object.object), '/decision/crit_object/object', 'required'],
  ['RCPT-SCHEMA-025 crit_object.path required', edit(crit, (d) => delete d.decision.crit_object.path), '/decision/crit_object/path', 'required'],
  ['RCPT-SCHEMA-025 crit_object.object is a digest', edit(crit, (d) => (d.decision.crit_object.object = 'x')), '/decision/crit_object/object', 'BAD_DIGEST'],
  ['RCPT-SCHEMA-025 D-RCPT-18 crit_object.path is a JSON Pointer', edit(crit, (d) => (d.decision.crit_object.path = 'a/b')), '/decision/crit_object/path', 'pattern'],
  ['RCPT-SCHEMA-025 crit_object: no others', edit(crit, (d) => (d.decision.crit_object.why = 'x')), '/decision/crit_object/why', 'additionalProperties'],
  ['RCPT-SCHEMA-015 decision: no other members allowed', edit(gate, (d) => (d.decision.score = 1)), '/decision/score', 'additionalProperties'],
  ['RCPT-SCHEMA-029 outcome.status required', edit(outcome, (d) => delete d.outcome.status), '/outcome/status', 'required'],
  ['RCPT-SCHEMA-029 outcome.status ok, failed or interrupted', edit(outcome, (d) => (d.outcome.status = 'done')), '/outcome/status', 'enum'],
  ['RCPT-SCHEMA-030 outcome.effects is an array of string', edit(outcome, (d) => (d.outcome.effects = [1])), '/outcome/effects/0', 'type'],
  ['RCPT-SCHEMA-006 outcome.output_digest is a digest', edit(outcome, (d) => (d.outcome.output_digest = 'sha-256:x')), '/outcome/output_digest', 'BAD_DIGEST'],
  ['RCPT-SCHEMA-031 resolved members provider, model, boundary all required', edit(outcome, (d) => delete d.outcome.resolved.boundary), '/outcome/resolved/boundary', 'required'],
  ['RCPT-SCHEMA-031 resolved.provider is a string', edit(outcome, (d) => (d.outcome.resolved.provider = 1)), '/outcome/resolved/provider', 'type'],
  ['RCPT-SCHEMA-031 resolved.boundary is an array of string', edit(outcome, (d) => (d.outcome.resolved.boundary = 'default')), '/outcome/resolved/boundary', 'type'],
  ['RCPT-SCHEMA-031 resolved: no others', edit(outcome, (d) => (d.outcome.resolved.region = 'eu')), '/outcome/resolved/region', 'additionalProperties'],
  ['RCPT-SCHEMA-034 model.call outcome must record resolved', edit(outcome, (d) => delete d.outcome.resolved), '/outcome/resolved', 'RESOLVED_MISSING'],
  ['RCPT-PAIR-007 D-RCPT-16 resolved null only when failed or interrupted', edit(outcome, (d) => (d.outcome.resolved = null)), '/outcome/resolved', 'RESOLVED_MISSING'],
  ['RCPT-SCHEMA-028 outcome: no other members allowed', edit(outcome, (d) => (d.outcome.ms = 3)), '/outcome/ms', 'additionalProperties'],
  ['RCPT-SCHEMA-032 gate required whenever outcome is present', edit(outcome, (d) => delete d.gate), '/gate', 'GATE_REF_MISSING'],
  ['RCPT-SCHEMA-033 gate: outcome Receipts only', edit(gate, (d) => (d.gate = D('b'))), '/gate', 'GATE_REF_WITHOUT_OUTCOME'],
  ['RCPT-PAIR-003 D-RCPT-17 no outcome on a denied Receipt', edit(denial, (d) => { d.outcome = { status: 'failed', resolved: null }; d.gate = D('b'); }), '/outcome', 'OUTCOME_ON_DENIED'],
  ['RCPT-SCHEMA-035 approval only on stop.approve Receipts', edit(gate, (d) => (d.approval = SIG(K2))), '/approval', 'APPROVAL_WRONG_VERB'],
  ['RCPT-SCHEMA-036 token only on stop.approve Receipts', edit(gate, (d) => (d.token = 'tok')), '/token', 'TOKEN_WRONG_VERB'],
  ['RCPT-SCHEMA-037 D-RCPT-10 approval and token are exclusive', edit(stop, (d) => (d.token = 'tok')), '/token', 'APPROVAL_AND_TOKEN'],
  ['RCPT-PAIR-008 D-RCPT-10 an allowed stop.approve gate carries approval or token', edit(stop, (d) => delete d.approval), '', 'STOP_EVIDENCE_MISSING'],
  ['RCPT-SCHEMA-002 envelope proto: version label 1.0-draft.2', edit(gate, (d) => (d.proto = '1.0')), '/proto', 'UNSUPPORTED_PROTO'],
  ['RCPT-SCHEMA-004 D-RCPT-12 envelope id pattern', edit(gate, (d) => (d.id = 'a b')), '/id', 'pattern'],
  ['RCPT-SCHEMA-005 D-RCPT-08 envelope iat is an integer', edit(gate, (d) => (d.iat = 1.5)), '/iat', 'type'],
  ['RCPT-SCHEMA-005 D-RCPT-08 envelope iat is not negative', edit(gate, (d) => (d.iat = -1)), '/iat', 'minimum'],
  ['RCPT-SCHEMA-007 D-RCPT-03 envelope iss is a keyref', edit(gate, (d) => (d.iss = K1.replace('z6Mk', 'z6MK'))), '/iss', 'BAD_KEYREF'],
  ['RCPT-SCHEMA-007 D-RCPT-04 sig.kid is a keyref', edit(gate, (d) => (d.sig.kid = 'k1')), '/sig/kid', 'BAD_KEYREF'],
  ['RCPT-SIG-003 D-RCPT-04 sig.val is 86 base64url characters', edit(gate, (d) => (d.sig.val = `${d.sig.val}=`)), '/sig/val', 'BAD_SIG_ENCODING'],
  ['RCPT-SIG-003 D-RCPT-04 sig.val has zero unused bits', edit(gate, (d) => (d.sig.val = `${d.sig.val.slice(0, 85)}B`)), '/sig/val', 'NONCANONICAL_BASE64URL'],
  ['RCPT-SCHEMA-008 D-RCPT-04 sig: no other members', edit(gate, (d) => (d.sig.typ = 'x')), '/sig/typ', 'additionalProperties'],
  ['RCPT-SCHEMA-010 D-RCPT-09 budget amount is an unsigned decimal', edit(gate, (d) => (d.cost.amount = '1e-3')), '/cost/amount', 'BAD_BUDGET'],
  ['RCPT-SCHEMA-010 D-RCPT-09 budget amount is canonical', edit(gate, (d) => (d.cost.amount = '0.10')), '/cost/amount', 'NONCANONICAL_DECIMAL'],
  ['RCPT-SCHEMA-010 D-RCPT-09 budget unit', edit(gate, (d) => (d.cost.unit = 'dollars')), '/cost/unit', 'BAD_BUDGET'],
  ['RCPT-SCHEMA-009 D-RCPT-09 budget: no other members', edit(gate, (d) => (d.cost.scale = 2)), '/cost/scale', 'additionalProperties'],
];

describe('spec/receipt.schema.json', () => {
  it.each(valid)('RCPT-SCHEMA-001: accepts %s', (_name, doc) => {
    expect(validateReceiptSchema(doc())).toEqual({ ok: true });
  });

  it('has at least 40 documents, one invalid document per rule', () => {
    expect(valid.length + invalid.length).toBeGreaterThanOrEqual(40);
    expect(new Set(invalid.map(([rule]) => rule)).size).toBe(invalid.length);
  });

  it.each(invalid)('%s: the Receipt is rejected at the right pointer', (_rule, doc, pointer, kind) => {
    const result = validateReceiptSchema(doc());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    // One pointer; a value can break two keywords of one form (pattern and maxLength), both of its kind.
    expect([...new Set(result.errors.map((e) => e.pointer))]).toEqual([pointer]);
    for (const error of result.errors) expect(/^[A-Z][A-Z0-9_]+$/.test(kind) ? error.finding : error.keyword).toBe(kind);
  });
});

describe('the compiled receipt validator', () => {
  it('is exactly what scripts/gen-receipt-validator.ts makes of spec/receipt.schema.json now', () => {
    expect(readFileSync(VALIDATOR_PATH, 'utf8') === validatorSource(), 'src/receipts/receipt-validator.generated.ts is stale: run npx tsx scripts/gen-receipt-validator.ts').toBe(true);
  });

  it('agrees with ajv compiling the schema at run time on every invalid document of this file', () => {
    const runtime = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false }).compile(receiptSchema);
    for (const [, doc] of [...valid.map(([n, d]) => [n, d] as const), ...invalid.map(([n, d]) => [n, d] as const)]) {
      const d = doc();
      const ours = validateReceiptSchema(d);
      expect(ours.ok).toBe(runtime(d));
    }
  });
});

describe('ajvErrorPointer', () => {
  const compile = (schema: object) => {
    const ajv = new Ajv2020({ allErrors: true, discriminator: true });
    const validate = ajv.compile(schema);
    return (value: unknown) => {
      expect(validate(value)).toBe(false);
      return (validate.errors ?? []).map(ajvErrorPointer);
    };
  };

  it('points at a missing member, escaping "~" and "/" in its name', () => {
    const check = compile({ type: 'object', properties: { a: { type: 'object', required: ['x/y~z'] } } });
    expect(check({ a: {} })).toEqual(['/a/x~1y~0z']);
  });

  it('points at an unexpected member', () => {
    const check = compile({ type: 'object', properties: { a: { type: 'object', additionalProperties: false } } });
    expect(check({ a: { extra: 1 } })).toEqual(['/a/extra']);
  });

  it('points at the discriminator tag member', () => {
    const check = compile({
      type: 'object',
      discriminator: { propertyName: 'kind' },
      required: ['kind'],
      oneOf: [{ properties: { kind: { const: 'a' } } }, { properties: { kind: { const: 'b' } } }],
    });
    expect(check({ kind: 'c' })).toEqual(['/kind']);
  });

  it('points at the instance for any other keyword', () => {
    const check = compile({ type: 'object', properties: { n: { type: 'integer' } } });
    expect(check({ n: 'x' })).toEqual(['/n']);
  });
});

describe('D-RCPT-26: which $comment names a finding code', () => {
  it('"finding: CODE" is a prefix ended by a full stop or the comment\'s end, and CODE must be of the closed set', () => {
    expect(findingCodeOfComment('finding: BAD_KEYREF')).toBe('BAD_KEYREF');
    expect(findingCodeOfComment('finding: BAD_KEYREF. D-RCPT-03: did:key of an Ed25519 public key')).toBe('BAD_KEYREF');
    for (const c of ['finding: BAD_KEYREFS', 'finding: BAD_KEYREF (see D-RCPT-03)', 'finding: bad_keyref', 'Finding: BAD_KEYREF', ' finding: BAD_KEYREF', 'finding:BAD_KEYREF', 'finding: NOT_A_CODE', 'D-RCPT-12: finding: BAD_KEYREF', 42]) {
      expect(findingCodeOfComment(c), String(c)).toBeUndefined();
    }
  });

  it('every $comment of spec/receipt.schema.json that starts with "finding:" names a code', () => {
    const comments: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) (k === '$comment' && typeof x === 'string' ? comments.push(x) : walk(x));
    };
    walk(JSON.parse(readFileSync(new URL('../../spec/receipt.schema.json', import.meta.url), 'utf8')));
    const named = comments.filter((c) => c.startsWith('finding:'));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((c) => findingCodeOfComment(c) === undefined)).toEqual([]);
  });
});

