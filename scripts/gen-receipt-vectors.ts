// Generates fixtures/receipts/receipt_chain_test.json: Wycheproof-like Receipt chain vectors,
// deterministic (RFC 8032 §7.1 test keys, fixed ids and iat; Ed25519 signatures are deterministic).
// Run: npx tsx scripts/gen-receipt-vectors.ts   (suites/receipts/vectors.test.ts fails if the file is stale)
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  ChainBuilder, Ed25519Key, canonicalString, digestOf, encodeBase64url, keyrefOf, resealChain, sealReceipt, signAct, approveAct, tokenCommitment,
  type FindingCode, type Receipt, type ReceiptPayloads, type VerifyOptions,
} from '../src/receipts/index.ts';
import { ed25519, ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';

export const VECTORS_PATH = fileURLToPath(new URL('../fixtures/receipts/receipt_chain_test.json', import.meta.url));

const seeds = {
  issuer: ['RFC 8032 7.1 TEST 1', '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'],
  actor: ['RFC 8032 7.1 TEST 2', '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb'],
  approver: ['RFC 8032 7.1 TEST 3', 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7'],
  other: ['RFC 8032 7.1 TEST 1024', 'f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5'],
  issuer2: ['RFC 8032 7.1 TEST SHA(abc)', '833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42'],
} as const;
const key = (name: keyof typeof seeds) => Ed25519Key.fromSeed(Buffer.from(seeds[name][1], 'hex'));
const ISSUER = key('issuer');
const ACTOR = key('actor');
const APPROVER = key('approver');
const OTHER = key('other');
const ISSUER2 = key('issuer2');
const ALL_KEYS = [ISSUER, ACTOR, APPROVER, OTHER, ISSUER2];
const GRANT = 'grant_2026_0001';
const TOKEN = 'tok_3f9a1c';
const NOW = 1_700_001_000;
const BODY = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] };
const OUTPUT = [{ role: 'assistant', content: 'Hi! How can I help?' }];
const CONTEXT = { mandate: 'mnd_1', messages: BODY.messages };
const SMALL_ORDER_KEYREF = keyrefOf(Buffer.from(ED25519_TORSION_SUBGROUP[0] as string, 'hex'));
const USD = (amount: string) => ({ amount, unit: 'USD' });

const BASE_OPTIONS: VerifyOptions = { level: 1, trustedIssuers: [ISSUER.keyref], approvers: [APPROVER.keyref], tokenCommitments: [tokenCommitment(TOKEN)], now: NOW };

/** The base chain: gate+outcome, denial, stop.approve (signature), gate+outcome (interrupted), stop.approve (token). */
function baseChain(level: 1 | 2 | 3 = 1, prefix = 'rcpt_', issuer = ISSUER): Receipt[] {
  let n = 0;
  let t = 1_700_000_000;
  const b = new ChainBuilder({ issuer, actor: ACTOR, level, ...(level >= 2 ? { grantId: GRANT } : {}), nextId: () => `${prefix}${String(++n).padStart(4, '0')}`, now: () => (t += 10) });
  const context = level >= 3 ? { context: digestOf(CONTEXT) } : {};
  const g0 = b.appendGate({ resource: 'gpt-4o-mini', inputDigest: digestOf(BODY), decision: { result: 'allowed' }, cost: USD('0.000123'), ...context });
  b.appendOutcome(g0.digest, { status: 'ok', outputDigest: digestOf(OUTPUT), resolved: { provider: 'mock', model: 'gpt-4o-mini-2024-07-18', boundary: ['default'] }, cost: USD('0.000101') });
  b.appendGate({ resource: 'gpt-4o-mini', decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: 'monthly spend cap reached' }, cost: USD('0'), ...context });
  b.appendStopApprove({ resource: 'session/1', approver: APPROVER });
  const g4 = b.appendGate({ resource: 'gpt-4o', decision: { result: 'allowed' }, cost: USD('0.0021'), ...context });
  b.appendOutcome(g4.digest, { status: 'interrupted', resolved: null, cost: USD('0.0004') });
  b.appendStopApprove({ resource: 'session/2', token: TOKEN });
  return b.receipts;
}

type Item = Receipt | string;
type Expect = [FindingCode, number | null][];
interface Spec {
  group: string;
  comment: string;
  flags: string[];
  input: Item[] | { text: string } | { base64: string };
  options?: { [K in keyof Omit<VerifyOptions, 'payloads'>]?: VerifyOptions[K] | undefined } & { payloads?: Record<string, ReceiptPayloads>; payloadsFile?: string };
  /** The verifier refuses the options before reading any Receipt (the CLI exits 2): why. */
  refused?: 'TRUSTED_KEY_INVALID' | 'APPROVER_KEY_INVALID' | 'PAYLOADS_INVALID';
  errors?: Expect;
  warnings?: Expect;
}

const L1 = baseChain(1);
const L2 = baseChain(2);
const L3 = baseChain(3);
const jcs = (r: unknown) => canonicalString(r);
const textOf = (items: Item[]) => items.map((r) => (typeof r === 'string' ? r : jcs(r))).join('\n') + '\n';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Edit = (c: any[]) => void;
/** A deep copy that shares no objects between Receipts (a gate and its outcome may share act). */
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
function resealed(chain: Receipt[], edit: Edit, extra: { keepSig?: number[]; grantId?: string; resignApproval?: boolean; serviceId?: string } = {}): Receipt[] {
  const clone = copy(chain);
  edit(clone);
  return resealChain(clone, chain.map((r) => digestOf(r)), {
    keys: ALL_KEYS,
    ...(extra.keepSig === undefined ? {} : { keepSig: new Set(extra.keepSig) }),
    ...(extra.grantId === undefined ? {} : { grantId: extra.grantId }),
    ...(extra.resignApproval === undefined ? {} : { resignApproval: extra.resignApproval }),
    ...(extra.serviceId === undefined ? {} : { serviceId: extra.serviceId }),
  });
}
function raw(chain: Receipt[], edit: Edit): Receipt[] {
  const clone = copy(chain);
  edit(clone);
  return clone;
}
function rawLine(chain: Receipt[], i: number, edit: (line: string) => string): Item[] {
  return chain.map((r, k) => (k === i ? edit(jcs(r)) : r));
}
const sOfSig = (val: string) => Buffer.from(val, 'base64url');
const L_LE = Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex');
function addL(sLe: Buffer): Buffer {
  const out = Buffer.alloc(32);
  let carry = 0;
  for (let i = 0; i < 32; i++) {
    const v = (sLe[i] ?? 0) + (L_LE[i] ?? 0) + carry;
    out[i] = v & 0xff;
    carry = v >> 8;
  }
  return out;
}
const GATE_OPEN_NONE: Expect = [];

