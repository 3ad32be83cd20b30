// Table-driven receipt faults: each breaks one rule of the Receipt format in the Receipts the
// issuer emits. A mutation of the unsigned Receipt is signed and linked like any other (only the
// schema, rule, chain or pairing check under test fires); a mutation of the sealed Receipt leaves
// the signature over the original bytes (signature rules). Bytes, digests and signatures come from
// the receipt library; mock-server/receipt-issuer.ts calls sealWithFaults for every Receipt.
import { approveAct, digestOf, keyrefOf, sealReceipt } from '../src/receipts/index.ts';
import type { Ed25519Key, Receipt, SealedReceipt, UnsignedReceipt } from '../src/receipts/index.ts';
import type { FaultDefinition } from './core/fault-catalogue.ts';
import type { ReceiptKeysView } from './receipt-hooks.ts';

/** Which Receipt a mutation applies to: an allowed gate, a denied gate, or an outcome. */
export type ReceiptRole = 'gate' | 'denial' | 'outcome';

export interface MutationContext {
  issuer: Ed25519Key;
  /** A second service key: signs under receipt-issuer-rotated, names the wrong kid elsewhere. */
  otherIssuer: Ed25519Key;
  serviceId: string;
  /** The last Receipt of the chain before this one (parsed), if any. */
  lastReceipt(): Record<string, unknown> | undefined;
}

type Json = Record<string, unknown>;

interface ReceiptMutation {
  name: string;
  breaks: string[];
  description: string;
  on: readonly ReceiptRole[];
  /** IDs whose checks the mutation lets judge an optional feature (skipped before, may pass now). */
  exercises?: string[];
  /** Changes the unsigned Receipt (a deep copy), which is then signed and linked normally. */
  unsigned?: (r: Json, ctx: MutationContext) => void;
  /** Changes the sealed Receipt (a deep copy) after signing; the digest is taken of the result. */
  sealed?: (r: Json, ctx: MutationContext) => void;
}

const obj = (r: Json, key: string): Json => r[key] as Json;
const GATE_ONLY = ['gate'] as const;
const OUTCOME_ONLY = ['outcome'] as const;
const DENIAL_ONLY = ['denial'] as const;
// Members that the outcome copies from its gate change on both, so only the rule under test fires (no PAIR_*_MISMATCH).
const PAIRED = ['gate', 'outcome'] as const;
const SCHEMA = ['RCPT-HTTP-005', 'RCPT-HTTP-006'];
// An outcome that fails the schema is not paired: its gate then looks open (GATE_OPEN warning).
const OPEN = ['RCPT-PAIR-009'];
const DENIAL = ['RCPT-HTTP-005', 'RCPT-HTTP-006', 'RCPT-HTTP-011'];
const s = (n: number): string => `RCPT-SCHEMA-${String(n).padStart(3, '0')}`;

/** did:key of the Ed25519 identity point (small order): well-formed, never a valid key. */
const SMALL_ORDER_KEYREF = keyrefOf(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0)));

/** Sets the unused low bits of the last base64url character of a 64-byte value: same bytes, other text. */
function nonCanonicalTail(val: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(val.charAt(val.length - 1));
  return `${val.slice(0, -1)}${alphabet.charAt(last | 1)}`;
}

const m = (name: string, on: readonly ReceiptRole[], breaks: string[], description: string, change: Pick<ReceiptMutation, 'unsigned' | 'sealed' | 'exercises'>): ReceiptMutation => ({ name, on, breaks, description, ...change });

