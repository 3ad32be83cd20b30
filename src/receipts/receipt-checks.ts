import { hash } from 'node:crypto';
import { canonicalMembers, canonicalString } from './canonical.ts';
import { digestBytes, digestOf, tokenCommitment } from './digest.ts';
import { decodeKeyref } from './keyref.ts';
import { verifyEd25519, verifyKeyOf, type SignatureCheck, type VerifyKey } from './ed25519.ts';
import { actorSigInput, approvalSigInput, paeOfText, PAYLOAD_TYPE } from './pae.ts';
import { validateReceiptSchema, type ReceiptSchemaError } from './receipt-schema.ts';
import { isFindingCode, type Finding, type FindingCode } from './findings.ts';
import { readStrictJson, DEFAULT_LIMITS, type StrictJsonLimits } from './strict-json.ts';
import {
  FactsBatch, F_ACTOR_SIG_UNCHECKED, F_ALLOWED, F_PREV_FORM_NO_SIG, F_PREV_FORM_WIRE, F_GATE, F_GATE_DIGEST, F_ID, F_OUTCOME, F_PREV, F_PREV_DIGEST, F_STOP,
  K_NOT_OBJECT, K_RECEIPT, K_UNREADABLE, O_DIGEST, O_GATE, O_ID_HASH, O_PAIR, O_PREV, STRIDE,
} from './receipt-facts.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const KNOWN_VERBS = new Set(['model.call', 'stop.approve']);
// Seed, Errors: "Two values are shown: PROTO_DENY_POLICY ... and PROTO_DENY_UNKNOWN_CRIT".
const KNOWN_REASONS = new Set(['PROTO_DENY_POLICY', 'PROTO_DENY_UNKNOWN_CRIT']);
// The schema's verb and reason forms (spec/receipt.schema.json $defs/verb, decision.reason).
const VERB_FORM = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const REASON_FORM = /^PROTO_DENY_[A-Z_]+$/;
/** 86 base64url characters decode to 64 bytes (unused bits aside: NONCANONICAL_BASE64URL is the schema's finding). */
const SIG_TEXT = /^[A-Za-z0-9_-]{86}$/;

const KEYWORD_CODES: Record<string, FindingCode> = {
  required: 'SCHEMA_MISSING_FIELD',
  additionalProperties: 'SCHEMA_UNKNOWN_FIELD',
  'false schema': 'SCHEMA_UNKNOWN_FIELD',
  not: 'SCHEMA_UNKNOWN_FIELD',
  type: 'SCHEMA_TYPE',
};

function schemaFindingCode(error: ReceiptSchemaError): FindingCode {
  if (error.finding !== undefined && isFindingCode(error.finding)) return error.finding;
  return KEYWORD_CODES[error.keyword] ?? 'SCHEMA_PATTERN';
}

/** The options the per-Receipt checks need: plain data, so a worker thread can have them. */
export interface CheckOptions {
  level: 1 | 2 | 3;
  approvers: readonly string[];
  tokenCommitments: readonly string[] | undefined;
  grantId: string | undefined;
  serviceId: string | undefined;
  strictWire: boolean;
  /** The verifier's clock (integer seconds) and the skew IAT_FUTURE allows. */
  now: number;
  maxSkewSeconds: number;
  limits: StrictJsonLimits;
  /** Keep the digests that payloads are checked against (D-RCPT-13). */
  payloadDigests: boolean;
}

type KeyInfo = { ok: true; key: VerifyKey } | { ok: false; pattern: boolean; reason: string };

/** What the check of one Receipt keeps for the next one's PREV_DIGEST_FORM diagnosis. */
interface LastReceipt {
  index: number;
  digest: Buffer;
  withoutSig: string;
  /** The text as served when it is not the JCS form. */
  wire: string | undefined;
}

/** Per-thread state of the per-Receipt checks: options, a cache of decoded keys, the Receipt checked last. */
export class CheckContext {
  readonly #keys = new Map<string, KeyInfo>();
  /** The Receipt checked last (index -2: none), and a second record swapped with it, so nothing is allocated per Receipt. */
  last: LastReceipt = { index: -2, digest: Buffer.alloc(0), withoutSig: '', wire: undefined };
  spare: LastReceipt = { index: -2, digest: Buffer.alloc(0), withoutSig: '', wire: undefined };
  readonly approvers: ReadonlySet<string>;
  readonly tokenCommitments: ReadonlySet<string> | undefined;

