import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';
import { approveAct, canonicalString, digestOf, encodeBase64url, keyrefOf, resealChain, signAct, verifyChain, type ChainVerifyResult, type Receipt } from '../../src/receipts/index.ts';
import { GRANT, KEYS, TOKEN, chainArb, fcParams, type ChainCase } from './arbitraries.ts';

// Anchors §4: "Mutation operators that must always be detected", raw (crypto or link layer) and
// resealed (re-signed and re-linked so only the semantic rule under test can fire).

const RUNS = 5;
const ALL_KEYS = Object.values(KEYS);
const errs = (r: ChainVerifyResult) => r.errors.map((f) => `${f.code}@${f.index ?? 'chain'}`).sort();
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
/** Findings caused by a Receipt whose digest `d` no longer exists: its child's link and its outcome's gate. */
function dangling(list: readonly Receipt[], d: string): string[] {
  const out: string[] = [];
  list.forEach((r, k) => {
    if (r.prev === d) out.push(`CHAIN_BREAK@${k}`);
    if (r.gate === d) out.push(`GATE_NOT_FOUND@${k}`);
  });
  return out;
}
const expectErrors = (r: ChainVerifyResult, expected: string[]) => expect(errs(r)).toEqual([...expected].sort());
const indexes = (c: ChainCase, pred: (r: Receipt, i: number) => boolean) => c.receipts.map((r, i) => (pred(r, i) ? i : -1)).filter((i) => i >= 0);
const pick = <T>(list: T[], n: number): T => list[n % list.length] as T;
const isOutcome = (r: Receipt) => r.outcome !== undefined;
const isDenied = (r: Receipt) => r.decision.result === 'denied';
const isStopSig = (r: Receipt) => r.approval !== undefined;

function reseal(c: ChainCase, edit: (rs: Receipt[]) => void): Receipt[] {
  const m = copy(c.receipts);
  edit(m);
  return resealChain(m, c.receipts.map((r) => digestOf(r)), { keys: ALL_KEYS, grantId: GRANT });
}
/** Raw object edit of receipt i: returns the list and the dangling-reference fallout of i's old digest. */
function rawEdit(c: ChainCase, i: number, edit: (r: Receipt) => void): { list: Receipt[]; fallout: string[] } {
  const list = copy(c.receipts);
  edit(list[i] as Receipt);
  return { list, fallout: dangling(c.receipts, digestOf(c.receipts[i])) };
}
function rawText(c: ChainCase, i: number, edit: (line: string) => string): { text: string; fallout: string[] } {
  const lines = c.receipts.map((r) => canonicalString(r));
  lines[i] = edit(lines[i] as string);
  // an unreadable genesis also leaves the chain without a start
  const fallout = [...dangling(c.receipts, digestOf(c.receipts[i])), ...(i === 0 ? ['CHAIN_NO_GENESIS@chain'] : [])];
  return { text: `${lines.join('\n')}\n`, fallout };
}
const prop = (name: string, body: (c: ChainCase, n: number) => void, runs = RUNS) =>
  it(name, () => fc.assert(fc.property(chainArb, fc.nat(), (c, n) => body(c, n)), fcParams(runs)));