export const receiptMutations: readonly ReceiptMutation[] = [
  m('receipt-schema-missing-type', GATE_ONLY, [s(1), ...SCHEMA], 'The gate Receipt has no type member (SCHEMA_MISSING_FIELD /type).', { unsigned: (r) => { delete r['type']; } }),
  m('receipt-schema-wrong-proto', GATE_ONLY, [s(2), ...SCHEMA], 'The gate Receipt\'s proto is "1.0-draft.3" (UNSUPPORTED_PROTO).', { unsigned: (r) => { r['proto'] = '1.0-draft.3'; } }),
  m('receipt-schema-wrong-type', GATE_ONLY, [s(3), ...SCHEMA], 'The gate Receipt\'s type is "Receipt" (SCHEMA_PATTERN /type).', { unsigned: (r) => { r['type'] = 'Receipt'; } }),
  m('receipt-schema-bad-id', GATE_ONLY, [s(4), ...SCHEMA], 'The gate Receipt\'s id contains a space (SCHEMA_PATTERN /id).', { unsigned: (r) => { r['id'] = `rcpt ${String(r['id'])}`; } }),
  m('receipt-schema-string-iat', GATE_ONLY, [s(5), ...SCHEMA], 'The gate Receipt\'s iat is an ISO 8601 string instead of integer seconds (SCHEMA_TYPE /iat).', { unsigned: (r) => { r['iat'] = new Date(Number(r['iat']) * 1000).toISOString().replace('.000', ''); } }),
  m('receipt-json-negative-iat', GATE_ONLY, [s(41), 'RCPT-CHAIN-001', 'RCPT-CHAIN-002', 'RCPT-CHAIN-009', 'RCPT-PAIR-001', ...SCHEMA], 'The first gate Receipt of a chain has iat -1, a number lexeme outside the non-negative integers (JSON_NUMBER_FORM); the verifier drops that Receipt, so the chain has no genesis and the outcome no gate.', { unsigned: (r, ctx) => { if (ctx.lastReceipt() === undefined) r['iat'] = -1; } }),
  m('receipt-schema-bad-output-digest', OUTCOME_ONLY, [s(6), ...SCHEMA, ...OPEN], 'The outcome\'s output_digest has upper-case hex (BAD_DIGEST /outcome/output_digest).', { unsigned: (r) => { const o = obj(r, 'outcome'); o['output_digest'] = String(o['output_digest']).toUpperCase().replace('SHA256:', 'sha256:'); } }),
  m('receipt-schema-bad-actor-keyref', PAIRED, [s(7), ...SCHEMA], 'Gate and outcome name the actor with a did:key containing "0", outside base58btc (BAD_KEYREF /actor).', { unsigned: (r) => { r['actor'] = `did:key:z6Mk${'0'.repeat(44)}`; } }),
  m('receipt-schema-sig-extra-member', GATE_ONLY, [s(8), ...SCHEMA], 'The gate Receipt\'s sig carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /sig/note).', { sealed: (r) => { obj(r, 'sig')['note'] = 'x'; } }),
  m('receipt-schema-cost-not-object', GATE_ONLY, [s(9), ...SCHEMA], 'The gate Receipt\'s cost is the amount string instead of {amount, unit} (SCHEMA_TYPE /cost).', { unsigned: (r) => { r['cost'] = obj(r, 'cost')['amount']; } }),
  m('receipt-schema-act-extra-member', PAIRED, [s(11), ...SCHEMA], 'act carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /act/note).', { unsigned: (r) => { obj(r, 'act')['note'] = 'x'; } }),
  m('receipt-schema-bad-verb', PAIRED, [s(12), ...SCHEMA], 'act.verb is "Model.Call" (BAD_VERB).', { unsigned: (r) => { obj(r, 'act')['verb'] = 'Model.Call'; } }),
  m('receipt-schema-unknown-verb', PAIRED, [s(13)], 'act.verb is "model.invoke", well-formed but not a known verb (UNKNOWN_VERB warning).', { unsigned: (r) => { obj(r, 'act')['verb'] = 'model.invoke'; } }),
  m('receipt-schema-empty-resource', PAIRED, [s(14), ...SCHEMA], 'act.resource is the empty string (SCHEMA_PATTERN /act/resource).', { unsigned: (r) => { obj(r, 'act')['resource'] = ''; } }),
  m('receipt-schema-bad-result', PAIRED, [s(16), ...SCHEMA, 'RCPT-HTTP-008'], 'decision.result is "permitted" (SCHEMA_PATTERN /decision/result; a completion then appends no allowed gate).', { unsigned: (r) => { obj(r, 'decision')['result'] = 'permitted'; } }),
  m('receipt-schema-bad-reason', DENIAL_ONLY, [s(18), ...DENIAL], 'A denial gives reason "DENY_BUDGET", outside PROTO_DENY_*, and no subcode or prose (SCHEMA_PATTERN /decision/reason).', { unsigned: (r) => { r['decision'] = { result: 'denied', reason: 'DENY_BUDGET' }; } }),
  m('receipt-schema-reason-on-allowed', PAIRED, [s(19), ...SCHEMA], 'An allowed decision carries reason "PROTO_DENY_SCOPE" (REASON_ON_ALLOWED).', { unsigned: (r) => { obj(r, 'decision')['reason'] = 'PROTO_DENY_SCOPE'; } }),
  m('receipt-schema-bad-subcode', DENIAL_ONLY, [s(21), ...DENIAL], 'A policy denial\'s subcode is "BUDGET_MONTHLY_CAP", without the X_ prefix (SCHEMA_PATTERN /decision/subcode).', { unsigned: (r) => { obj(r, 'decision')['subcode'] = 'BUDGET_MONTHLY_CAP'; } }),
  m('receipt-schema-policy-without-prose', DENIAL_ONLY, [s(22), ...DENIAL], 'A PROTO_DENY_POLICY denial has its subcode but no prose (POLICY_DETAIL_MISSING /decision/prose).', { unsigned: (r) => { delete obj(r, 'decision')['prose']; } }),
  m('receipt-schema-prose-on-allowed', PAIRED, [s(23), ...SCHEMA], 'An allowed decision carries prose (SCHEMA_UNKNOWN_FIELD /decision/prose).', { unsigned: (r) => { obj(r, 'decision')['prose'] = 'allowed by the iari mock'; } }),
  m('receipt-schema-crit-without-object', DENIAL_ONLY, [s(24), ...DENIAL], 'A denial gives reason PROTO_DENY_UNKNOWN_CRIT and no crit_object (CRIT_OBJECT_MISSING).', { unsigned: (r) => { r['decision'] = { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT' }; } }),
  m('receipt-schema-crit-object-extra-member', DENIAL_ONLY, [s(25), ...DENIAL], 'A PROTO_DENY_UNKNOWN_CRIT denial\'s crit_object carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /decision/crit_object/note).', { unsigned: (r) => { r['decision'] = { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT', crit_object: { object: digestOf({}), path: '/messages', note: 'x' } }; } }),
  m('receipt-schema-crit-object-on-policy', DENIAL_ONLY, [s(26), ...SCHEMA], 'A PROTO_DENY_POLICY denial also carries a crit_object (CRIT_OBJECT_UNEXPECTED).', { unsigned: (r) => { obj(r, 'decision')['crit_object'] = { object: digestOf({}), path: '/messages' }; } }),
  m('receipt-schema-bad-service-digest', PAIRED, [s(6), s(27), ...SCHEMA], 'decision["the service"] is a name, not a digest (BAD_DIGEST /decision/the service).', { unsigned: (r) => { obj(r, 'decision')['the service'] = 'iari mock'; } }),
  m('receipt-schema-outcome-extra-member', OUTCOME_ONLY, [s(28), ...SCHEMA, ...OPEN], 'outcome carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /outcome/note).', { unsigned: (r) => { obj(r, 'outcome')['note'] = 'x'; } }),
  m('receipt-schema-bad-status', OUTCOME_ONLY, [s(29), ...SCHEMA, ...OPEN], 'outcome.status is "done" (SCHEMA_PATTERN /outcome/status).', { unsigned: (r) => { obj(r, 'outcome')['status'] = 'done'; } }),
  m('receipt-schema-bad-effects', OUTCOME_ONLY, [s(30), ...SCHEMA, ...OPEN], 'outcome.effects is [1], not an array of strings (SCHEMA_TYPE /outcome/effects/0).', { unsigned: (r) => { obj(r, 'outcome')['effects'] = [1]; } }),
  m('receipt-schema-resolved-extra-member', OUTCOME_ONLY, [s(31), ...SCHEMA, ...OPEN], 'outcome.resolved carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /outcome/resolved/note).', { unsigned: (r) => { obj(obj(r, 'outcome'), 'resolved')['note'] = 'x'; } }),
  m('receipt-schema-gate-ref-on-gate', GATE_ONLY, [s(33), ...SCHEMA], 'The gate Receipt carries a gate member (GATE_REF_WITHOUT_OUTCOME).', { unsigned: (r) => { r['gate'] = digestOf({ 'not-a-receipt': r['id'] }); } }),
  m('receipt-schema-approval-on-model-call', GATE_ONLY, [s(35), ...SCHEMA], 'The model.call gate carries an approval by the issuer key (APPROVAL_WRONG_VERB).', { exercises: ['RCPT-SIG-007'], unsigned: (r, ctx) => { r['approval'] = approveAct(r['act'] as never, ctx.serviceId, ctx.issuer); } }),
  m('receipt-schema-token-on-model-call', GATE_ONLY, [s(36), ...SCHEMA], 'The model.call gate carries a token (TOKEN_WRONG_VERB).', { unsigned: (r) => { r['token'] = 'tok_iari_mock'; } }),
  m('receipt-schema-unknown-member', GATE_ONLY, [s(40), ...SCHEMA], 'The gate Receipt carries an unknown top-level member "note" (SCHEMA_UNKNOWN_FIELD /note).', { unsigned: (r) => { r['note'] = 'x'; } }),
  m('receipt-sig-kid-mismatch', GATE_ONLY, ['RCPT-SIG-002', 'RCPT-HTTP-006'], 'The gate Receipt\'s sig.kid names another key than iss; the signature is still by iss (SIG_KID_MISMATCH).', { sealed: (r, ctx) => { obj(r, 'sig')['kid'] = ctx.otherIssuer.keyref; } }),
  m('receipt-sig-noncanonical-base64url', GATE_ONLY, ['RCPT-SIG-003', 'RCPT-HTTP-005', 'RCPT-HTTP-006'], 'The gate Receipt\'s sig.val has non-zero unused trailing bits: same 64 bytes, other text (NONCANONICAL_BASE64URL).', { sealed: (r) => { const sig = obj(r, 'sig'); sig['val'] = nonCanonicalTail(String(sig['val'])); } }),
  m('receipt-sig-small-order-actor', PAIRED, ['RCPT-SIG-004', 'RCPT-HTTP-006'], 'Gate and outcome name as actor the did:key of a small-order point (KEY_INVALID).', { unsigned: (r) => { r['actor'] = SMALL_ORDER_KEYREF; } }),
  m('receipt-chain-second-genesis', GATE_ONLY, ['RCPT-CHAIN-001', 'RCPT-CHAIN-009', 'RCPT-HTTP-006'], 'A gate Receipt after the first has no prev (CHAIN_MULTIPLE_GENESIS; the served head is then unreachable: HEAD_MISMATCH).', { unsigned: (r) => { delete r['prev']; } }),
  m('receipt-chain-fork', GATE_ONLY, ['RCPT-CHAIN-004', 'RCPT-CHAIN-009', 'RCPT-HTTP-006'], 'A gate Receipt\'s prev is its predecessor\'s prev (CHAIN_FORK; the served head is then unreachable: HEAD_MISMATCH).', { unsigned: (r, ctx) => { const p = ctx.lastReceipt()?.['prev']; if (typeof p === 'string') r['prev'] = p; } }),
  m('receipt-chain-duplicate-id', GATE_ONLY, ['RCPT-CHAIN-005', 'RCPT-HTTP-006'], 'A gate Receipt reuses the previous Receipt\'s id (DUPLICATE_ID).', { unsigned: (r, ctx) => { const id = ctx.lastReceipt()?.['id']; if (typeof id === 'string') r['id'] = id; } }),
  m('receipt-issuer-rotated', GATE_ONLY, ['RCPT-CHAIN-008'], 'Gates are signed by a second service key, published beside the first in GET /v1/receipts/keys (ISSUER_CHANGED warning).', { unsigned: (r, ctx) => { r['iss'] = ctx.otherIssuer.keyref; } }),
  m('receipt-pair-gate-not-found', OUTCOME_ONLY, ['RCPT-PAIR-001', 'RCPT-PAIR-009', 'RCPT-HTTP-006', 'RCPT-HTTP-008'], 'The outcome\'s gate is a well-formed digest of no Receipt (GATE_NOT_FOUND; the gate stays open).', { unsigned: (r) => { r['gate'] = digestOf({ 'not-a-gate': r['gate'] }); } }),
  m('receipt-pair-gate-is-outcome', OUTCOME_ONLY, ['RCPT-PAIR-002', 'RCPT-PAIR-009', 'RCPT-HTTP-006', 'RCPT-HTTP-008'], 'The outcome\'s gate names the Receipt before its gate, the previous outcome (GATE_IS_OUTCOME).', { unsigned: (r, ctx) => { const p = ctx.lastReceipt()?.['prev']; if (typeof p === 'string') r['gate'] = p; } }),
  m('receipt-outcome-cost-differs', OUTCOME_ONLY, ['RCPT-HTTP-010'], 'The outcome\'s cost is one USD more than the spend the request added.', { unsigned: (r) => { const c = obj(r, 'cost'); const a = String(c['amount']); const [int = '0', frac] = a.split('.'); c['amount'] = `${BigInt(int) + 1n}${frac === undefined ? '' : `.${frac}`}`; } }),
];

/** Keys-document and whole-issuer faults that are not a change to one Receipt. */
export const ReceiptIssuerFault = {
  keysBadShape: 'receipt-keys-bad-shape',
  outcomeOnDenial: 'receipt-outcome-on-denial',
  crossAccountCopy: 'receipt-cross-account-copy',
} as const;

const issuerFaults: FaultDefinition[] = [
  { name: ReceiptIssuerFault.keysBadShape, kind: 'fault', breaks: ['RCPT-HTTP-002'], description: 'GET /v1/receipts/keys gives each key use "signing" instead of "issuer".' },
  { name: ReceiptIssuerFault.outcomeOnDenial, kind: 'fault', breaks: ['RCPT-PAIR-003', 'RCPT-HTTP-005', 'RCPT-HTTP-006', 'RCPT-HTTP-011'], description: 'A denied gate is followed by a failed outcome Receipt for it (OUTCOME_ON_DENIED, OUTCOME_WITHOUT_ALLOWED_GATE).' },
  { name: ReceiptIssuerFault.crossAccountCopy, kind: 'fault', breaks: ['RCPT-HTTP-012', 'RCPT-CHAIN-001', 'RCPT-CHAIN-009', 'RCPT-HTTP-006'], description: 'Every Receipt is also listed in every other account\'s GET /v1/receipts (whose chain then has a second genesis and an unreachable head: CHAIN_MULTIPLE_GENESIS, HEAD_MISMATCH on the capped account).' },
];

export const mutationFaults: readonly FaultDefinition[] = [
  ...receiptMutations.map((x): FaultDefinition => ({ name: x.name, kind: 'fault', breaks: x.breaks, description: x.description, ...(x.exercises === undefined ? {} : { exercises: x.exercises }) })),
  ...issuerFaults,
];

const byName = new Map(receiptMutations.map((x) => [x.name, x]));

function active(faults: ReadonlySet<string>, role: ReceiptRole): ReceiptMutation[] {
  const out: ReceiptMutation[] = [];
  for (const name of faults) {
    const x = byName.get(name);
    if (x !== undefined && x.on.includes(role)) out.push(x);
  }
  return out;
}

/** Signs (and, under a mutation fault, breaks) one Receipt; the digest is always of the Receipt served. */
export function sealWithFaults(unsigned: UnsignedReceipt, role: ReceiptRole, faults: ReadonlySet<string>, ctx: MutationContext): SealedReceipt {
  const mutations = active(faults, role);
  if (mutations.length === 0) return sealReceipt(unsigned, ctx.issuer);
  const body = structuredClone(unsigned) as unknown as Json;
  for (const x of mutations) x.unsigned?.(body, ctx);
  const key = body['iss'] === ctx.otherIssuer.keyref ? ctx.otherIssuer : ctx.issuer;
  const sealed = sealReceipt(body as unknown as UnsignedReceipt, key);
  if (!mutations.some((x) => x.sealed !== undefined)) return sealed;
  const receipt = structuredClone(sealed.receipt) as unknown as Json;
  for (const x of mutations) x.sealed?.(receipt, ctx);
  return { receipt: receipt as unknown as Receipt, digest: digestOf(receipt) };
}

/** The keys document under the request's faults. */
export function keysWithFaults(view: ReceiptKeysView, faults: ReadonlySet<string>, otherIssuer: Ed25519Key): ReceiptKeysView {
  let keys = view.keys;
  if (faults.has('receipt-issuer-rotated')) keys = [...keys, { kid: otherIssuer.keyref, alg: 'Ed25519', use: 'issuer' }];
  if (faults.has(ReceiptIssuerFault.keysBadShape)) keys = keys.map((k) => ({ ...k, use: 'signing' as 'issuer' }));
  return { ...view, keys };
}
