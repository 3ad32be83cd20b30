// Table-driven receipt faults: each breaks one rule of the Receipt format in the Receipts the
// issuer emits. A mutation of the unsigned Receipt is signed and linked like any other (only the
// schema, rule, chain or pairing check under test fires); a mutation of the sealed Receipt leaves
// the signature over the original bytes (signature rules). Bytes, digests and signatures come from
// the receipt library; mock-server/receipt-issuer.ts calls sealWithFaults for every Receipt.
import { approveAct, digestOf, keyrefOf, sealReceipt, signAct } from '../src/receipts/index.ts';
import type { Act, Ed25519Key, Receipt, SealedReceipt, UnsignedReceipt } from '../src/receipts/index.ts';
import type { ReceiptKeysView } from './receipt-hooks.ts';
import { ReceiptIssuerFault, receiptFaultTable, type ReceiptFaultRow, type ReceiptRole } from './receipt-fault-table.ts';

export { mutationFaults, ReceiptIssuerFault } from './receipt-fault-table.ts';

export interface MutationContext {
  issuer: Ed25519Key;
  /** A second service key: signs under receipt-issuer-rotated, names the wrong kid elsewhere. */
  otherIssuer: Ed25519Key;
  serviceId: string;
  /** The chain's actor key and the Mandate's grant id (level 2 actor_sig). */
  actorKey: Ed25519Key;
  grantId: string;
  /** The last Receipt of the chain before this one (parsed), if any. */
  lastReceipt(): Record<string, unknown> | undefined;
}

type Json = Record<string, unknown>;

interface Change {
  /** Changes the unsigned Receipt (a deep copy), which is then signed and linked normally. */
  unsigned?: (r: Json, ctx: MutationContext) => void;
  /** Changes the sealed Receipt (a deep copy) after signing; the digest is taken of the result. */
  sealed?: (r: Json, ctx: MutationContext) => void;
}

type ReceiptMutation = ReceiptFaultRow & Change;

const obj = (r: Json, key: string): Json => r[key] as Json;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const actorSigned = (r: Json, ctx: MutationContext, grantId = ctx.grantId): void => { r['act'] = signAct(r['act'] as Act, ctx.actorKey, grantId); };

/** Turns a model.call gate or outcome into a stop.approve one (same resource, no input digest). */
function stopApprove(r: Json): void {
  const act = obj(r, 'act');
  act['verb'] = 'stop.approve';
  delete act['input_digest'];
}

/** did:key of the Ed25519 identity point (small order): well-formed, never a valid key. */
const SMALL_ORDER_KEYREF = keyrefOf(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0)));

/** Sets the unused low bits of the last base64url character of a 64-byte value: same bytes, other text. */
function nonCanonicalTail(val: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(val.charAt(val.length - 1));
  return `${val.slice(0, -1)}${alphabet.charAt(last | 1)}`;
}