function specs(): Spec[] {
  const v: Spec[] = [];
  const add = (s: Spec) => v.push(s);
  const head = jcs;
  void head;
  // ---------- valid ----------
  add({ group: 'valid', comment: 'base chain: gate, outcome, denial, stop.approve (signature), gate, interrupted outcome, stop.approve (token)', flags: ['Valid'], input: L1 });
  add({ group: 'valid', comment: 'the same chain as a pretty-printed JSON array', flags: ['Valid', 'JsonArray'], input: { text: JSON.stringify(L1, null, 2) } });
  add({ group: 'valid', comment: 'input order reversed: the order comes from the links', flags: ['Valid', 'InputOrder'], input: [...L1].reverse() });
  add({ group: 'valid', comment: 'two neighbours swapped in the file: still one linked chain', flags: ['Valid', 'InputOrder'], input: [L1[0]!, L1[1]!, L1[3]!, L1[2]!, L1[4]!, L1[5]!, L1[6]!] });
  add({ group: 'valid', comment: 'level 2 chain verified at level 2 with the grant id', flags: ['Valid', 'Level2'], input: L2, options: { level: 2, grantId: GRANT } });
  add({ group: 'valid', comment: 'level 3 chain verified at level 3', flags: ['Valid', 'Level3'], input: L3, options: { level: 3, grantId: GRANT } });
  add({ group: 'valid', comment: 'level 3 chain verified at level 1 with the grant id (actor_sig still checked)', flags: ['Valid'], input: L3, options: { grantId: GRANT } });
  add({ group: 'valid', comment: 'a single genesis Receipt (a denial)', flags: ['Valid'], input: [L1[2]!].map((r) => resealed([r], (c) => delete c[0].prev)[0]!) });
  add({ group: 'valid', comment: 'empty input: no Receipts yet', flags: ['Valid', 'Empty'], input: { text: '' } });
  add({ group: 'valid', comment: 'CRLF line ends and blank lines', flags: ['Valid', 'Whitespace'], input: { text: '\r\n' + L1.map(jcs).join('\r\n\r\n') + '\r\n' } });
  add({ group: 'valid', comment: 'non-canonical wire (pretty, \\u0041 and \\/ escapes) is accepted: digests are over JCS', flags: ['Valid', 'WireForm'], input: L1.map((r) => JSON.stringify(r, null, 1).replace(/\n/g, ' ').replace('"proto"', '"pr\\u006fto"').replace('session/1', 'session\\/1')) });
  add({ group: 'valid', comment: 'the expected head matches', flags: ['Valid', 'Head'], input: L1, options: { expectedHead: digestOf(L1[6]) } });
  add({ group: 'valid', comment: 'a verb other than model.call / stop.approve is a warning', flags: ['Valid', 'UnknownVerb'], input: resealed(L1, (c) => (c[2].act.verb = 'tool.invoke')), warnings: [['UNKNOWN_VERB', 2]] });
  add({ group: 'valid', comment: 'a deny reason other than the two shown is a warning', flags: ['Valid', 'UnknownReason'], input: resealed(L1, (c) => { c[2].decision = { result: 'denied', reason: 'PROTO_DENY_RATE' }; }), warnings: [['UNKNOWN_DENY_REASON', 2]] });
  add({ group: 'valid', comment: 'token without a commitment to check it against is a warning', flags: ['Valid', 'Token'], input: L1, options: { tokenCommitments: undefined }, warnings: [['TOKEN_UNVERIFIED', 6]] });
  add({ group: 'valid', comment: 'issuer key rotated to another trusted issuer mid-chain is a warning', flags: ['Valid', 'IssuerChange'], input: resealed(L1, (c) => { for (const k of [4, 5, 6]) c[k].iss = ISSUER2.keyref; }), options: { trustedIssuers: [ISSUER.keyref, ISSUER2.keyref] }, warnings: [['ISSUER_CHANGED', 4]] });
  add({ group: 'valid', comment: 'an allowed model.call gate without outcome at the end is a warning', flags: ['Valid', 'GateOpen'], input: L1.slice(0, 5), warnings: [['GATE_OPEN', 4]] });
  add({ group: 'valid', comment: 'payloads given and matching input_digest, output_digest and context', flags: ['Valid', 'Payloads'], input: L3, options: { level: 3, grantId: GRANT, payloads: { '0': { input: BODY, context: CONTEXT }, '1': { output: OUTPUT } } } });
  add({ group: 'valid', comment: 'decision member literally named "the service"', flags: ['Valid', 'TheService'], input: resealed(L1, (c) => (c[2].decision['the service'] = digestOf({ service: 'mock' }))) });
  add({ group: 'valid', comment: 'resource with non-BMP and RTL characters (UTF-16 key and string handling)', flags: ['Valid', 'Unicode'], input: resealed(L1, (c) => (c[2].act.resource = 'doc/😂/דּ/é')) });
  add({ group: 'valid', comment: 'PROTO_DENY_UNKNOWN_CRIT with crit_object', flags: ['Valid'], input: resealed(L1, (c) => { c[2].decision = { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT', crit_object: { object: digestOf(BODY), path: '/x-crit~1a' } }; }) });
  add({ group: 'valid', comment: 'amounts in canonical decimal form, tokens unit', flags: ['Valid', 'Budget'], input: resealed(L1, (c) => { c[2].cost = { amount: '0', unit: 'tokens' }; c[0].cost = USD('12.5'); c[1].cost = USD('12.5'); }) });
  // ---------- parse ----------
  add({ group: 'parse', comment: 'truncated JSON line', flags: ['JsonSyntax'], input: rawLine(L1, 2, (l) => l.slice(0, -5)), errors: [['JSON_SYNTAX', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'data after the JSON value on a line', flags: ['JsonSyntax', 'TrailingData'], input: rawLine(L1, 2, (l) => `${l} {}`), errors: [['JSON_SYNTAX', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'duplicate member with an equal value', flags: ['DuplicateKey'], input: rawLine(L1, 2, (l) => l.replace('"iat":', '"iat":1700000030,"iat":')), errors: [['JSON_DUPLICATE_KEY', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'duplicate member inside decision', flags: ['DuplicateKey'], input: rawLine(L1, 2, (l) => l.replace('"result":"denied"', '"result":"denied","result":"allowed"')), errors: [['JSON_DUPLICATE_KEY', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'duplicate member spelled with an escape', flags: ['DuplicateKey'], input: rawLine(L1, 2, (l) => l.replace('"id":', '"i\\u0064":"x","id":')), errors: [['JSON_DUPLICATE_KEY', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'escaped lone high surrogate in a value', flags: ['LoneSurrogate'], input: rawLine(L1, 2, (l) => l.replace('monthly spend', 'monthly \\ud800 spend')), errors: [['JSON_LONE_SURROGATE', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'escaped lone low surrogate in a member name', flags: ['LoneSurrogate'], input: rawLine(L1, 2, (l) => l.replace('"prose"', '"pr\\udc00ose"')), errors: [['JSON_LONE_SURROGATE', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'high surrogate followed by a non-surrogate escape', flags: ['LoneSurrogate'], input: rawLine(L1, 2, (l) => l.replace('monthly spend', 'monthly \\ud83d\\u0041 spend')), errors: [['JSON_LONE_SURROGATE', 2], ['CHAIN_BREAK', 3]] });
  const enc = (items: Item[]) => Buffer.from(textOf(items), 'utf8');
  const withBytes = (i: number, find: string, bytes: number[]) => {
    const lines = L1.map((r) => Buffer.from(jcs(r), 'utf8'));
    const line = lines[i] as Buffer;
    const at = line.indexOf(find);
    lines[i] = Buffer.concat([line.subarray(0, at), Buffer.from(bytes), line.subarray(at + find.length)]);
    return { base64: Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])).toString('base64') };
  };
  add({ group: 'parse', comment: 'invalid UTF-8 byte 0xff in a string', flags: ['InvalidUtf8'], input: withBytes(2, 'monthly', [0xff]), errors: [['JSON_INVALID_UTF8', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'UTF-8-encoded surrogate (CESU-8 style ED A0 80) is invalid UTF-8 (a raw lone surrogate)', flags: ['InvalidUtf8', 'LoneSurrogate'], input: withBytes(2, 'monthly', [0xed, 0xa0, 0x80]), errors: [['JSON_INVALID_UTF8', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'overlong UTF-8 encoding of "/" (C0 AF)', flags: ['InvalidUtf8'], input: withBytes(2, 'monthly', [0xc0, 0xaf]), errors: [['JSON_INVALID_UTF8', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'byte order mark before the first Receipt', flags: ['InvalidUtf8', 'Bom'], input: { base64: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), enc(L1)]).toString('base64') }, errors: [['JSON_INVALID_UTF8', 0], ['CHAIN_BREAK', 1], ['GATE_NOT_FOUND', 1], ['CHAIN_NO_GENESIS', null]] });
  for (const [form, comment] of [['1700000030.0', 'a fraction'], ['1.70000003e9', 'an exponent'], ['-0', 'minus zero'], ['9007199254740992', '2^53, beyond the safe integers'], ['-1', 'a negative number']] as const) {
    add({ group: 'parse', comment: `iat written as ${comment} (${form})`, flags: ['NumberForm'], input: rawLine(L1, 2, (l) => l.replace('"iat":1700000030', `"iat":${form}`)), errors: [['JSON_NUMBER_FORM', 2], ['CHAIN_BREAK', 3]] });
  }
  add({ group: 'parse', comment: 'leading zero in a number', flags: ['NumberForm'], input: rawLine(L1, 2, (l) => l.replace('"iat":1700000030', '"iat":01700000030')), errors: [['JSON_NUMBER_FORM', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'nesting deeper than 32', flags: ['Limits'], input: rawLine(L1, 2, (l) => l.replace('"act":', `"deep":${'['.repeat(40)}${']'.repeat(40)},"act":`)), errors: [['JSON_LIMITS', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'a Receipt larger than 64 KiB', flags: ['Limits'], input: rawLine(L1, 2, (l) => l.replace('monthly spend cap reached', 'x'.repeat(70_000))), errors: [['JSON_LIMITS', 2], ['CHAIN_BREAK', 3]] });
  // D-RCPT-24/26: a Receipt's bytes run from its first to its last byte that is not JSON whitespace.
  add({ group: 'parse', comment: 'D-RCPT-24: spaces and tabs around a Receipt on its line are not the Receipt\'s bytes: strict wire accepts canonical Receipts so padded, on the first line and on later ones alike', flags: ['Valid', 'WireForm', 'Whitespace'], input: { text: L1.map((r, k) => `${k % 2 === 0 ? ' \t ' : ''}${jcs(r)}${k % 3 === 0 ? '\t  ' : ''}`).join('\r\n') + '\n' }, options: { strictWire: true } });
  add({ group: 'parse', comment: 'D-RCPT-24: a pretty-printed JSON array of canonical Receipts (indentation, a space before a comma): the layout is not the Receipts\' bytes, strict wire accepts it', flags: ['Valid', 'WireForm', 'Whitespace', 'JsonArray'], input: { text: `[\n  ${L1.map(jcs).join(' ,\n  ')}\n]\n` }, options: { strictWire: true } });
  add({ group: 'parse', comment: 'D-RCPT-24: whitespace inside a Receipt is its bytes: strict wire refuses a space after its opening brace, whatever the padding around it', flags: ['WireForm', 'Whitespace'], input: { text: L1.map((r, k) => (k === 2 ? `  ${jcs(r).replace('{', '{ ')}  ` : jcs(r))).join('\n') + '\n' }, options: { strictWire: true }, errors: [['WIRE_NOT_CANONICAL', 2]] });
  {
    // A Receipt of exactly the limit, 65,536 bytes, then padding on its line: within the limit (the padding is not its bytes).
    const sized = (n: number) => resealed(L1, (c) => (c[2].decision.prose = 'x'.repeat(n)));
    const base = jcs(sized(0)[2]).length;
    const atLimit = sized(65_536 - base);
    add({ group: 'parse', comment: 'D-RCPT-26: a Receipt of exactly 65,536 bytes followed by 200 spaces and a tab on its line is within the limit: no JSON_LIMITS', flags: ['Valid', 'Limits', 'Whitespace'], input: { text: atLimit.map((r, k) => (k === 2 ? `${jcs(r)}${' '.repeat(200)}\t` : jcs(r))).join('\n') + '\n' } });
    add({ group: 'parse', comment: 'D-RCPT-26: a Receipt of exactly 65,536 bytes as the third element of a JSON array, padded with spaces before its comma: within the limit', flags: ['Valid', 'Limits', 'Whitespace', 'JsonArray'], input: { text: `[${atLimit.map((r, k) => (k === 2 ? `   ${jcs(r)}${' '.repeat(300)}` : jcs(r))).join(',')}]` } });
    const over = sized(65_537 - base);
    add({ group: 'parse', comment: 'D-RCPT-26: a Receipt of 65,537 bytes is JSON_LIMITS, whatever the padding around it', flags: ['Limits', 'Whitespace'], input: { text: over.map((r, k) => (k === 2 ? ` ${jcs(r)} ` : jcs(r))).join('\n') + '\n' }, errors: [['JSON_LIMITS', 2], ['CHAIN_BREAK', 3]] });
  }
  add({ group: 'parse', comment: 'strict wire: a Receipt not in JCS form', flags: ['WireForm'], input: rawLine(L1, 2, (l) => l.replace('{', '{ ')), options: { strictWire: true }, errors: [['WIRE_NOT_CANONICAL', 2]] });
  add({ group: 'parse', comment: 'JSON array with data after the closing bracket', flags: ['JsonSyntax', 'JsonArray'], input: { text: `${JSON.stringify(L1)} []` }, errors: [['JSON_SYNTAX', null]] });
  // ---------- schema ----------
  add({ group: 'schema', comment: 'required member cost missing', flags: ['Schema'], input: resealed(L1, (c) => delete c[2].cost), errors: [['SCHEMA_MISSING_FIELD', 2]] });
  add({ group: 'schema', comment: 'unknown top-level member (the top level is closed, D-RCPT-15)', flags: ['Schema', 'UnknownMember'], input: resealed(L1, (c) => (c[2].extra = 1)), errors: [['SCHEMA_UNKNOWN_FIELD', 2]] });
  add({ group: 'schema', comment: 'unknown member in act', flags: ['Schema', 'UnknownMember'], input: resealed(L1, (c) => (c[2].act.note = 'x')), errors: [['SCHEMA_UNKNOWN_FIELD', 2]] });
  add({ group: 'schema', comment: 'unknown member in decision', flags: ['Schema', 'UnknownMember'], input: resealed(L1, (c) => (c[2].decision.score = 1)), errors: [['SCHEMA_UNKNOWN_FIELD', 2]] });
  add({ group: 'schema', comment: 'unknown member in outcome', flags: ['Schema', 'UnknownMember'], input: resealed(L1, (c) => (c[1].outcome.latency = 3)), errors: [['SCHEMA_UNKNOWN_FIELD', 1]] });
  add({ group: 'schema', comment: 'unknown member in resolved', flags: ['Schema', 'UnknownMember'], input: resealed(L1, (c) => (c[1].outcome.resolved.region = 'eu')), errors: [['SCHEMA_UNKNOWN_FIELD', 1]] });
  add({ group: 'schema', comment: 'unknown member in crit_object', flags: ['Schema', 'UnknownMember'], input: resealed(L1, (c) => { c[2].decision = { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT', crit_object: { object: digestOf(BODY), path: '/a', why: 'x' } }; }), errors: [['SCHEMA_UNKNOWN_FIELD', 2]] });
  add({ group: 'schema', comment: 'subcode without PROTO_DENY_POLICY (D-RCPT-17)', flags: ['Schema', 'DecisionRule'], input: resealed(L1, (c) => { c[2].decision = { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT', crit_object: { object: digestOf(BODY), path: '/a' }, subcode: 'X_A_B' }; }), errors: [['SCHEMA_UNKNOWN_FIELD', 2]] });
  add({ group: 'schema', comment: 'iat as a string', flags: ['Schema'], input: resealed(L1, (c) => (c[2].iat = '1700000030')), errors: [['SCHEMA_TYPE', 2]] });
  add({ group: 'schema', comment: 'id outside its pattern', flags: ['Schema'], input: resealed(L1, (c) => (c[2].id = 'bad id!')), errors: [['SCHEMA_PATTERN', 2]] });
  add({ group: 'schema', comment: 'decision.result outside allowed/denied', flags: ['Schema'], input: resealed(L1, (c) => (c[3].decision.result = 'approved')), errors: [['SCHEMA_PATTERN', 3]] });
  add({ group: 'schema', comment: 'type is not the constant receipt', flags: ['Schema'], input: resealed(L1, (c) => (c[2].type = 'Receipt')), errors: [['SCHEMA_PATTERN', 2]] });
  add({ group: 'schema', comment: 'outcome.status outside ok/failed/interrupted', flags: ['Schema'], input: resealed(L1, (c) => (c[5].outcome.status = 'done')), errors: [['SCHEMA_PATTERN', 5]] });
  add({ group: 'schema', comment: 'proto is another version', flags: ['Schema', 'Proto'], input: resealed(L1, (c) => (c[2].proto = '1.0-draft.1')), errors: [['UNSUPPORTED_PROTO', 2]] });
  add({ group: 'schema', comment: 'digest with uppercase hex', flags: ['Schema', 'Digest'], input: resealed(L1, (c) => (c[0].act.input_digest = c[0].act.input_digest.toUpperCase().replace('SHA256', 'sha256'))), errors: [['BAD_DIGEST', 0], ['PAIR_ACT_MISMATCH', 1]] });
  add({ group: 'schema', comment: 'digest with the prefix sha-256:', flags: ['Schema', 'Digest'], input: resealed(L1, (c) => (c[0].act.input_digest = c[0].act.input_digest.replace('sha256:', 'sha-256:'))), errors: [['BAD_DIGEST', 0], ['PAIR_ACT_MISMATCH', 1]] });
  add({ group: 'schema', comment: 'prev not a digest: it names no Receipt, so BAD_DIGEST and CHAIN_BREAK (D-RCPT-25)', flags: ['Schema', 'Digest', 'CoReport'], input: resealed(L1, (c) => (c[2].prev = c[2].prev.slice(0, 70))), errors: [['BAD_DIGEST', 2], ['CHAIN_BREAK', 2]] });
  add({ group: 'schema', comment: 'actor is not a did:key Ed25519 keyref', flags: ['Schema', 'Keyref'], input: resealed(L1, (c) => (c[2].actor = 'did:web:example.com')), errors: [['BAD_KEYREF', 2]] });
  add({ group: 'schema', comment: 'signature value with a garbage character appended', flags: ['Schema', 'SignatureWithGarbage'], input: resealed(L1, (c) => (c[2].sig.val += 'A'), { keepSig: [2] }), errors: [['BAD_SIG_ENCODING', 2]] });
  add({ group: 'schema', comment: 'truncated signature value', flags: ['Schema', 'TruncatedSignature'], input: resealed(L1, (c) => (c[2].sig.val = c[2].sig.val.slice(0, 84)), { keepSig: [2] }), errors: [['BAD_SIG_ENCODING', 2]] });
  add({ group: 'schema', comment: 'signature with base64 padding', flags: ['Schema', 'InvalidEncoding'], input: resealed(L1, (c) => (c[2].sig.val += '=='), { keepSig: [2] }), errors: [['BAD_SIG_ENCODING', 2]] });
  add({ group: 'schema', comment: 'base64url alias: non-zero unused bits in the last character', flags: ['Schema', 'InvalidEncoding'], input: resealed(L1, (c) => { const v: string = c[2].sig.val; const last = v.at(-1) as string; const alias = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'; c[2].sig.val = v.slice(0, -1) + alias[alias.indexOf(last) + 1]; }, { keepSig: [2] }), errors: [['NONCANONICAL_BASE64URL', 2]] });
  add({ group: 'schema', comment: 'budget amount with a sign', flags: ['Schema', 'Budget'], input: resealed(L1, (c) => (c[2].cost.amount = '-1')), errors: [['BAD_BUDGET', 2]] });
  add({ group: 'schema', comment: 'budget unit not a currency code', flags: ['Schema', 'Budget'], input: resealed(L1, (c) => (c[2].cost.unit = 'usd')), errors: [['BAD_BUDGET', 2]] });
  add({ group: 'schema', comment: 'budget amount with a trailing zero', flags: ['Schema', 'Budget'], input: resealed(L1, (c) => (c[2].cost.amount = '1.50')), errors: [['NONCANONICAL_DECIMAL', 2]] });
  add({ group: 'schema', comment: 'budget amount with a leading zero', flags: ['Schema', 'Budget'], input: resealed(L1, (c) => (c[2].cost.amount = '01')), errors: [['NONCANONICAL_DECIMAL', 2]] });
  add({ group: 'schema', comment: 'verb not a dotted lowercase name', flags: ['Schema', 'Verb'], input: resealed(L1, (c) => (c[2].act.verb = 'Model.Call')), errors: [['BAD_VERB', 2]] });
  add({ group: 'schema', comment: 'empty resource', flags: ['Schema'], input: resealed(L1, (c) => (c[2].act.resource = '')), errors: [['SCHEMA_PATTERN', 2]] });
  // ---------- rules ----------
  add({ group: 'rules', comment: 'denied without reason', flags: ['DecisionRule'], input: resealed(L1, (c) => (c[2].decision = { result: 'denied' })), errors: [['REASON_MISSING', 2]] });
  add({ group: 'rules', comment: 'allowed with a reason', flags: ['DecisionRule'], input: resealed(L1, (c) => (c[3].decision.reason = 'PROTO_DENY_RATE')), errors: [['REASON_ON_ALLOWED', 3]], warnings: [['UNKNOWN_DENY_REASON', 3]] });
  add({ group: 'rules', comment: 'PROTO_DENY_POLICY without prose', flags: ['DecisionRule'], input: resealed(L1, (c) => delete c[2].decision.prose), errors: [['POLICY_DETAIL_MISSING', 2]] });
  add({ group: 'rules', comment: 'PROTO_DENY_UNKNOWN_CRIT without crit_object', flags: ['DecisionRule'], input: resealed(L1, (c) => (c[2].decision = { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT' })), errors: [['CRIT_OBJECT_MISSING', 2]] });
  add({ group: 'rules', comment: 'crit_object with PROTO_DENY_POLICY', flags: ['DecisionRule'], input: resealed(L1, (c) => (c[2].decision.crit_object = { object: digestOf(BODY), path: '/a' })), errors: [['CRIT_OBJECT_UNEXPECTED', 2]] });
  add({ group: 'rules', comment: 'outcome on a denied Receipt', flags: ['PairingRule'], input: resealed(L1, (c) => { c[2].outcome = { status: 'failed', resolved: null }; c[2].gate = digestOf(L1[0]); }), errors: [['OUTCOME_ON_DENIED', 2], ['DUPLICATE_OUTCOME', 2], ['PAIR_ACT_MISMATCH', 2], ['PAIR_DECISION_MISMATCH', 2]] });
  add({ group: 'rules', comment: 'outcome without gate reference', flags: ['PairingRule'], input: resealed(L1, (c) => delete c[1].gate), errors: [['GATE_REF_MISSING', 1]], warnings: [['GATE_OPEN', 0]] });
  add({ group: 'rules', comment: 'gate reference without outcome', flags: ['PairingRule'], input: resealed(L1, (c) => (c[2].gate = digestOf(L1[0]))), errors: [['GATE_REF_WITHOUT_OUTCOME', 2]] });
  add({ group: 'rules', comment: 'model.call outcome without resolved', flags: ['PairingRule'], input: resealed(L1, (c) => delete c[1].outcome.resolved), errors: [['RESOLVED_MISSING', 1]] });
  add({ group: 'rules', comment: 'model.call outcome with status ok and resolved null', flags: ['PairingRule'], input: resealed(L1, (c) => (c[1].outcome.resolved = null)), errors: [['RESOLVED_MISSING', 1]] });
  add({ group: 'rules', comment: 'approval on a model.call Receipt', flags: ['StopRule'], input: resealed(L1, (c) => (c[2].approval = approveAct(c[2].act, ISSUER.keyref, APPROVER))), errors: [['APPROVAL_WRONG_VERB', 2]] });
  add({ group: 'rules', comment: 'token on a model.call Receipt', flags: ['StopRule'], input: resealed(L1, (c) => (c[2].token = TOKEN)), errors: [['TOKEN_WRONG_VERB', 2]] });
  add({ group: 'rules', comment: 'approval and token on one stop.approve', flags: ['StopRule'], input: resealed(L1, (c) => (c[3].token = TOKEN)), errors: [['APPROVAL_AND_TOKEN', 3]] });
  add({ group: 'rules', comment: 'allowed stop.approve without approval or token', flags: ['StopRule'], input: resealed(L1, (c) => delete c[3].approval), errors: [['STOP_EVIDENCE_MISSING', 3]] });
  add({ group: 'rules', comment: 'level 2: a Receipt without actor_sig', flags: ['Level2'], input: resealed(L2, (c) => delete c[2].act.actor_sig), options: { level: 2, grantId: GRANT }, errors: [['L2_ACTOR_SIG_MISSING', 2]] });
  add({ group: 'rules', comment: 'level 2 required of a level 1 chain: every Receipt lacks actor_sig', flags: ['Level2'], input: L1.slice(2, 3).map((r) => resealed([r], (c) => delete c[0].prev)[0]!), options: { level: 2, grantId: GRANT }, errors: [['L2_ACTOR_SIG_MISSING', 0]] });
  add({ group: 'rules', comment: 'level 3: a model.call gate without context', flags: ['Level3'], input: resealed(L3, (c) => delete c[0].context, { grantId: GRANT }), options: { level: 3, grantId: GRANT }, errors: [['L3_CONTEXT_MISSING', 0]] });
  // ---------- crypto ----------
  add({ group: 'crypto', comment: 'sig.alg EdDSA (deprecated polymorphic name, RFC 9864)', flags: ['Algorithm'], input: resealed(L1, (c) => (c[2].sig.alg = 'EdDSA'), { keepSig: [2] }), errors: [['SIG_ALG_UNSUPPORTED', 2]] });
  add({ group: 'crypto', comment: 'sig.kid names another key than iss', flags: ['KeyBinding'], input: resealed(L1, (c) => (c[2].sig.kid = OTHER.keyref), { keepSig: [2] }), errors: [['SIG_KID_MISMATCH', 2]] });
  add({ group: 'crypto', comment: 'actor_sig.kid names another key than actor', flags: ['KeyBinding', 'Level2'], input: resealed(L2, (c) => (c[2].act.actor_sig.kid = OTHER.keyref)), options: { level: 2, grantId: GRANT }, errors: [['SIG_KID_MISMATCH', 2]] });
  add({ group: 'crypto', comment: 'actor is a small-order point', flags: ['SmallOrderKey'], input: resealed(L1, (c) => (c[2].actor = SMALL_ORDER_KEYREF)), errors: [['KEY_INVALID', 2]] });
  add({ group: 'crypto', comment: 'approval by a small-order key (not an approver: a small-order key given as one is refused, D-RCPT-21)', flags: ['SmallOrderKey'], input: resealed(L1, (c) => (c[3].approval.kid = SMALL_ORDER_KEYREF)), errors: [['KEY_INVALID', 3], ['APPROVER_UNTRUSTED', 3]] });
  add({ group: 'crypto', comment: 'actor key with y >= p (non-canonical encoding)', flags: ['InvalidKeyEncoding'], input: resealed(L1, (c) => (c[2].actor = keyrefOf(Buffer.from('eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex')))), errors: [['KEY_INVALID', 2]] });
  add({ group: 'crypto', comment: 'S replaced by S + L (malleability)', flags: ['SignatureMalleability'], input: resealed(L1, (c) => { const b = sOfSig(c[2].sig.val); c[2].sig.val = encodeBase64url(Buffer.concat([b.subarray(0, 32), addL(b.subarray(32))])); }, { keepSig: [2] }), errors: [['SIG_NONCANONICAL', 2]] });
  add({ group: 'crypto', comment: 'R replaced by zero bytes (a small-order point)', flags: ['InvalidSignature'], input: resealed(L1, (c) => { const b = sOfSig(c[2].sig.val); c[2].sig.val = encodeBase64url(Buffer.concat([Buffer.alloc(32), b.subarray(32)])); }, { keepSig: [2] }), errors: [['SIG_NONCANONICAL', 2]] });
  add({ group: 'crypto', comment: 'S replaced by zero', flags: ['InvalidSignature'], input: resealed(L1, (c) => { const b = sOfSig(c[2].sig.val); c[2].sig.val = encodeBase64url(Buffer.concat([b.subarray(0, 32), Buffer.alloc(32)])); }, { keepSig: [2] }), errors: [['SIG_INVALID', 2]] });
  add({ group: 'crypto', comment: 'raw edit of a signed value: the signature fails and the next link breaks', flags: ['InvalidSignature', 'Raw'], input: raw(L1, (c) => (c[2].act.resource = 'gpt-4o-minj')), errors: [['SIG_INVALID', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'crypto', comment: 'signed by another key while kid and iss still name the issuer', flags: ['InvalidSignature'], input: (() => { const c = copy(L1); const r = sealReceipt({ ...c[2]!, iss: OTHER.keyref }, OTHER).receipt; c[2] = { ...r, iss: ISSUER.keyref, sig: { ...r.sig, kid: ISSUER.keyref } }; return resealed(L1, (x) => (x[2] = c[2]), { keepSig: [2] }); })(), errors: [['SIG_INVALID', 2]] });
  add({ group: 'crypto', comment: 'level 2: actor_sig over another grant id', flags: ['Level2', 'InvalidSignature'], input: resealed(L2, (c) => (c[2].act = signAct(c[2].act, ACTOR, 'grant_other'))), options: { level: 2, grantId: GRANT }, errors: [['ACTOR_SIG_INVALID', 2]] });
  add({ group: 'crypto', comment: 'approval over another service id', flags: ['InvalidSignature', 'StopRule'], input: resealed(L1, (c) => (c[3].approval = approveAct(c[3].act, 'svc_other', APPROVER))), errors: [['APPROVAL_SIG_INVALID', 3]] });
  add({ group: 'crypto', comment: 'approval over another act', flags: ['InvalidSignature', 'StopRule'], input: resealed(L1, (c) => (c[3].approval = approveAct({ verb: 'stop.approve', resource: 'session/9' }, ISSUER.keyref, APPROVER))), errors: [['APPROVAL_SIG_INVALID', 3]] });
  add({ group: 'crypto', comment: 'approval verified against the issuer\'s published service_id', flags: ['StopRule'], input: resealed(L1, (c) => (c[3].approval = approveAct(c[3].act, 'svc_mock', APPROVER))), options: { serviceId: 'svc_mock' } });
  add({ group: 'crypto', comment: 'a Receipt re-signed by an untrusted key', flags: ['Trust'], input: resealed(L1, (c) => (c[2].iss = OTHER.keyref)), errors: [['ISSUER_UNTRUSTED', 2]], warnings: [['ISSUER_CHANGED', 2], ['ISSUER_CHANGED', 3]] });
  add({ group: 'crypto', comment: 'no trusted issuer given: the issuer is not trusted', flags: ['Trust'], input: L1, options: { trustedIssuers: undefined }, errors: [['ISSUER_UNTRUSTED', 0]] });
  add({ group: 'crypto', comment: 'approval by a key not among the approvers', flags: ['Trust'], input: L1, options: { approvers: [] }, errors: [['APPROVER_UNTRUSTED', 3]] });
  add({ group: 'crypto', comment: 'level 2 without a grant id', flags: ['Level2', 'GrantId'], input: L2, options: { level: 2 }, errors: [['GRANT_ID_UNAVAILABLE', null]] });
  add({ group: 'crypto', comment: 'token commitment does not match', flags: ['Token'], input: L1, options: { tokenCommitments: [tokenCommitment('tok_other')] }, errors: [['TOKEN_MISMATCH', 6]] });
  add({ group: 'crypto', comment: 'context does not cover the given Context Envelope', flags: ['Payloads', 'Level3'], input: L3, options: { level: 3, grantId: GRANT, payloads: { '0': { context: { mandate: 'mnd_2' } } } }, errors: [['CONTEXT_DIGEST_MISMATCH', 0]] });
  add({ group: 'crypto', comment: 'input_digest does not cover the given request body', flags: ['Payloads'], input: L1, options: { payloads: { '0': { input: { ...BODY, temperature: 1 } } } }, errors: [['IO_DIGEST_MISMATCH', 0]] });
  add({ group: 'crypto', comment: 'output_digest does not cover the given output', flags: ['Payloads'], input: L1, options: { payloads: { '1': { output: [{ role: 'assistant', content: 'Hi!' }] } } }, errors: [['IO_DIGEST_MISMATCH', 1]] });
  // ---------- chain ----------
  add({ group: 'chain', comment: 'genesis deleted', flags: ['ChainLink'], input: L1.slice(1), errors: [['CHAIN_BREAK', 0], ['GATE_NOT_FOUND', 0], ['CHAIN_NO_GENESIS', null]] });
  add({ group: 'chain', comment: 'a second genesis (another chain\'s first Receipt)', flags: ['ChainLink'], input: [...L1, resealed([L1[2]!], (c) => { delete c[0].prev; c[0].id = 'rcpt_x001'; })[0]!], errors: [['CHAIN_MULTIPLE_GENESIS', 7]] });
  add({ group: 'chain', comment: 'a middle Receipt deleted', flags: ['ChainLink'], input: [...L1.slice(0, 2), ...L1.slice(3)], errors: [['CHAIN_BREAK', 2]] });
  add({ group: 'chain', comment: 'prev over the previous Receipt without its sig: PREV_DIGEST_FORM beside CHAIN_BREAK (D-RCPT-07, D-RCPT-25)', flags: ['ChainLink', 'CoReport'], input: resealed(L1, (c) => { const { sig: _sig, ...rest } = c[2]; c[3].prev = digestOf(rest); }), errors: [['CHAIN_BREAK', 3], ['PREV_DIGEST_FORM', 3]] });
  {
    // The previous Receipt served with its members in reverse order (valid JSON, not its JCS form), and prev taken over those bytes.
    const reversed = (r: Receipt): string => JSON.stringify(Object.fromEntries(Object.entries(r).reverse()));
    const chain = resealed(L1, (c) => (c[3].prev = `sha256:${createHash('sha256').update(reversed(c[2])).digest('hex')}`));
    add({ group: 'chain', comment: 'prev over the previous Receipt\'s bytes as served (not its JCS form): PREV_DIGEST_FORM beside CHAIN_BREAK', flags: ['ChainLink', 'CoReport', 'WireForm'], input: chain.map((r, k): Item => (k === 2 ? reversed(r) : r)), errors: [['CHAIN_BREAK', 3], ['PREV_DIGEST_FORM', 3]] });
  }
  add({ group: 'chain', comment: 'a valid Receipt from another chain inserted', flags: ['ChainLink'], input: [...L1.slice(0, 3), baseChain(1, 'rcpt_o', ISSUER)[3]!, ...L1.slice(3)], errors: [['CHAIN_BREAK', 3]] });
  add({ group: 'chain', comment: 'fork: two Receipts with the same prev', flags: ['ChainLink', 'Fork'], input: [...L1, resealed([L1[3]!], (c) => (c[0].id = 'rcpt_f001'))[0]!], errors: [['CHAIN_FORK', 7]] });
  add({ group: 'chain', comment: 'two different Receipts with the same id', flags: ['ChainLink'], input: resealed(L1, (c) => (c[4].id = c[2].id)), errors: [['DUPLICATE_ID', 4]] });
  add({ group: 'chain', comment: 'the same Receipt twice', flags: ['ChainLink'], input: [...L1, L1[2]!], errors: [['DUPLICATE_RECEIPT', 7]] });
  add({ group: 'chain', comment: 'iat decreases along the links', flags: ['Time'], input: resealed(L1, (c) => (c[4].iat = 1_700_000_001)), errors: [['IAT_REGRESSION', 4]] });
  add({ group: 'chain', comment: 'iat in the future beyond 300 s skew: a warning (the verdict does not depend on the verifier\'s clock)', flags: ['Time'], input: resealed(L1, (c) => (c[6].iat = NOW + 301)), warnings: [['IAT_FUTURE', 6]] });
  add({ group: 'chain', comment: 'tail truncated: detectable only with the expected head', flags: ['Head', 'Truncation'], input: L1.slice(0, 6), options: { expectedHead: digestOf(L1[6]) }, errors: [['HEAD_MISMATCH', null]] });
  add({ group: 'chain', comment: 'tail truncated without an expected head: undetectable (valid)', flags: ['Truncation'], input: L1.slice(0, 6) });
  // ---------- pairing ----------
  add({ group: 'pairing', comment: 'gate names no Receipt of the chain', flags: ['PairingRule'], input: resealed(L1, (c) => (c[1].gate = digestOf({ no: 'such' }))), errors: [['GATE_NOT_FOUND', 1]], warnings: [['GATE_OPEN', 0]] });
  add({ group: 'pairing', comment: 'gate names an outcome Receipt', flags: ['PairingRule'], input: resealed(L1, (c) => (c[5].gate = digestOf(L1[1]))), errors: [['GATE_IS_OUTCOME', 5]], warnings: [['GATE_OPEN', 4]] });
  add({ group: 'pairing', comment: 'outcome for a denied gate', flags: ['PairingRule'], input: resealed(L1, (c) => (c[5].gate = digestOf(L1[2]))), errors: [['OUTCOME_WITHOUT_ALLOWED_GATE', 5], ['PAIR_ACT_MISMATCH', 5], ['PAIR_DECISION_MISMATCH', 5]], warnings: [['GATE_OPEN', 4]] });
  add({ group: 'pairing', comment: 'a second outcome for one gate', flags: ['PairingRule'], input: (() => { const extra = resealed([L1[5]!], (c) => { c[0].id = 'rcpt_d001'; c[0].prev = digestOf(L1[6]); c[0].iat = L1[6]!.iat; })[0]!; return [...L1, extra]; })(), errors: [['DUPLICATE_OUTCOME', 7]] });
  add({ group: 'pairing', comment: 'outcome act differs from its gate', flags: ['PairingRule'], input: resealed(L1, (c) => (c[1].act.resource = 'gpt-4o')), errors: [['PAIR_ACT_MISMATCH', 1]] });
  add({ group: 'pairing', comment: 'outcome actor differs from its gate', flags: ['PairingRule'], input: resealed(L1, (c) => (c[1].actor = APPROVER.keyref)), errors: [['PAIR_ACTOR_MISMATCH', 1]] });
  add({ group: 'pairing', comment: 'outcome decision differs from its gate', flags: ['PairingRule'], input: resealed(L1, (c) => (c[1].decision['the service'] = digestOf(BODY))), errors: [['PAIR_DECISION_MISMATCH', 1]] });
  // Forks are the only way a gate can come later, or an outcome earlier, than its pair.
  const forkPair = (outcomeIat: number, gateFirst: boolean) => {
    const g0 = sealReceipt({ ...copy(L1[2]!), prev: undefined, id: 'rcpt_k000', iat: 1_700_000_100 } as unknown as Receipt, ISSUER);
    const gRec = copy(L1[4]!);
    delete gRec.prev;
    const x = sealReceipt({ ...gRec, prev: g0.digest, id: 'rcpt_k001', iat: 1_700_000_200 }, ISSUER);
    const oRec = copy(L1[5]!);
    const o = sealReceipt({ ...oRec, prev: g0.digest, gate: x.digest, id: 'rcpt_k002', iat: outcomeIat }, ISSUER);
    const g0r = { ...g0.receipt } as Receipt & { prev?: string };
    delete g0r.prev;
    const g0s = sealReceipt(g0r, ISSUER);
    void g0s;
    return gateFirst ? [g0.receipt, x.receipt, o.receipt] : [g0.receipt, o.receipt, x.receipt];
  };
  add({ group: 'pairing', comment: 'fork where the outcome comes before its gate in the chain order', flags: ['PairingRule', 'Fork'], input: forkPair(1_700_000_300, false), errors: [['GATE_NOT_PRIOR', 1], ['CHAIN_FORK', 2]] });
  add({ group: 'pairing', comment: 'fork where the outcome is older than its gate', flags: ['PairingRule', 'Fork', 'Time'], input: forkPair(1_700_000_150, true), errors: [['CHAIN_FORK', 2], ['PAIR_IAT_REGRESSION', 2]] });
  // ---------- issue 13: forgeries never hidden, co-reporting, index placement, options, lengths, Ed25519 edges ----------
  // A forged envelope signature: the Receipt is changed after signing, its sig kept (then re-linked), so only SIG_INVALID and the rule fire.
  const forged = (edit: Edit, at: number, chain = L1) => resealed(chain, edit, { keepSig: [at] });
  const forgeries: [string, Edit, number, Expect][] = [
    ['unknown top-level member', (c) => (c[2].extra = 1), 2, [['SCHEMA_UNKNOWN_FIELD', 2]]],
    ['required member cost missing', (c) => delete c[2].cost, 2, [['SCHEMA_MISSING_FIELD', 2]]],
    ['iat as a string', (c) => (c[2].iat = '1700000030'), 2, [['SCHEMA_TYPE', 2]]],
    ['id outside its pattern', (c) => (c[2].id = 'bad id!'), 2, [['SCHEMA_PATTERN', 2]]],
    ['proto another version', (c) => (c[2].proto = '1.0-draft.1'), 2, [['UNSUPPORTED_PROTO', 2]]],
    ['budget amount with a trailing zero', (c) => (c[2].cost.amount = '1.50'), 2, [['NONCANONICAL_DECIMAL', 2]]],
    ['verb not a dotted lowercase name', (c) => (c[2].act.verb = 'Model.Call'), 2, [['BAD_VERB', 2]]],
    ['denied without reason', (c) => (c[2].decision = { result: 'denied' }), 2, [['REASON_MISSING', 2]]],
    ['PROTO_DENY_POLICY without prose', (c) => delete c[2].decision.prose, 2, [['POLICY_DETAIL_MISSING', 2]]],
    ['token on a model.call Receipt', (c) => (c[2].token = TOKEN), 2, [['TOKEN_WRONG_VERB', 2]]],
    ['approval and token on one stop.approve', (c) => (c[3].token = TOKEN), 3, [['APPROVAL_AND_TOKEN', 3]]],
    ['sig.alg EdDSA', (c) => { c[2].sig.alg = 'EdDSA'; c[2].act.resource = 'gpt-4o'; }, 2, [['SIG_ALG_UNSUPPORTED', 2]]],
    ['sig.kid names another key', (c) => { c[2].sig.kid = OTHER.keyref; c[2].act.resource = 'gpt-4o'; }, 2, [['SIG_KID_MISMATCH', 2]]],
    ['base64url alias in sig.val', (c) => { const val: string = c[2].sig.val; const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'; c[2].sig.val = val.slice(0, -1) + abc[abc.indexOf(val.at(-1) as string) + 1]; c[2].act.resource = 'gpt-4o'; }, 2, [['NONCANONICAL_BASE64URL', 2]]],
    ['malformed prev', (c) => (c[2].prev = c[2].prev.slice(0, 70)), 2, [['BAD_DIGEST', 2], ['CHAIN_BREAK', 2]]],
  ];
  for (const [what, edit, at, codes] of forgeries) {
    add({ group: 'forgery', comment: `${what}, and the envelope signature no longer verifies: both reported (D-RCPT-25)`, flags: ['Forgery', 'CoReport'], input: forged(edit, at), errors: [...codes, ['SIG_INVALID', at]] });
  }
  add({ group: 'forgery', comment: 'level 2: unknown member in act, and actor_sig over the old act: SCHEMA_UNKNOWN_FIELD and ACTOR_SIG_INVALID', flags: ['Forgery', 'CoReport', 'Level2'], input: (() => { const c = copy(L2); c[2]!.act = { ...c[2]!.act, note: 'x' } as typeof c[2]['act']; return resealChain(c, L2.map((r) => digestOf(r)), { keys: ALL_KEYS }); })(), options: { level: 2, grantId: GRANT }, errors: [['SCHEMA_UNKNOWN_FIELD', 2], ['ACTOR_SIG_INVALID', 2]] });
  add({ group: 'forgery', comment: 'approval with an unknown member, signed over another act: SCHEMA_UNKNOWN_FIELD and APPROVAL_SIG_INVALID', flags: ['Forgery', 'CoReport'], input: resealed(L1, (c) => { c[3].approval = { ...approveAct({ verb: 'stop.approve', resource: 'session/9' }, ISSUER.keyref, APPROVER), note: 1 }; }), errors: [['SCHEMA_UNKNOWN_FIELD', 3], ['APPROVAL_SIG_INVALID', 3]] });
  add({ group: 'forgery', comment: 'a copy of a forged Receipt is only DUPLICATE_RECEIPT; the first copy carries SIG_INVALID', flags: ['Forgery', 'ChainLink'], input: (() => { const c = raw(L1, (x) => (x[6].act.resource = 'session/3')); return [...c, c[6]!]; })(), errors: [['SIG_INVALID', 6], ['DUPLICATE_RECEIPT', 7]] });
  add({ group: 'forgery', comment: 'a line that is JSON but not an object: SCHEMA_TYPE only, and no part in the chain', flags: ['Schema'], input: [...L1, '[1,2]'], errors: [['SCHEMA_TYPE', 7]] });
  // Co-reporting in pairing and links.
  add({ group: 'pairing', comment: 'a second outcome for a gate is still compared with it: DUPLICATE_OUTCOME and PAIR_ACT_MISMATCH', flags: ['PairingRule', 'CoReport'], input: (() => { const extra = resealed([L1[5]!], (c) => { c[0].id = 'rcpt_d002'; c[0].prev = digestOf(L1[6]); c[0].iat = L1[6]!.iat; c[0].act.resource = 'gpt-4o-x'; })[0]!; return [...L1, extra]; })(), errors: [['DUPLICATE_OUTCOME', 7], ['PAIR_ACT_MISMATCH', 7]] });
  add({ group: 'pairing', comment: 'an outcome naming an outcome is not compared with it (GATE_IS_OUTCOME only), even when the acts differ', flags: ['PairingRule'], input: resealed(L1, (c) => { c[5].gate = digestOf(L1[1]); }), errors: [['GATE_IS_OUTCOME', 5]], warnings: [['GATE_OPEN', 4]] });
  add({ group: 'chain', comment: 'no genesis: CHAIN_NO_GENESIS is about the whole chain (index null)', flags: ['ChainLink', 'Index'], input: resealed(L1, (c) => (c[0].prev = digestOf({ before: 'nothing' }))), errors: [['CHAIN_BREAK', 0], ['CHAIN_NO_GENESIS', null]] });
  // Options.
  add({ group: 'chain', comment: 'iat in the future beyond 300 s skew with strictClock: an error', flags: ['Time', 'Option'], input: resealed(L1, (c) => (c[6].iat = NOW + 301)), options: { strictClock: true }, errors: [['IAT_FUTURE', 6]] });
  add({ group: 'chain', comment: 'iat exactly 300 s ahead: within the skew, nothing reported', flags: ['Time'], input: resealed(L1, (c) => (c[6].iat = NOW + 300)), options: { strictClock: true } });
  add({ group: 'crypto', comment: 'payload for a Receipt without outcome: the output is not checked; the input is', flags: ['Payloads', 'Option'], input: L1, options: { payloads: { '2': { input: BODY, output: OUTPUT } } }, errors: [['IO_DIGEST_MISMATCH', 2]] });
  // Lengths and line feeds (D-RCPT-28): what Python-style $ would accept.
  const lf: [string, Edit, FindingCode][] = [
    ['prev', (c) => (c[2].prev += '\n'), 'BAD_DIGEST'],
    ['act.input_digest', (c) => (c[0].act.input_digest += '\n'), 'BAD_DIGEST'],
    ['actor', (c) => (c[2].actor += '\n'), 'BAD_KEYREF'],
    ['id', (c) => (c[2].id += '\n'), 'SCHEMA_PATTERN'],
    ['act.verb', (c) => (c[2].act.verb = 'tool.invoke\n'), 'BAD_VERB'],
    ['cost.amount', (c) => (c[2].cost.amount += '\n'), 'BAD_BUDGET'],
    ['cost.unit', (c) => (c[2].cost.unit += '\n'), 'BAD_BUDGET'],
    ['decision.subcode', (c) => (c[2].decision.subcode += '\n'), 'SCHEMA_PATTERN'],
  ];
  for (const [member, edit, code] of lf) {
    const at = member === 'act.input_digest' ? 0 : 2;
    const extra: Expect = member === 'prev' ? [['CHAIN_BREAK', 2]] : member === 'act.input_digest' ? [['PAIR_ACT_MISMATCH', 1]] : [];
    add({ group: 'schema', comment: `${member} with a trailing line feed (accepted by a regex whose $ matches before a final newline)`, flags: ['Schema', 'LineFeed'], input: resealed(L1, edit), errors: [[code, at], ...extra] });
  }
  add({ group: 'schema', comment: 'sig.val with a trailing line feed (87 characters)', flags: ['Schema', 'LineFeed'], input: resealed(L1, (c) => (c[2].sig.val += '\n'), { keepSig: [2] }), errors: [['BAD_SIG_ENCODING', 2]] });
  add({ group: 'schema', comment: 'id of 129 characters', flags: ['Schema', 'Length'], input: resealed(L1, (c) => (c[2].id = `r${'x'.repeat(128)}`)), errors: [['SCHEMA_PATTERN', 2]] });
  add({ group: 'schema', comment: 'cost.amount of 65 digits', flags: ['Schema', 'Length', 'Budget'], input: resealed(L1, (c) => (c[2].cost.amount = `1${'0'.repeat(64)}`)), errors: [['BAD_BUDGET', 2]] });
  // Ed25519 edges (D-RCPT-04).
  const TORSION8 = ED25519_TORSION_SUBGROUP[1] as string;
  add({ group: 'crypto', comment: 'R + a point of order 8: the cofactored equation holds, the cofactorless one does not (a malleated copy)', flags: ['SignatureMalleability', 'InvalidSignature'], input: resealed(L1, (c) => { const b = sOfSig(c[2].sig.val); const R = ed25519.Point.fromBytes(b.subarray(0, 32)).add(ed25519.Point.fromHex(TORSION8)); c[2].sig.val = encodeBase64url(Buffer.concat([R.toBytes(), b.subarray(32)])); }, { keepSig: [2] }), errors: [['SIG_INVALID', 2]] });
  add({ group: 'crypto', comment: 'R with y = p + 3 (a non-canonical encoding)', flags: ['InvalidEncoding'], input: resealed(L1, (c) => { const b = sOfSig(c[2].sig.val); const r = Buffer.from('f0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex'); c[2].sig.val = encodeBase64url(Buffer.concat([r, b.subarray(32)])); }, { keepSig: [2] }), errors: [['SIG_NONCANONICAL', 2]] });
  add({ group: 'crypto', comment: 'R not a curve point (y = 2 has no x)', flags: ['InvalidEncoding'], input: resealed(L1, (c) => { const b = sOfSig(c[2].sig.val); const r = Buffer.alloc(32); r[0] = 2; c[2].sig.val = encodeBase64url(Buffer.concat([r, b.subarray(32)])); }, { keepSig: [2] }), errors: [['SIG_NONCANONICAL', 2]] });
  add({ group: 'crypto', comment: 'actor key with a small-order component (A + T, not in the prime-order subgroup)', flags: ['SmallOrderKey'], input: resealed(L1, (c) => (c[2].actor = keyrefOf(ed25519.Point.fromBytes(ACTOR.publicKey).add(ed25519.Point.fromHex(TORSION8)).toBytes()))), errors: [['KEY_INVALID', 2]] });
  // ---------- issue 23: the places a second implementation had to guess (each names its D-RCPT paragraph) ----------
  const NONCANONICAL_KEYREF = keyrefOf(Buffer.from('eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex'));
  const X0_SIGN_KEYREF = keyrefOf(Buffer.from('0100000000000000000000000000000000000000000000000000000000000080', 'hex'));
  // D-RCPT-21: keys given to the verifier.
  add({ group: 'options', comment: 'D-RCPT-21: a small-order point among the trusted issuer keys is refused before any Receipt is read (CLI: exit 2), though no Receipt names it', flags: ['GivenKey', 'SmallOrderKey'], input: L1, options: { trustedIssuers: [ISSUER.keyref, SMALL_ORDER_KEYREF] }, refused: 'TRUSTED_KEY_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-21: a trusted issuer key that is not a canonical point encoding (y >= p) is refused before any Receipt is read', flags: ['GivenKey', 'InvalidKeyEncoding'], input: L1, options: { trustedIssuers: [NONCANONICAL_KEYREF, ISSUER.keyref] }, refused: 'TRUSTED_KEY_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-21: an approver key with x = 0 and the sign bit set (not canonical) is refused before any Receipt is read', flags: ['GivenKey', 'InvalidKeyEncoding'], input: L1, options: { approvers: [APPROVER.keyref, X0_SIGN_KEYREF] }, refused: 'APPROVER_KEY_INVALID' });
  // D-RCPT-21: several bad options: the reason is the first of trusted issuer keys, approver keys, payloads file.
  const BAD_PAYLOADS = '{"rcpt_0001":{"input":{"n":1e400}}}';
  add({ group: 'options', comment: 'D-RCPT-21: a bad trusted issuer key, a bad approver key and a bad payloads file at once: the reason is the trusted issuer key', flags: ['GivenKey', 'Payloads', 'OptionOrder'], input: L1, options: { trustedIssuers: [SMALL_ORDER_KEYREF], approvers: [X0_SIGN_KEYREF], payloadsFile: BAD_PAYLOADS }, refused: 'TRUSTED_KEY_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-21: a bad approver key and a bad payloads file at once: the reason is the approver key', flags: ['GivenKey', 'Payloads', 'OptionOrder'], input: L1, options: { approvers: [X0_SIGN_KEYREF], payloadsFile: BAD_PAYLOADS }, refused: 'APPROVER_KEY_INVALID' });
  // D-RCPT-13: the shape and the limits of a payloads file; each break is refused before any Receipt is read.
  add({ group: 'options', comment: 'D-RCPT-13: a payloads file that is a JSON array, not an object, is refused', flags: ['Payloads', 'PayloadsShape'], input: L1, options: { payloadsFile: '[{"input":{}}]' }, refused: 'PAYLOADS_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-13: a payloads entry that is not an object is refused', flags: ['Payloads', 'PayloadsShape'], input: L1, options: { payloadsFile: '{"rcpt_0001":"input"}' }, refused: 'PAYLOADS_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-13: a payloads entry with a member other than input, output and context ("ouput") is refused, not ignored: the check it meant would silently not run', flags: ['Payloads', 'PayloadsShape'], input: L1, options: { payloadsFile: '{"rcpt_0002":{"ouput":[]}}' }, refused: 'PAYLOADS_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-13: a payloads file nesting 256 deep (its top-level object counts 1) is read; a payload for an id no Receipt has is not used', flags: ['Payloads', 'PayloadsLimits'], input: L1, options: { payloadsFile: `{"rcpt_none":{"input":${'['.repeat(254)}${']'.repeat(254)}}}` }, warnings: [] });
  add({ group: 'options', comment: 'D-RCPT-13: a payloads file nesting 257 deep is refused', flags: ['Payloads', 'PayloadsLimits'], input: L1, options: { payloadsFile: `{"rcpt_none":{"input":${'['.repeat(255)}${']'.repeat(255)}}}` }, refused: 'PAYLOADS_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-21: a small-order approver key is refused even when the chain is empty', flags: ['GivenKey', 'SmallOrderKey', 'Empty'], input: { text: '' }, options: { approvers: [SMALL_ORDER_KEYREF] }, refused: 'APPROVER_KEY_INVALID' });
  // D-RCPT-13: numbers in the payloads file (payloadsFile: the text of --payloads FILE, keyed by Receipt id).
  const withInput = (body: unknown) => resealed(L1, (c) => { c[0].act.input_digest = digestOf(body); c[1].act.input_digest = digestOf(body); });
  const exotic = { model: 'gpt-4o-mini', temperature: 1e-7, seed: -0, max_tokens: 1e20, messages: [] };
  add({ group: 'options', comment: 'D-RCPT-13: payload numbers 1E-7, -0 and 1e20 are read as the doubles they denote; JCS writes them 1e-7, 0 and 100000000000000000000', flags: ['Payloads', 'PayloadNumber'], input: withInput(exotic), options: { payloadsFile: '{"rcpt_0001":{"input":{"model":"gpt-4o-mini","temperature":1E-7,"seed":-0,"max_tokens":1e20,"messages":[]}}}' } });
  add({ group: 'options', comment: 'D-RCPT-13: a payload integer above 2^53-1 that a double holds exactly (2^53) is read', flags: ['Payloads', 'PayloadNumber'], input: withInput({ n: 9007199254740992 }), options: { payloadsFile: '{"rcpt_0001":{"input":{"n":9007199254740992}}}' } });
  add({ group: 'options', comment: 'D-RCPT-13: a payload integer above 2^53-1 that no double holds (2^53+1) is refused before any Receipt is read: JCS implementations write it differently', flags: ['Payloads', 'PayloadNumber'], input: withInput({ n: 9007199254740992 }), options: { payloadsFile: '{"rcpt_0001":{"input":{"n":9007199254740993}}}' }, refused: 'PAYLOADS_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-13: the same below -(2^53-1) (-2^53-1) is refused', flags: ['Payloads', 'PayloadNumber'], input: L1, options: { payloadsFile: '{"rcpt_0001":{"input":{"n":-9007199254740993}}}' }, refused: 'PAYLOADS_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-13: a payload number beyond the double range (1e400) is refused', flags: ['Payloads', 'PayloadNumber'], input: L1, options: { payloadsFile: '{"rcpt_0001":{"input":{"n":1e400}}}' }, refused: 'PAYLOADS_INVALID' });
  add({ group: 'options', comment: 'D-RCPT-13: a payload number with more precision than a double (3.141592653589793238) is refused', flags: ['Payloads', 'PayloadNumber'], input: L1, options: { payloadsFile: '{"rcpt_0002":{"output":[{"role":"assistant","content":"x","n":3.141592653589793238}]}}' }, refused: 'PAYLOADS_INVALID' });
  // D-RCPT-13: an absent digest is a mismatch.
  add({ group: 'crypto', comment: 'D-RCPT-13: a request body given for a Receipt without act.input_digest, and an output for an outcome without output_digest: both IO_DIGEST_MISMATCH', flags: ['Payloads', 'AbsentDigest'], input: L1, options: { payloads: { '3': { input: BODY }, '5': { output: OUTPUT } } }, errors: [['IO_DIGEST_MISMATCH', 3], ['IO_DIGEST_MISMATCH', 5]] });
  // D-RCPT-07: PREV_DIGEST_FORM.
  add({ group: 'chain', comment: 'D-RCPT-07: the Receipt just before failed the strict reader, so no form is tried (not even on the Receipt before that): CHAIN_BREAK only', flags: ['ChainLink', 'PrevForm'], input: (() => { const c = resealed(L1, (x) => { const { sig: _s, ...rest } = x[1]; x[3].prev = digestOf(rest); }); return c.map((r, k): Item => (k === 2 ? jcs(r).slice(0, -5) : r)); })(), errors: [['JSON_SYNTAX', 2], ['CHAIN_BREAK', 3]] });
  {
    const reversed = (r: Receipt): string => JSON.stringify(Object.fromEntries(Object.entries(r).reverse()));
    const sha = (t: string) => `sha256:${createHash('sha256').update(t).digest('hex')}`;
    const trimmed = resealed(L1, (c) => (c[3].prev = sha(reversed(c[2]))));
    add({ group: 'chain', comment: 'D-RCPT-07: bytes as served exclude the whitespace around the value on its JSONL line: prev over the served text without it is PREV_DIGEST_FORM', flags: ['ChainLink', 'PrevForm', 'WireForm', 'Whitespace'], input: trimmed.map((r, k): Item => (k === 2 ? ` \t${reversed(r)}  ` : r)), errors: [['CHAIN_BREAK', 3], ['PREV_DIGEST_FORM', 3]] });
    add({ group: 'chain', comment: 'D-RCPT-07: the same in a JSON array: the whitespace between the commas is framing, so prev over the element\'s own text is PREV_DIGEST_FORM', flags: ['ChainLink', 'PrevForm', 'WireForm', 'JsonArray'], input: { text: `[\n${trimmed.map((r, k) => (k === 2 ? ` \t${reversed(r)}  ` : jcs(r))).join(' ,\n ')}\n]` }, errors: [['CHAIN_BREAK', 3], ['PREV_DIGEST_FORM', 3]] });
    const spaced = resealed(L1, (c) => (c[3].prev = sha(` \t${reversed(c[2])}  `)));
    add({ group: 'chain', comment: 'D-RCPT-07: prev over the whole JSONL line, surrounding whitespace included, names no form: CHAIN_BREAK only', flags: ['ChainLink', 'PrevForm', 'WireForm', 'Whitespace'], input: spaced.map((r, k): Item => (k === 2 ? ` \t${reversed(r)}  ` : r)), errors: [['CHAIN_BREAK', 3]] });
  }
  // D-RCPT-24: broken JSON arrays, empty input, blank lines.
  add({ group: 'parse', comment: 'D-RCPT-24: a comma before the closing ] starts an empty element: JSON_SYNTAX at its index (7), the array is not broken', flags: ['JsonSyntax', 'JsonArray'], input: { text: `[${L1.map(jcs).join(',')},]` }, errors: [['JSON_SYNTAX', 7]] });
  add({ group: 'parse', comment: 'D-RCPT-24: a JSON array that ends after a comma ([a,b, then the end of the file): the unfinished last element is empty, JSON_SYNTAX at its index (7), and the array is broken, JSON_SYNTAX null', flags: ['JsonSyntax', 'JsonArray', 'Index'], input: { text: `[${L1.map(jcs).join(',')},` }, errors: [['JSON_SYNTAX', 7], ['JSON_SYNTAX', null]] });
  add({ group: 'parse', comment: 'D-RCPT-24: a JSON array without its closing ]: JSON_SYNTAX null, and every element before the end is still checked (a forged one is SIG_INVALID)', flags: ['JsonSyntax', 'JsonArray', 'Index'], input: { text: `[${raw(L1, (c) => (c[6].act.resource = 'session/3')).map(jcs).join(',')}` }, errors: [['SIG_INVALID', 6], ['JSON_SYNTAX', null]] });
  add({ group: 'parse', comment: 'D-RCPT-24: data after the closing ]: JSON_SYNTAX null, and the elements are still checked', flags: ['JsonSyntax', 'JsonArray', 'Index'], input: { text: `[${raw(L1, (c) => (c[6].act.resource = 'session/3')).map(jcs).join(',')}] x` }, errors: [['SIG_INVALID', 6], ['JSON_SYNTAX', null]] });
  add({ group: 'valid', comment: 'D-RCPT-24: an empty JSON array is a valid empty chain', flags: ['Valid', 'Empty', 'JsonArray'], input: { text: ' [ ] \n' } });
  add({ group: 'valid', comment: 'D-RCPT-24: a file of blank lines only is a valid empty chain (no GRANT_ID_UNAVAILABLE: no Receipt)', flags: ['Valid', 'Empty', 'Whitespace'], input: { text: '\n \t\r\n\n' }, options: { level: 2 } });
  add({ group: 'chain', comment: 'D-RCPT-24: an empty chain with an expected head: HEAD_MISMATCH (no head)', flags: ['Empty', 'Head', 'Index'], input: { text: '' }, options: { expectedHead: digestOf(L1[0]) }, errors: [['HEAD_MISMATCH', null]] });
  add({ group: 'valid', comment: 'D-RCPT-24: lines of spaces and tabs are blank lines: ignored, and they take no index (TOKEN_UNVERIFIED stays at 6)', flags: ['Valid', 'Whitespace', 'Index'], input: { text: `${L1.map(jcs).join('\n \t \n\t\n')}\n   \n` }, options: { tokenCommitments: undefined }, warnings: [['TOKEN_UNVERIFIED', 6]] });
  add({ group: 'parse', comment: 'D-RCPT-24: a line holding a form feed is not blank (not JSON whitespace): a Receipt that is JSON_SYNTAX', flags: ['JsonSyntax', 'Whitespace', 'Index'], input: { text: `${L1.slice(0, 2).map(jcs).join('\n')}\n\f\n${L1.slice(2).map(jcs).join('\n')}\n` }, errors: [['JSON_SYNTAX', 2]] });
  // D-RCPT-25 (2): equal values that are not objects.
  add({ group: 'schema', comment: 'D-RCPT-25: two equal values that are not objects are SCHEMA_TYPE twice (a non-object has no digest, so no DUPLICATE_RECEIPT)', flags: ['Schema', 'ChainLink'], input: [...L1, '[1,2]', '[1,2]'], errors: [['SCHEMA_TYPE', 7], ['SCHEMA_TYPE', 8]] });
  // D-RCPT-22: GATE_OPEN when act is absent.
  add({ group: 'pairing', comment: 'D-RCPT-22: an allowed gate without act is not a stop.approve gate: GATE_OPEN beside SCHEMA_MISSING_FIELD (its approval is not checked: no act)', flags: ['PairingRule', 'GateOpen', 'CoReport'], input: resealed(L1, (c) => delete c[3].act), errors: [['SCHEMA_MISSING_FIELD', 3], ['APPROVAL_WRONG_VERB', 3]], warnings: [['GATE_OPEN', 3]] });
  // D-RCPT-04: SIG_KID_MISMATCH when iss is absent.
  add({ group: 'crypto', comment: 'D-RCPT-04: sig.kid present and iss absent: SIG_KID_MISMATCH (an absent iss is not the same string); the signature is not checked (no key)', flags: ['KeyBinding', 'CoReport'], input: resealed(L1, (c) => delete c[2].iss), errors: [['SCHEMA_MISSING_FIELD', 2], ['SIG_KID_MISMATCH', 2]], warnings: [['ISSUER_CHANGED', 2], ['ISSUER_CHANGED', 3]] });
  // D-RCPT-22 / D-RCPT-26: "has an outcome" is presence, null included.
  add({ group: 'pairing', comment: 'D-RCPT-26: outcome null is present: the Receipt is an outcome (it pairs with its gate, so no GATE_OPEN and no GATE_REF_WITHOUT_OUTCOME) and SCHEMA_TYPE; RESOLVED_MISSING needs an object outcome', flags: ['PairingRule', 'NullMember'], input: resealed(L1, (c) => (c[1].outcome = null)), errors: [['SCHEMA_TYPE', 1]] });
  // D-RCPT-06: an approval with no iss and no service id.
  add({ group: 'crypto', comment: 'D-RCPT-06: an approval on a Receipt without iss, no service id given: its input is undefined, so it is not checked (no APPROVAL_SIG_INVALID)', flags: ['StopRule', 'KeyBinding'], input: resealed(L1, (c) => delete c[3].iss), errors: [['SCHEMA_MISSING_FIELD', 3], ['SIG_KID_MISMATCH', 3]], warnings: [['ISSUER_CHANGED', 3], ['ISSUER_CHANGED', 4]] });
  // D-RCPT-26 JSON_SYNTAX row: a duplicate name is found at the name.
  add({ group: 'parse', comment: 'D-RCPT-26: a duplicate name is found when its name is read, before its value: JSON_DUPLICATE_KEY, not the JSON_NUMBER_FORM of the value 1.5', flags: ['DuplicateKey', 'NumberForm'], input: rawLine(L1, 2, (l) => l.replace('"iat":1700000030', '"iat":1700000030,"iat":1.5')), errors: [['JSON_DUPLICATE_KEY', 2], ['CHAIN_BREAK', 3]] });
  add({ group: 'parse', comment: 'D-RCPT-26: a duplicate name whose value holds a lone surrogate: JSON_DUPLICATE_KEY', flags: ['DuplicateKey', 'LoneSurrogate'], input: rawLine(L1, 2, (l) => l.replace('"prose":"monthly spend cap reached"', '"prose":"monthly spend cap reached","prose":"\\ud800"')), errors: [['JSON_DUPLICATE_KEY', 2], ['CHAIN_BREAK', 3]] });
  // D-RCPT-26: the $comment of the subschema holding the keyword, never an ancestor's.
  add({ group: 'schema', comment: 'D-RCPT-26: resolved.provider a number: SCHEMA_TYPE (its subschema has no finding $comment); not the RESOLVED_MISSING of a subschema at /outcome/resolved', flags: ['Schema', 'SchemaComment'], input: resealed(L1, (c) => (c[1].outcome.resolved.provider = 1)), errors: [['SCHEMA_TYPE', 1]] });
  add({ group: 'schema', comment: 'D-RCPT-26: iss a number: BAD_KEYREF (the type keyword is in $defs/keyref, whose $comment names it), not SCHEMA_TYPE', flags: ['Schema', 'SchemaComment', 'Keyref'], input: resealed(L1, (c) => (c[2].iss = 1)), errors: [['BAD_KEYREF', 2], ['SIG_KID_MISMATCH', 2]], warnings: [['ISSUER_CHANGED', 2], ['ISSUER_CHANGED', 3]] });
  void GATE_OPEN_NONE;
  return v;
}

const NOTES: Record<string, { bugType: string; description: string }> = {
  Valid: { bugType: 'BASIC', description: 'A conforming chain; the verifier must accept it (warnings allowed).' },
  JsonArray: { bugType: 'FUNCTIONALITY', description: 'The chain is given as one JSON array instead of JSONL.' },
  InputOrder: { bugType: 'FUNCTIONALITY', description: 'The chain is a set: order is rebuilt from prev links (D-RCPT-07).' },
  Level2: { bugType: 'FUNCTIONALITY', description: 'Conformance level 2: actor_sig over PAE(actor_sig, JCS([grantId, act])).' },
  Level3: { bugType: 'FUNCTIONALITY', description: 'Conformance level 3: context on model.call Receipts.' },
  Empty: { bugType: 'EDGE_CASE', description: 'No Receipts at all.' },
  Whitespace: { bugType: 'EDGE_CASE', description: 'CRLF and blank lines in JSONL.' },
  WireForm: { bugType: 'CANONICALIZATION', description: 'Wire bytes that are not JCS; digests and signatures are over JCS of the parsed value.' },
  Head: { bugType: 'FUNCTIONALITY', description: 'An expected head digest is given.' },
  UnknownVerb: { bugType: 'EDGE_CASE', description: 'A well-formed verb other than model.call and stop.approve: a warning.' },
  UnknownReason: { bugType: 'EDGE_CASE', description: 'A well-formed PROTO_DENY_ reason other than the two shown: a warning.' },
  Token: { bugType: 'FUNCTIONALITY', description: 'Token mode: commitment = digest of the UTF-8 token.' },
  IssuerChange: { bugType: 'EDGE_CASE', description: 'The issuer key changes along the chain.' },
  GateOpen: { bugType: 'EDGE_CASE', description: 'An allowed model.call gate without outcome.' },
  Payloads: { bugType: 'FUNCTIONALITY', description: 'Request body, output or Context Envelope given to check the digests.' },
  TheService: { bugType: 'EDGE_CASE', description: 'The decision member literally named "the service" (D-RCPT-14).' },
  Unicode: { bugType: 'CANONICALIZATION', description: 'Strings outside ASCII and the BMP.' },
  Budget: { bugType: 'ENCODING', description: 'Budget amount and unit forms (D-RCPT-09).' },
  JsonSyntax: { bugType: 'MALFORMED_INPUT', description: 'Not RFC 8259 JSON.' },
  TrailingData: { bugType: 'MALFORMED_INPUT', description: 'Bytes after the JSON value.' },
  DuplicateKey: { bugType: 'MALFORMED_INPUT', description: 'Duplicate member names (JSON.parse keeps the last one silently).' },
  LoneSurrogate: { bugType: 'MALFORMED_INPUT', description: 'An unpaired UTF-16 surrogate (RFC 8785 3.2.2.2 must terminate).' },
  InvalidUtf8: { bugType: 'MALFORMED_INPUT', description: 'Bytes that are not UTF-8.' },
  Bom: { bugType: 'MALFORMED_INPUT', description: 'A UTF-8 byte order mark.' },
  NumberForm: { bugType: 'MALFORMED_INPUT', description: 'Numbers must be integers 0..2^53-1 without sign, fraction or exponent.' },
  Limits: { bugType: 'RESOURCE', description: 'Depth over 32 or size over 64 KiB.' },
  Schema: { bugType: 'SCHEMA', description: 'Violates spec/receipt.schema.json.' },
  UnknownMember: { bugType: 'SCHEMA', description: 'A member in a closed object.' },
  DecisionRule: { bugType: 'SCHEMA', description: 'reason iff denied; subcode/prose iff PROTO_DENY_POLICY; crit_object iff PROTO_DENY_UNKNOWN_CRIT.' },
  Proto: { bugType: 'SCHEMA', description: 'proto other than 1.0-draft.2.' },
  Digest: { bugType: 'ENCODING', description: 'Digest string form sha256:<64 lowercase hex>.' },
  Keyref: { bugType: 'ENCODING', description: 'Key reference form did:key:z6Mk...' },
  SignatureWithGarbage: { bugType: 'SIGNATURE', description: 'Extra data after the signature.' },
  TruncatedSignature: { bugType: 'SIGNATURE', description: 'A signature shorter than 64 bytes.' },
  InvalidEncoding: { bugType: 'ENCODING', description: 'A non-canonical base64url spelling.' },
  Verb: { bugType: 'SCHEMA', description: 'Verb form.' },
  PairingRule: { bugType: 'FUNCTIONALITY', description: 'Gate/outcome pairing (D-RCPT-22).' },
  StopRule: { bugType: 'FUNCTIONALITY', description: 'approval and token only on stop.approve, one mode (D-RCPT-10).' },
  Algorithm: { bugType: 'SIGNATURE', description: 'alg other than Ed25519.' },
  KeyBinding: { bugType: 'SIGNATURE', description: 'sig.kid must be iss; actor_sig.kid must be actor.' },
  SmallOrderKey: { bugType: 'WEAK_PUBLIC_KEY', description: 'A key that is a small-order point.' },
  InvalidKeyEncoding: { bugType: 'WEAK_PUBLIC_KEY', description: 'A non-canonical point encoding (y >= p).' },
  SignatureMalleability: { bugType: 'SIGNATURE_MALLEABILITY', description: 'S >= L must be rejected (RFC 8032 5.1.7).' },
  InvalidSignature: { bugType: 'AUTH_BYPASS', description: 'A signature that does not verify or has a bad R.' },
  Raw: { bugType: 'AUTH_BYPASS', description: 'A raw edit (not re-signed): the signature and the next link catch it.' },
  Trust: { bugType: 'AUTH_BYPASS', description: 'Keys must be given by the caller; a key inside a Receipt is not trusted by itself.' },
  GrantId: { bugType: 'FUNCTIONALITY', description: 'The grant id behind actor_sig comes from the Mandate.' },
  ChainLink: { bugType: 'CHAIN', description: 'prev links: one genesis, no breaks, forks or duplicates.' },
  Fork: { bugType: 'CHAIN', description: 'Two Receipts share a prev.' },
  Time: { bugType: 'CHAIN', description: 'iat order and skew.' },
  Truncation: { bugType: 'CHAIN', description: 'Tail truncation is only detectable with an expected head.' },
  CoReport: { bugType: 'FUNCTIONALITY', description: 'Two findings from independent checks are both reported (D-RCPT-25).' },
  Forgery: { bugType: 'AUTH_BYPASS', description: 'A signature that does not verify on a Receipt that also fails another check: never hidden (D-RCPT-25).' },
  Index: { bugType: 'FUNCTIONALITY', description: 'A finding about the whole chain has index null (D-RCPT-26).' },
  Option: { bugType: 'FUNCTIONALITY', description: 'A check an option turns on or changes (D-RCPT-27).' },
  LineFeed: { bugType: 'ENCODING', description: 'A patterned string with a final line feed, which some regex dialects accept before $ (D-RCPT-28).' },
  Length: { bugType: 'ENCODING', description: 'A string longer than its maxLength (D-RCPT-28).' },
  GivenKey: { bugType: 'WEAK_PUBLIC_KEY', description: 'A key given to the verifier (trusted issuer, approver) that is not a valid key: refused before any Receipt is read (D-RCPT-21).' },
  OptionOrder: { bugType: 'MISCONFIGURATION', description: 'Several bad options: the reason is the first of trusted issuer keys, approver keys, payloads file (D-RCPT-21).' },
  PayloadsShape: { bugType: 'MISCONFIGURATION', description: 'A payloads file is an object of objects with only input, output and context (D-RCPT-13).' },
  PayloadsLimits: { bugType: 'MISCONFIGURATION', description: 'A payloads file is at most 1 GiB and nests at most 256 deep (D-RCPT-13).' },
  PayloadNumber: { bugType: 'CANONICALIZATION', description: 'A payload number is read when the nearest double keeps its value (JCS writes the same decimal value), else the payloads are refused (D-RCPT-13).' },
  AbsentDigest: { bugType: 'FUNCTIONALITY', description: 'A payload is given and the digest member that must cover it is absent: a mismatch (D-RCPT-13).' },
  PrevForm: { bugType: 'CHAIN', description: 'Which Receipt and which bytes PREV_DIGEST_FORM tries (D-RCPT-07).' },
  NullMember: { bugType: 'SCHEMA', description: 'A member present with the value null is present (D-RCPT-26).' },
  SchemaComment: { bugType: 'SCHEMA', description: 'The finding $comment is the one on the subschema holding the failing keyword (D-RCPT-26).' },
};

/** Builds the whole vector file as a JSON value (deterministic). */
export function generateReceiptVectors(): Record<string, unknown> {
  const groups = new Map<string, unknown[]>();
  let tcId = 0;
  const sortE = (e: Expect) => [...e].sort((a, b) => (a[1] ?? -1) - (b[1] ?? -1) || a[0].localeCompare(b[0])).map(([code, index]) => ({ code, index }));
  for (const s of specs()) {
    const options = { ...BASE_OPTIONS, ...(s.options ?? {}) } as unknown as Record<string, unknown>;
    for (const k of Object.keys(options)) if (options[k] === undefined) delete options[k];
    const input = Array.isArray(s.input) ? { text: textOf(s.input) } : s.input;
    const errors = sortE(s.errors ?? []);
    const result = s.refused !== undefined ? 'refused' : errors.length === 0 ? 'valid' : 'invalid';
    const test = { tcId: ++tcId, comment: s.comment, flags: s.flags, options, input, result, ...(s.refused === undefined ? {} : { refusal: s.refused }), errors, warnings: sortE(s.warnings ?? []) };
    groups.set(s.group, [...(groups.get(s.group) ?? []), test]);
  }
  const keys = Object.fromEntries(Object.entries(seeds).map(([name, [source, seed]]) => [name, { source, seed, keyref: key(name as keyof typeof seeds).keyref }]));
  return {
    algorithm: 'IARI-RECEIPT-CHAIN',
    proto: '1.0-draft.2',
    generator: 'scripts/gen-receipt-vectors.ts',
    schema: 'spec/receipt.schema.json',
    numberOfTests: tcId,
    header: [
      'Receipt chain vectors for implementations of spec/DECISIONS.md (Receipts). Each test gives the input file',
      '(input.text: UTF-8 JSONL or a JSON array; input.base64: raw bytes), the verifier options, and the expected',
      'result with the exact set of error and warning findings as {code, index} (index: 0-based Receipt position',
      'in the input; null: the whole chain). Keys are the RFC 8032 section 7.1 test keys. options.payloads maps a',
      'Receipt index to its payloads; options.payloadsFile is the text of a --payloads file (Receipt id -> payloads,',
      'read by D-RCPT-13). result "refused": the verifier refuses the options before reading any Receipt (the CLI',
      'exits 2), for the reason in "refusal": TRUSTED_KEY_INVALID, APPROVER_KEY_INVALID (D-RCPT-21), PAYLOADS_INVALID.',
    ],
    keys,
    constants: { grantId: GRANT, token: TOKEN, tokenCommitment: tokenCommitment(TOKEN), now: NOW, smallOrderKeyref: SMALL_ORDER_KEYREF },
    notes: NOTES,
    testGroups: [...groups].map(([type, tests]) => ({ type: `ReceiptChainVerify/${type}`, tests })),
  };
}

export function vectorsFileText(): string {
  return `${JSON.stringify(generateReceiptVectors(), null, 1)}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(VECTORS_PATH, vectorsFileText());
  process.stdout.write(`wrote ${VECTORS_PATH}\n`);
}