  constructor(readonly options: CheckOptions) {
    this.approvers = new Set(options.approvers);
    this.tokenCommitments = options.tokenCommitments === undefined ? undefined : new Set(options.tokenCommitments);
  }

  /**
   * The pairing hash of a member whose text repeats from Receipt to Receipt (actor, decision): one
   * SHA-256 call costs about 1 µs whatever the text's length, and a chain has few distinct values.
   */
  readonly #pairHashes = new Map<string, Buffer>();

  pairHash(text: string): Buffer {
    if (text.length > 512) return hash('sha256', text, 'buffer').subarray(0, 16);
    let h = this.#pairHashes.get(text);
    if (h === undefined) {
      if (this.#pairHashes.size >= 256) this.#pairHashes.clear();
      h = hash('sha256', text, 'buffer').subarray(0, 16);
      this.#pairHashes.set(text, h);
    }
    return h;
  }

  /** D-RCPT-03: decoded and validated once per key (and its node:crypto KeyObject made once). */
  key(keyref: string): KeyInfo {
    let k = this.#keys.get(keyref);
    if (k === undefined) {
      if (this.#keys.size >= 4096) this.#keys.clear();
      const d = decodeKeyref(keyref);
      k = d.ok ? { ok: true, key: verifyKeyOf(d.publicKey) } : d;
      this.#keys.set(keyref, k);
    }
    return k;
  }
}

const ABSENT = '\u0000';

function hash16Into(text: string, out: Uint8Array, at: number): void {
  out.set(hash('sha256', text, 'buffer').subarray(0, 16), at);
}

function sigBytes(v: unknown): Uint8Array | undefined {
  if (typeof v !== 'string' || !SIG_TEXT.test(v)) return undefined;
  return Buffer.from(v, 'base64url');
}

function sigFinding(check: SignatureCheck, invalidCode: FindingCode, pointer: string, emit: (code: FindingCode, pointer: string, detail: string) => void): void {
  if (check === 'noncanonical') emit('SIG_NONCANONICAL', `${pointer}/val`, 'signature is not canonical (S >= L, or R small-order or not a canonical point)');
  else if (check === 'invalid') emit(invalidCode, pointer, 'signature does not verify');
}

type Reading = Extract<ReturnType<typeof readStrictJson>, { ok: true }>;

/**
 * D-RCPT-01/02/05: the JCS of the Receipt (its digest) and of the Receipt without sig (the envelope
 * signature input), and the pairing members' JCS. Wire text that is already its JCS form (the usual
 * case) is used as it is.
 */
function jcsForms(parsed: Reading, r: Record<string, unknown>): { whole: string; withoutSig: string; pairAct: string; pairActor: string; pairDecision: string } {
  let whole: string;
  let withoutSig: string;
  let pairAct = ABSENT;
  let pairActor = ABSENT;
  let pairDecision = ABSENT;
  if (parsed.canonical) {
    whole = parsed.text;
    withoutSig = whole;
    const members = parsed.members;
    for (let i = 0; i < members.length; i++) {
      const m = members[i] as (typeof members)[number];
      if (m.key === 'act') pairAct = whole.slice(m.start, m.end);
      else if (m.key === 'actor') pairActor = whole.slice(m.start, m.end);
      else if (m.key === 'decision') pairDecision = whole.slice(m.start, m.end);
      else if (m.key === 'sig') {
        if (members.length === 1) withoutSig = '{}';
        else if (i + 1 < members.length) withoutSig = whole.slice(0, m.start) + whole.slice(m.end + 1);
        else withoutSig = whole.slice(0, m.start - 1) + whole.slice(m.end);
      }
    }
  } else {
    const { keys, texts } = canonicalMembers(r);
    withoutSig = '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const text = texts[i] as string;
      if (key !== 'sig') withoutSig += withoutSig.length === 1 ? text : `,${text}`;
      if (key === 'act') pairAct = text;
      else if (key === 'actor') pairActor = text;
      else if (key === 'decision') pairDecision = text;
    }
    withoutSig += '}';
    whole = `{${texts.join(',')}}`;
  }
  return { whole, withoutSig, pairAct, pairActor, pairDecision };
}

const isJsonWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * D-RCPT-07: "its bytes as served" are the text of the value itself, from its first byte to its
 * last: the whitespace around it (a JSONL line's, a JSON array element's) belongs to the framing.
 */
function servedText(parsed: Reading, whole: string): string {
  if (parsed.canonical) return whole;
  const t = parsed.text;
  let a = 0;
  let b = t.length;
  while (a < b && isJsonWs(t.charCodeAt(a))) a++;
  while (b > a && isJsonWs(t.charCodeAt(b - 1))) b--;
  return a === 0 && b === t.length ? t : t.slice(a, b);
}

/** Makes this Receipt the last one checked; returns the record it replaces (the Receipt before, valid while this one is checked). */
function remember(ctx: CheckContext, index: number, digest: Buffer, withoutSig: string, served: string, whole: string): LastReceipt {
  const before = ctx.last;
  const slot = ctx.spare;
  slot.index = index;
  slot.digest = digest;
  slot.withoutSig = withoutSig;
  slot.wire = served === whole ? undefined : served;
  ctx.last = slot;
  ctx.spare = before;
  return before;
}

/**
 * Makes the Receipt at `index` the one checked last on this thread, without checking it: a worker's
 * batch starts with the Receipt before its first (verify-pool.ts), so PREV_DIGEST_FORM is found at
 * batch boundaries as on one thread.
 */
export function rememberReceipt(input: Uint8Array, index: number, ctx: CheckContext): void {
  const parsed = readStrictJson(input, ctx.options.limits);
  if (!parsed.ok || !isObj(parsed.value)) {
    ctx.last.index = -2;
    return;
  }
  const { whole, withoutSig } = jcsForms(parsed, parsed.value);
  remember(ctx, index, hash('sha256', whole, 'buffer'), withoutSig, servedText(parsed, whole), whole);
}

/**
 * Every check on one Receipt that needs no other Receipt (D-RCPT-25: no finding hides another),
 * writing its findings and chain facts to slot k of `out`. Signatures are verified on every
 * Receipt that the strict reader accepts, whatever else fails, wherever the value and the key decode.
 */
export function checkReceipt(input: Uint8Array | string, index: number, ctx: CheckContext, out: FactsBatch, k: number): void {
  const o = ctx.options;
  const parsed = readStrictJson(input, o.limits);
  out.iat[k] = Number.NaN;
  out.flags[k] = 0;
  if (!parsed.ok) {
    out.kind[k] = K_UNREADABLE;
    const e = parsed.error;
    out.addFinding(k, { code: e.code, index, ...(e.pointer === '' ? {} : { pointer: e.pointer }), detail: `${e.detail} at offset ${e.offset}` });
    return;
  }
  const value = parsed.value;
  // D-RCPT-25 (2): a value that is not a JSON object "has no digest, so two equal non-objects are SCHEMA_TYPE twice".
  if (!isObj(value)) {
    out.kind[k] = K_NOT_OBJECT;
    out.addFinding(k, { code: 'SCHEMA_TYPE', index, pointer: '', detail: 'a Receipt is a JSON object' });
    return;
  }
  out.kind[k] = K_RECEIPT;
  const r = value;
  const id = str(r['id']);
  out.ids[k] = id;
  const emit = (code: FindingCode, pointer: string | undefined, detail: string) =>
    out.addFinding(k, { code, index, ...(id === undefined ? {} : { id }), ...(pointer === undefined ? {} : { pointer }), detail });

  const { whole, withoutSig, pairAct, pairActor, pairDecision } = jcsForms(parsed, r);
  const base = k * STRIDE;
  const digest = hash('sha256', whole, 'buffer');
  out.bytes.set(digest, base + O_DIGEST);
  const last = remember(ctx, index, digest, withoutSig, servedText(parsed, whole), whole);
  // D-RCPT-07: "The Receipt before it" is the item at index i-1 only (one the reader rejected is never remembered).
  const before = last.index === index - 1 ? last : undefined;
  hash16Into(pairAct, out.bytes, base + O_PAIR);
  out.bytes.set(ctx.pairHash(pairActor), base + O_PAIR + 16);
  out.bytes.set(ctx.pairHash(pairDecision), base + O_PAIR + 32);

  if (o.strictWire && !parsed.canonical && parsed.text !== whole) emit('WIRE_NOT_CANONICAL', undefined, 'wire bytes are not the JCS form');

  const schema = validateReceiptSchema(r);
  if (!schema.ok) {
    const seen = new Set<string>();
    for (const e of schema.errors) {
      const code = schemaFindingCode(e);
      const key = `${code} ${e.pointer}`;
      if (seen.has(key)) continue;
      seen.add(key);
      emit(code, e.pointer, `${e.message} (${e.keyword})`);
    }
  }

  const act = isObj(r['act']) ? r['act'] : undefined;
  const decision = isObj(r['decision']) ? r['decision'] : undefined;
  const verb = str(act?.['verb']);
  // Seed, act table: "values seen: model.call, stop.approve".
  if (verb !== undefined && VERB_FORM.test(verb) && verb.length <= 128 && !KNOWN_VERBS.has(verb)) emit('UNKNOWN_VERB', '/act/verb', `verb ${verb}`);
  const reason = str(decision?.['reason']);
  if (reason !== undefined && REASON_FORM.test(reason) && reason.length <= 128 && !KNOWN_REASONS.has(reason)) emit('UNKNOWN_DENY_REASON', '/decision/reason', `reason ${reason}`);

  // Keys (D-RCPT-03): a keyref of the right form that does not decode to a valid key is KEY_INVALID; the wrong form is the schema's BAD_KEYREF.
  const keyAt = (keyref: string | undefined, pointer: string): VerifyKey | undefined => {
    if (keyref === undefined) return undefined;
    const info = ctx.key(keyref);
    if (info.ok) return info.key;
    if (!info.pattern) emit('KEY_INVALID', pointer, info.reason);
    return undefined;
  };
  const iss = str(r['iss']);
  out.iss[k] = iss;
  const issKey = keyAt(iss, '/iss');
  // D-RCPT-04: "the envelope sig.kid must equal iss"; "a present kid (any value) beside an absent or non-string iss
  // (actor) is SIG_KID_MISMATCH". The signature is verified with iss's key whatever kid says.
  const sig = isObj(r['sig']) ? r['sig'] : undefined;
  if (sig !== undefined) {
    if (sig['kid'] !== undefined && sig['kid'] !== iss) emit('SIG_KID_MISMATCH', '/sig/kid', 'sig.kid is not iss');
    const val = sigBytes(sig['val']);
    if (val !== undefined && issKey !== undefined) sigFinding(verifyEd25519(val, paeOfText(PAYLOAD_TYPE.receipt, withoutSig), issKey), 'SIG_INVALID', '/sig', emit);
  }

  const actor = str(r['actor']);
  const actorKey = keyAt(actor, '/actor');
  const level = o.level;
  // Seed, act table: "actor_sig ... level 2 and above".
  if (act !== undefined && act['actor_sig'] === undefined && level >= 2) emit('L2_ACTOR_SIG_MISSING', '/act/actor_sig', 'level 2 needs actor_sig');
  const actorSig = act !== undefined && isObj(act['actor_sig']) ? act['actor_sig'] : undefined;
  let flags = 0;
  if (actorSig !== undefined) {
    if (actorSig['kid'] !== undefined && actorSig['kid'] !== actor) emit('SIG_KID_MISMATCH', '/act/actor_sig/kid', 'actor_sig.kid is not actor');
    // D-RCPT-19: the grant id comes from the Mandate; without it actor_sig cannot be checked (GRANT_ID_UNAVAILABLE, reported once for the chain).
    if (o.grantId === undefined) flags |= F_ACTOR_SIG_UNCHECKED;
    else {
      const val = sigBytes(actorSig['val']);
      if (val !== undefined && actorKey !== undefined) sigFinding(verifyEd25519(val, actorSigInput(o.grantId, act as Obj), actorKey), 'ACTOR_SIG_INVALID', '/act/actor_sig', emit);
    }
  }
  // Seed, Versioning: "level 3 (context)"; D-RCPT-20: the model-driven acts are those with verb model.call.
  if (level >= 3 && verb === 'model.call' && r['context'] === undefined) emit('L3_CONTEXT_MISSING', '/context', 'level 3 needs context on model.call');

  const approval = isObj(r['approval']) ? r['approval'] : undefined;
  const approvalKid = str(approval?.['kid']);
  if (approval !== undefined && approvalKid !== undefined) {
    const approverKey = keyAt(approvalKid, '/approval/kid');
    // Seed: "the approver's detached signature over the the service identifier joined with the act digest"; D-RCPT-06:
    // "Without the option and without an iss that is a string there is no service id ... the approval is not checked".
    const serviceId = o.serviceId ?? iss;
    const val = sigBytes(approval['val']);
    if (val !== undefined && approverKey !== undefined && serviceId !== undefined && act !== undefined) {
      sigFinding(verifyEd25519(val, approvalSigInput(serviceId, act), approverKey), 'APPROVAL_SIG_INVALID', '/approval', emit);
    }
    if (!ctx.approvers.has(approvalKid)) emit('APPROVER_UNTRUSTED', '/approval/kid', `${approvalKid} is not an approver key`);
  }
  const token = str(r['token']);
  if (token !== undefined) {
    // D-RCPT-10: "token commitment = digest over the UTF-8 bytes of the token string".
    if (ctx.tokenCommitments === undefined) emit('TOKEN_UNVERIFIED', '/token', 'no token commitment given');
    else if (!ctx.tokenCommitments.has(tokenCommitment(token))) emit('TOKEN_MISMATCH', '/token', `token commitment ${tokenCommitment(token)} was not given`);
  }

  const iat = r['iat'];
  if (typeof iat === 'number') {
    out.iat[k] = iat;
    // D-RCPT-08: a warning unless the verifier is told to trust its clock (strictClock).
    if (iat > o.now + o.maxSkewSeconds) emit('IAT_FUTURE', '/iat', `iat ${iat} is more than ${o.maxSkewSeconds} s after ${o.now}`);
  }

  // Facts for the chain and pairing checks.
  if (id !== undefined) {
    flags |= F_ID;
    hash16Into(id, out.bytes, base + O_ID_HASH);
  }
  if (r['prev'] !== undefined) {
    flags |= F_PREV;
    const pb = typeof r['prev'] === 'string' ? digestBytes(r['prev']) : undefined;
    if (pb !== undefined) {
      flags |= F_PREV_DIGEST;
      out.bytes.set(pb, base + O_PREV);
      flags |= prevForm(pb, before);
    }
  }
  // D-RCPT-26: a member is present "when its name occurs in it, whatever the value, null included".
  if (r['outcome'] !== undefined) flags |= F_OUTCOME;
  if (r['gate'] !== undefined) {
    flags |= F_GATE;
    const gb = typeof r['gate'] === 'string' ? digestBytes(r['gate']) : undefined;
    if (gb !== undefined) {
      flags |= F_GATE_DIGEST;
      out.bytes.set(gb, base + O_GATE);
    }
  }
  if (decision?.['result'] === 'allowed') flags |= F_ALLOWED;
  if (verb === 'stop.approve') flags |= F_STOP;
  out.flags[k] = flags;
  if (o.payloadDigests) {
    const outcome = isObj(r['outcome']) ? r['outcome'] : undefined;
    (out.io ??= [])[k] = [str(act?.['input_digest']), str(outcome?.['output_digest']), str(r['context'])];
  }
}

/**
 * D-RCPT-07 takes prev over the whole previous Receipt's JCS, sig included. When prev is not the
 * digest of the Receipt before it in input order (checked on this thread), the forms implementers
 * get wrong are tried on that Receipt; the chain logic reports PREV_DIGEST_FORM if prev then names
 * no member. Only on a mismatch, so a valid chain costs one comparison.
 */
function prevForm(prev: Uint8Array, before: LastReceipt | undefined): number {
  if (before === undefined || before.digest.equals(prev)) return 0;
  if (hash('sha256', before.withoutSig, 'buffer').equals(prev)) return F_PREV_FORM_NO_SIG;
  if (before.wire !== undefined && hash('sha256', before.wire, 'buffer').equals(prev)) return F_PREV_FORM_WIRE;
  return 0;
}

/** The options of a verifier run as the per-Receipt checks need them. */
export function checkOptionsOf(options: {
  level?: 1 | 2 | 3;
  approvers?: readonly string[];
  tokenCommitments?: readonly string[];
  grantId?: string;
  serviceId?: string;
  strictWire?: boolean;
  now?: number;
  maxSkewSeconds?: number;
  limits?: StrictJsonLimits;
  payloads?: unknown;
}): CheckOptions {
  return {
    level: options.level ?? 1,
    approvers: options.approvers ?? [],
    tokenCommitments: options.tokenCommitments,
    grantId: options.grantId,
    serviceId: options.serviceId,
    strictWire: options.strictWire === true,
    now: options.now ?? Math.floor(Date.now() / 1000),
    maxSkewSeconds: options.maxSkewSeconds ?? 300,
    limits: options.limits ?? DEFAULT_LIMITS,
    payloadDigests: options.payloads !== undefined,
  };
}

/** D-RCPT-13: the payload digests a Receipt's members must equal. */
export function payloadDigest(value: unknown): string {
  return digestOf(value);
}

/** D-RCPT-01 strict-wire option: the wire text must be the JCS form. */
export function isCanonicalWire(text: string, value: unknown): boolean {
  return canonicalString(value) === text;
}