describe('RCPT mutation operators, raw', () => {
  prop('RCPT-SIG-001: editing a signed value gives SIG_INVALID at i and breaks the links to it', (c, n) => {
    const i = n % c.receipts.length;
    const { list, fallout } = rawEdit(c, i, (r) => (r.id = 'mutated_id'));
    expectErrors(verifyChain(list, c.options), [`SIG_INVALID@${i}`, ...fallout]);
  });
  prop('RCPT-CHAIN-002: deleting a middle Receipt gives CHAIN_BREAK at its position', (c, n) => {
    const i = 1 + (n % (c.receipts.length - 2));
    const list = c.receipts.filter((_r, k) => k !== i);
    expectErrors(verifyChain(list, c.options), dangling(list, digestOf(c.receipts[i])));
    expect(errs(verifyChain(list, c.options))).toContain(`CHAIN_BREAK@${i}`);
  });
  prop('RCPT-CHAIN-002: swapping neighbours in the file is not an error (order comes from the links)', (c, n) => {
    const i = n % (c.receipts.length - 1);
    const list = [...c.receipts];
    [list[i], list[i + 1]] = [list[i + 1] as Receipt, list[i] as Receipt];
    expectErrors(verifyChain(list, c.options), []);
  });
  prop('RCPT-CHAIN-002: inserting a valid Receipt of another chain gives CHAIN_BREAK at the insertion', (c, n) => {
    const foreign = resealChain([{ ...copy(c.receipts[c.receipts.length - 1] as Receipt), id: 'foreign_1', prev: digestOf({ other: 'chain' }) }], [undefined], { keys: ALL_KEYS, grantId: GRANT })[0] as Receipt;
    const i = 1 + (n % (c.receipts.length - 1));
    const list = [...c.receipts.slice(0, i), foreign, ...c.receipts.slice(i)];
    expectErrors(verifyChain(list, c.options), [`CHAIN_BREAK@${i}`]);
  });
  prop('RCPT-CHAIN-005: a duplicated Receipt gives DUPLICATE_RECEIPT', (c, n) => {
    const list = [...c.receipts, c.receipts[n % c.receipts.length] as Receipt];
    expectErrors(verifyChain(list, c.options), [`DUPLICATE_RECEIPT@${c.receipts.length}`]);
  });
  prop('RCPT-CHAIN-001: deleting the genesis gives CHAIN_NO_GENESIS', (c) => {
    const list = c.receipts.slice(1);
    expectErrors(verifyChain(list, c.options), ['CHAIN_NO_GENESIS@chain', ...dangling(list, digestOf(c.receipts[0]))]);
  });
  prop('RCPT-CHAIN-009: tail truncation gives HEAD_MISMATCH only with the expected head', (c) => {
    const list = c.receipts.slice(0, -1);
    // D-RCPT-23: HEAD_MISMATCH is about the whole chain (index null).
    expectErrors(verifyChain(list, { ...c.options, expectedHead: digestOf(c.receipts.at(-1)) }), ['HEAD_MISMATCH@chain']);
    const without = verifyChain(list, c.options);
    expectErrors(without, []);
    expect(without.notes.join(' ')).toMatch(/cannot be detected/);
  });
  prop('RCPT-SIG-003: S replaced by S+L gives SIG_NONCANONICAL', (c, n) => {
    const i = n % c.receipts.length;
    const { list, fallout } = rawEdit(c, i, (r) => {
      const b = Buffer.from(r.sig.val, 'base64url');
      let s = 0n;
      for (let k = 31; k >= 0; k--) s = (s << 8n) | BigInt(b[32 + k] ?? 0);
      s += 2n ** 252n + 27742317777372353535851937790883648493n;
      for (let k = 0; k < 32; k++) b[32 + k] = Number((s >> BigInt(8 * k)) & 0xffn);
      r.sig.val = encodeBase64url(b);
    });
    expectErrors(verifyChain(list, c.options), [`SIG_NONCANONICAL@${i}`, ...fallout]);
  });
  prop('RCPT-SIG-003: zero R gives SIG_NONCANONICAL; zero S gives SIG_INVALID', (c, n) => {
    const i = n % c.receipts.length;
    const zeroR = rawEdit(c, i, (r) => (r.sig.val = encodeBase64url(Buffer.concat([Buffer.alloc(32), Buffer.from(r.sig.val, 'base64url').subarray(32)]))));
    expectErrors(verifyChain(zeroR.list, c.options), [`SIG_NONCANONICAL@${i}`, ...zeroR.fallout]);
    const zeroS = rawEdit(c, i, (r) => (r.sig.val = encodeBase64url(Buffer.concat([Buffer.from(r.sig.val, 'base64url').subarray(0, 32), Buffer.alloc(32)]))));
    expectErrors(verifyChain(zeroS.list, c.options), [`SIG_INVALID@${i}`, ...zeroS.fallout]);
  });
  prop('RCPT-SIG-003: a garbage byte after the signature gives BAD_SIG_ENCODING', (c, n) => {
    const i = n % c.receipts.length;
    const { list, fallout } = rawEdit(c, i, (r) => (r.sig.val = encodeBase64url(Buffer.concat([Buffer.from(r.sig.val, 'base64url'), Buffer.from([0])]))));
    expectErrors(verifyChain(list, c.options), [`BAD_SIG_ENCODING@${i}`, ...fallout]);
  });
  prop('RCPT-SIG-003: a base64url last-character alias gives NONCANONICAL_BASE64URL', (c, n) => {
    const i = n % c.receipts.length;
    const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const { list, fallout } = rawEdit(c, i, (r) => (r.sig.val = r.sig.val.slice(0, -1) + abc[abc.indexOf(r.sig.val.at(-1) as string) + 1 + (n % 3)]));
    expectErrors(verifyChain(list, c.options), [`NONCANONICAL_BASE64URL@${i}`, ...fallout]);
  });
  prop('RCPT-SCHEMA-006: uppercase hex or a sha-256: prefix in prev gives BAD_DIGEST, CHAIN_BREAK and (raw edit) SIG_INVALID', (c, n) => {
    const i = 1 + (n % (c.receipts.length - 1));
    const forms = [(p: string) => `sha256:${p.slice(7).toUpperCase()}`, (p: string) => p.replace('sha256:', 'sha-256:')];
    const { list, fallout } = rawEdit(c, i, (r) => (r.prev = pick(forms, n)(r.prev as string)));
    // D-RCPT-25: no finding hides another: the malformed prev names no member, and the edit is a forgery.
    expectErrors(verifyChain(list, c.options), [`BAD_DIGEST@${i}`, `CHAIN_BREAK@${i}`, `SIG_INVALID@${i}`, ...fallout]);
  });
  prop('RCPT-SCHEMA-041: a raw duplicate member (even with an equal value) gives JSON_DUPLICATE_KEY', (c, n) => {
    const i = n % c.receipts.length;
    const { text, fallout } = rawText(c, i, (l) => l.replace(/"iat":(\d+)/, '"iat":$1,"iat":$1'));
    expectErrors(verifyChain(text, c.options), [`JSON_DUPLICATE_KEY@${i}`, ...fallout]);
  });
  prop('RCPT-SCHEMA-041: a \\ud800 escape in a member name or value gives JSON_LONE_SURROGATE', (c, n) => {
    const i = n % c.receipts.length;
    const { text, fallout } = rawText(c, i, (l) => (n % 2 === 0 ? l.replace('"type":"receipt"', '"type":"rec\\ud800eipt"') : l.replace('"type":', '"ty\\ud800pe":')));
    expectErrors(verifyChain(text, c.options), [`JSON_LONE_SURROGATE@${i}`, ...fallout]);
  });
  prop('RCPT-SCHEMA-041: iat as 1.0, 1e9, -0 or 2^53 gives JSON_NUMBER_FORM', (c, n) => {
    const i = n % c.receipts.length;
    const form = pick(['$1.0', '1e9', '-0', '9007199254740992'], n >> 1);
    const { text, fallout } = rawText(c, i, (l) => l.replace(/"iat":(\d+)/, `"iat":${form}`));
    expectErrors(verifyChain(text, c.options), [`JSON_NUMBER_FORM@${i}`, ...fallout]);
  });
  prop('RCPT-SIG-004: a small-order issuer key gives KEY_INVALID', (c, n) => {
    const i = n % c.receipts.length;
    const bad = keyrefOf(Buffer.from(pick([...ED25519_TORSION_SUBGROUP], n), 'hex'));
    const { list, fallout } = rawEdit(c, i, (r) => {
      r.iss = bad;
      r.sig.kid = bad;
    });
    expectErrors(verifyChain(list, { ...c.options, serviceId: KEYS.issuer.keyref }), [`KEY_INVALID@${i}`, `ISSUER_UNTRUSTED@${i}`, ...fallout]);
  });
});