/** The change each table-driven fault makes (receipt-fault-table.ts says to which Receipt). */
const changes: Record<string, Change> = {
  'receipt-schema-missing-type': { unsigned: (r) => { delete r['type']; } },
  'receipt-schema-wrong-proto': { unsigned: (r) => { r['proto'] = '1.0-draft.3'; } },
  'receipt-schema-wrong-type': { unsigned: (r) => { r['type'] = 'Receipt'; } },
  'receipt-schema-bad-id': { unsigned: (r) => { r['id'] = `rcpt ${String(r['id'])}`; } },
  'receipt-schema-string-iat': { unsigned: (r) => { r['iat'] = new Date(Number(r['iat']) * 1000).toISOString().replace('.000', ''); } },
  'receipt-json-negative-iat': { unsigned: (r, ctx) => { if (ctx.lastReceipt() === undefined) r['iat'] = -1; } },
  'receipt-schema-bad-output-digest': { unsigned: (r) => { const o = obj(r, 'outcome'); o['output_digest'] = String(o['output_digest']).toUpperCase().replace('SHA256:', 'sha256:'); } },
  'receipt-schema-bad-actor-keyref': { unsigned: (r) => { r['actor'] = `did:key:z6Mk${'0'.repeat(44)}`; } },
  'receipt-schema-sig-extra-member': { sealed: (r) => { obj(r, 'sig')['note'] = 'x'; } },
  'receipt-schema-cost-not-object': { unsigned: (r) => { r['cost'] = obj(r, 'cost')['amount']; } },
  'receipt-schema-act-extra-member': { unsigned: (r) => { obj(r, 'act')['note'] = 'x'; } },
  'receipt-schema-bad-verb': { unsigned: (r) => { obj(r, 'act')['verb'] = 'Model.Call'; } },
  'receipt-schema-unknown-verb': { unsigned: (r) => { obj(r, 'act')['verb'] = 'model.invoke'; } },
  'receipt-schema-empty-resource': { unsigned: (r) => { obj(r, 'act')['resource'] = ''; } },
  'receipt-schema-bad-result': { unsigned: (r) => { obj(r, 'decision')['result'] = 'permitted'; } },
  'receipt-schema-bad-reason': { unsigned: (r) => { r['decision'] = { result: 'denied', reason: 'DENY_BUDGET' }; } },
  'receipt-schema-reason-on-allowed': { unsigned: (r) => { obj(r, 'decision')['reason'] = 'PROTO_DENY_SCOPE'; } },
  'receipt-schema-bad-subcode': { unsigned: (r) => { obj(r, 'decision')['subcode'] = 'BUDGET_MONTHLY_CAP'; } },
  'receipt-schema-policy-without-prose': { unsigned: (r) => { delete obj(r, 'decision')['prose']; } },
  'receipt-schema-prose-on-allowed': { unsigned: (r) => { obj(r, 'decision')['prose'] = 'allowed by the iari mock'; } },
  'receipt-schema-crit-without-object': { unsigned: (r) => { r['decision'] = { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT' }; } },
  'receipt-schema-crit-object-extra-member': { unsigned: (r) => { r['decision'] = { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT', crit_object: { object: digestOf({}), path: '/messages', note: 'x' } }; } },
  'receipt-schema-crit-object-on-policy': { unsigned: (r) => { obj(r, 'decision')['crit_object'] = { object: digestOf({}), path: '/messages' }; } },
  'receipt-schema-bad-service-digest': { unsigned: (r) => { obj(r, 'decision')['the service'] = 'iari mock'; } },
  'receipt-schema-outcome-extra-member': { unsigned: (r) => { obj(r, 'outcome')['note'] = 'x'; } },
  'receipt-schema-bad-status': { unsigned: (r) => { obj(r, 'outcome')['status'] = 'done'; } },
  'receipt-schema-bad-effects': { unsigned: (r) => { obj(r, 'outcome')['effects'] = [1]; } },
  'receipt-schema-resolved-extra-member': { unsigned: (r) => { obj(obj(r, 'outcome'), 'resolved')['note'] = 'x'; } },
  'receipt-schema-gate-ref-on-gate': { unsigned: (r) => { r['gate'] = digestOf({ 'not-a-receipt': r['id'] }); } },
  'receipt-schema-approval-on-model-call': { unsigned: (r, ctx) => { r['approval'] = approveAct(r['act'] as never, ctx.serviceId, ctx.issuer); } },
  'receipt-schema-token-on-model-call': { unsigned: (r) => { r['token'] = 'tok_iari_mock'; } },
  'receipt-schema-unknown-member': { unsigned: (r) => { r['note'] = 'x'; } },
  'receipt-sig-kid-mismatch': { sealed: (r, ctx) => { obj(r, 'sig')['kid'] = ctx.otherIssuer.keyref; } },
  'receipt-sig-noncanonical-base64url': { sealed: (r) => { const sig = obj(r, 'sig'); sig['val'] = nonCanonicalTail(String(sig['val'])); } },
  'receipt-sig-small-order-actor': { unsigned: (r) => { r['actor'] = SMALL_ORDER_KEYREF; } },
  'receipt-chain-second-genesis': { unsigned: (r) => { delete r['prev']; } },
  'receipt-chain-prev-without-sig': { unsigned: (r, ctx) => { const last = ctx.lastReceipt(); if (last !== undefined) { const { sig: _sig, ...rest } = last; r['prev'] = digestOf(rest); } } },
  'receipt-chain-fork': { unsigned: (r, ctx) => { const p = ctx.lastReceipt()?.['prev']; if (typeof p === 'string') r['prev'] = p; } },
  'receipt-chain-duplicate-id': { unsigned: (r, ctx) => { const id = ctx.lastReceipt()?.['id']; if (typeof id === 'string') r['id'] = id; } },
  'receipt-issuer-rotated': { unsigned: (r, ctx) => { r['iss'] = ctx.otherIssuer.keyref; } },
  'receipt-pair-gate-not-found': { unsigned: (r) => { r['gate'] = digestOf({ 'not-a-gate': r['gate'] }); } },
  'receipt-pair-gate-is-outcome': { unsigned: (r, ctx) => { const p = ctx.lastReceipt()?.['prev']; if (typeof p === 'string') r['gate'] = p; } },
  'receipt-outcome-cost-differs': { unsigned: (r) => { const c = obj(r, 'cost'); const a = String(c['amount']); const [int = '0', frac] = a.split('.'); c['amount'] = `${BigInt(int) + 1n}${frac === undefined ? '' : `.${frac}`}`; } },
  'receipt-pair-outcome-before-gate': { unsigned: (r, ctx) => { const gateIat = ctx.lastReceipt()?.['iat']; if (typeof gateIat === 'number') r['iat'] = gateIat - 1; } },
  'receipt-l2-actor-sig-after-first': {
    unsigned: (r, ctx) => {
      const last = ctx.lastReceipt();
      // A gate is signed when it is not the chain's first Receipt; an outcome when its gate (just before it) was.
      const signed = r['outcome'] === undefined ? last !== undefined : last !== undefined && isRecord(last['act']) && last['act']['actor_sig'] !== undefined;
      if (signed) actorSigned(r, ctx);
    },
  },
  'receipt-l2-bad-actor-sig': { unsigned: (r, ctx) => actorSigned(r, ctx, `${ctx.grantId}-other`) },
  'receipt-l3-context-on-gate-only': { unsigned: (r, ctx) => { actorSigned(r, ctx); if (r['outcome'] === undefined) r['context'] = obj(r, 'act')['input_digest']; } },
  'receipt-stop-approve-approval-and-token': { unsigned: (r, ctx) => { stopApprove(r); if (r['outcome'] === undefined) { r['approval'] = approveAct(r['act'] as Act, ctx.serviceId, ctx.issuer); r['token'] = 'tok_iari_mock'; } } },
  'receipt-stop-approve-without-evidence': { unsigned: (r) => { stopApprove(r); } },
  'receipt-stop-approve-bad-approval': { unsigned: (r, ctx) => { stopApprove(r); if (r['outcome'] === undefined) r['approval'] = approveAct({ ...(r['act'] as Act), resource: 'other' }, ctx.serviceId, ctx.issuer); } },
};

export const receiptMutations: readonly ReceiptMutation[] = receiptFaultTable.map((row) => {
  const change = changes[row.name];
  if (change === undefined) throw new Error(`receipt fault ${row.name} has no change`);
  return { ...row, ...change };
});

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