describe('RCPT mutation operators, resealed', () => {
  prop('RCPT-SIG-005: re-signing with an untrusted key gives ISSUER_UNTRUSTED', (c, n) => {
    const i = n % c.receipts.length;
    // approvals are over the issuer's published service id, which a re-signing key cannot change
    expectErrors(verifyChain(reseal(c, (rs) => ((rs[i] as Receipt).iss = KEYS.other.keyref)), { ...c.options, serviceId: KEYS.issuer.keyref }), [`ISSUER_UNTRUSTED@${i}`]);
  });
  prop('RCPT-SCHEMA-011: an unknown member in act, decision, outcome, crit_object or resolved gives SCHEMA_UNKNOWN_FIELD', (c, n) => {
    const targets: [number[], (r: Record<string, any>) => void][] = [ // eslint-disable-line @typescript-eslint/no-explicit-any
      [indexes(c, () => true), (r) => (r['act'].extra = 1)],
      [indexes(c, () => true), (r) => (r['decision'].extra = 1)],
      [indexes(c, isOutcome), (r) => (r['outcome'].extra = 1)],
      [indexes(c, (r) => r.decision.crit_object !== undefined), (r) => (r['decision'].crit_object.extra = 1)],
      [indexes(c, (r) => r.outcome?.resolved != null), (r) => (r['outcome'].resolved.extra = 1)],
    ];
    const t = n % targets.length;
    const [where, edit] = targets[t] as (typeof targets)[number];
    const i = pick(where, n >> 3);
    // D-RCPT-25: an outcome is still compared with its gate, so a changed act or decision on one side of a pair also differs.
    const pairCode = t === 0 ? 'PAIR_ACT_MISMATCH' : t === 1 ? 'PAIR_DECISION_MISMATCH' : undefined;
    const r = c.receipts[i] as Receipt;
    const partners = pairCode === undefined ? [] : isOutcome(r) ? [i] : indexes(c, (x) => x.gate === digestOf(r));
    // The approval signs the act digest and is not re-signed: changing act breaks it, and a Receipt that fails the schema is still verified (D-RCPT-25).
    const approval = t === 0 && r.approval !== undefined ? [`APPROVAL_SIG_INVALID@${i}`] : [];
    expectErrors(verifyChain(reseal(c, (rs) => edit(rs[i] as unknown as Record<string, unknown>)), c.options), [`SCHEMA_UNKNOWN_FIELD@${i}`, ...partners.map((k) => `${pairCode}@${k}`), ...approval]);
  });
  prop('RCPT-CHAIN-006: a decreased iat gives IAT_REGRESSION', (c, n) => {
    const i = pick(indexes(c, (r, k) => k > 0 && !isOutcome(r)), n);
    const parentIat = (c.receipts[i - 1] as Receipt).iat;
    expectErrors(verifyChain(reseal(c, (rs) => ((rs[i] as Receipt).iat = parentIat - 1)), c.options), [`IAT_REGRESSION@${i}`]);
  });
  prop('RCPT-PAIR-003: an outcome pointing at a denied gate gives OUTCOME_WITHOUT_ALLOWED_GATE', (c, n) => {
    const o = pick(indexes(c, (r, k) => isOutcome(r) && c.receipts.slice(0, k).some(isDenied)), n);
    const g = pick(indexes(c, (r, k) => k < o && isDenied(r)), n >> 2);
    const [out, gate] = [c.receipts[o] as Receipt, c.receipts[g] as Receipt];
    // D-RCPT-25: the outcome is still compared with the gate it names: the decisions differ (allowed, denied), the acts and actors may.
    const pair = ['PAIR_DECISION_MISMATCH', ...(canonicalString(out.act) === canonicalString(gate.act) ? [] : ['PAIR_ACT_MISMATCH']), ...(out.actor === gate.actor ? [] : ['PAIR_ACTOR_MISMATCH'])];
    expectErrors(verifyChain(reseal(c, (rs) => ((rs[o] as Receipt).gate = digestOf(c.receipts[g]))), c.options), [`OUTCOME_WITHOUT_ALLOWED_GATE@${o}`, ...pair.map((code) => `${code}@${o}`)]);
  });
  prop('RCPT-PAIR-004: a second outcome for one gate gives DUPLICATE_OUTCOME', (c, n) => {
    const o = pick(indexes(c, isOutcome), n);
    const last = c.receipts.at(-1) as Receipt;
    const extra = { ...copy(c.receipts[o] as Receipt), id: 'second_outcome', prev: digestOf(last), iat: last.iat };
    const list = resealChain([...copy(c.receipts), extra], c.receipts.map((r) => digestOf(r)), { keys: ALL_KEYS, grantId: GRANT });
    expectErrors(verifyChain(list, c.options), [`DUPLICATE_OUTCOME@${c.receipts.length}`]);
  });
  prop('RCPT-PAIR-005: an outcome whose act differs from its gate gives PAIR_ACT_MISMATCH', (c, n) => {
    const o = pick(indexes(c, isOutcome), n);
    expectErrors(verifyChain(reseal(c, (rs) => ((rs[o] as Receipt).act.resource += '~')), c.options), [`PAIR_ACT_MISMATCH@${o}`]);
  });
  prop('RCPT-SCHEMA-017: removing reason, subcode, prose or crit_object gives the matching rule code', (c, n) => {
    const policy = pick(indexes(c, (r) => r.decision.reason === 'PROTO_DENY_POLICY'), n);
    const crit = pick(indexes(c, (r) => r.decision.reason === 'PROTO_DENY_UNKNOWN_CRIT'), n);
    const cases: [number, (r: Receipt) => void, string[]][] = [
      [policy, (r) => (r.decision = { result: 'denied' }), ['REASON_MISSING']],
      [policy, (r) => delete r.decision.subcode, ['POLICY_DETAIL_MISSING']],
      [policy, (r) => delete r.decision.prose, ['POLICY_DETAIL_MISSING']],
      [crit, (r) => delete r.decision.crit_object, ['CRIT_OBJECT_MISSING']],
      [crit, (r) => delete r.decision.reason, ['REASON_MISSING', 'CRIT_OBJECT_UNEXPECTED']],
    ];
    const [i, edit, codes] = pick(cases, n >> 1);
    expectErrors(verifyChain(reseal(c, (rs) => edit(rs[i] as Receipt)), c.options), codes.map((code) => `${code}@${i}`));
  });
  prop('RCPT-SIG-006: at level 2, a removed actor_sig gives L2_ACTOR_SIG_MISSING and one over another grant gives ACTOR_SIG_INVALID', (c, n) => {
    fc.pre(c.level >= 2);
    const i = pick(indexes(c, isDenied), n);
    const removed = copy(c.receipts);
    delete (removed[i] as Receipt).act.actor_sig;
    const list = resealChain(removed, c.receipts.map((r) => digestOf(r)), { keys: ALL_KEYS });
    expectErrors(verifyChain(list, c.options), [`L2_ACTOR_SIG_MISSING@${i}`]);
    const other = copy(c.receipts);
    (other[i] as Receipt).act = signAct((other[i] as Receipt).act, KEYS.actor, 'grant_other');
    expectErrors(verifyChain(resealChain(other, c.receipts.map((r) => digestOf(r)), { keys: ALL_KEYS }), c.options), [`ACTOR_SIG_INVALID@${i}`]);
  }, 8);
  prop('RCPT-SIG-007: an approval over another service id or another act gives APPROVAL_SIG_INVALID', (c, n) => {
    const i = pick(indexes(c, isStopSig), n);
    const r0 = c.receipts[i] as Receipt;
    const approval = n % 2 === 0 ? approveAct(r0.act, 'svc_other', KEYS.approver) : approveAct({ ...r0.act, resource: `${r0.act.resource}x` }, r0.iss, KEYS.approver);
    expectErrors(verifyChain(reseal(c, (rs) => ((rs[i] as Receipt).approval = approval)), c.options), [`APPROVAL_SIG_INVALID@${i}`]);
  });
  prop('RCPT-SCHEMA-035: approval on model.call gives APPROVAL_WRONG_VERB; approval plus token gives APPROVAL_AND_TOKEN', (c, n) => {
    const d = pick(indexes(c, isDenied), n);
    const wrong = reseal(c, (rs) => ((rs[d] as Receipt).approval = approveAct((rs[d] as Receipt).act, (rs[d] as Receipt).iss, KEYS.approver)));
    expectErrors(verifyChain(wrong, c.options), [`APPROVAL_WRONG_VERB@${d}`]);
    const s = pick(indexes(c, isStopSig), n);
    expectErrors(verifyChain(reseal(c, (rs) => ((rs[s] as Receipt).token = TOKEN)), c.options), [`APPROVAL_AND_TOKEN@${s}`]);
  });
});
