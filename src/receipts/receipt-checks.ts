import { decodeBase64url } from './base64url.ts';
import { canonicalString } from './canonical.ts';
import { digestOf, tokenCommitment } from './digest.ts';
import { decodeKeyref, type KeyrefDecode } from './keyref.ts';
import { verifyEd25519, type SignatureCheck } from './ed25519.ts';
import { actorSigInput, approvalSigInput, receiptSigInput } from './pae.ts';
import { validateReceiptSchema, type ReceiptSchemaError } from './receipt-schema.ts';
import { isFindingCode, type Finding, type FindingCode } from './findings.ts';
import type { VerifyOptions } from './verify-options.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const KNOWN_VERBS = new Set(['model.call', 'stop.approve']);
// Seed, Errors: "Two values are shown: PROTO_DENY_POLICY ... and PROTO_DENY_UNKNOWN_CRIT".
const KNOWN_REASONS = new Set(['PROTO_DENY_POLICY', 'PROTO_DENY_UNKNOWN_CRIT']);

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

/** Per-run caches and once-only state shared by the checks of every Receipt. */
export class CheckContext {
  readonly keys = new Map<string, KeyrefDecode>();
  readonly trusted: ReadonlySet<string> | undefined;
  readonly approvers: ReadonlySet<string>;
  readonly tokenCommitments: ReadonlySet<string> | undefined;
  readonly untrustedReported = new Set<string>();
  grantIdReported = false;
  readonly notes = new Set<string>();
  readonly now: number;

  constructor(readonly options: VerifyOptions) {
    this.trusted = options.trustedIssuers === undefined ? undefined : new Set(options.trustedIssuers);
    this.approvers = new Set(options.approvers ?? []);
    this.tokenCommitments = options.tokenCommitments === undefined ? undefined : new Set(options.tokenCommitments);
    this.now = options.now ?? Math.floor(Date.now() / 1000);
  }

  key(keyref: string): KeyrefDecode {
    let k = this.keys.get(keyref);
    if (k === undefined) {
      if (this.keys.size >= 4096) this.keys.clear();
      k = decodeKeyref(keyref);
      this.keys.set(keyref, k);
    }
    return k;
  }
}

export interface CheckedReceipt {
  digest: string;
  schemaValid: boolean;
}

/** Everything about one parsed Receipt that needs no other Receipt: schema, rules, keys, signatures, trust, payloads. */
export function checkReceipt(value: unknown, index: number, ctx: CheckContext, add: (f: Finding) => void): CheckedReceipt {
  const o = ctx.options;
  const id = isObj(value) ? str(value['id']) : undefined;
  const emit = (code: FindingCode, pointer: string | undefined, detail: string) =>
    add({ code, index, ...(id === undefined ? {} : { id }), ...(pointer === undefined ? {} : { pointer }), detail });
  const digest = digestOf(value);

  const schema = validateReceiptSchema(value);
  if (!schema.ok) {
    const seen = new Set<string>();
    for (const e of schema.errors) {
      const code = schemaFindingCode(e);
      const key = `${e.pointer}`;
      if (seen.has(key)) continue;
      seen.add(key);
      emit(code, e.pointer, `${e.message} (${e.keyword})`);
    }
  }
  if (!isObj(value)) return { digest, schemaValid: false };
  const act = isObj(value['act']) ? value['act'] : undefined;
  const decision = isObj(value['decision']) ? value['decision'] : undefined;
  const verb = str(act?.['verb']);
  if (schema.ok) {
    // Seed, act table: "values seen: model.call, stop.approve".
    if (verb !== undefined && !KNOWN_VERBS.has(verb)) emit('UNKNOWN_VERB', '/act/verb', `verb ${verb}`);
    const reason = str(decision?.['reason']);
    if (reason !== undefined && !KNOWN_REASONS.has(reason)) emit('UNKNOWN_DENY_REASON', '/decision/reason', `reason ${reason}`);
  }
  if (!schema.ok) return { digest, schemaValid: false };

  const r = value;
  const iss = r['iss'] as string;
  const sig = r['sig'] as Obj;
  const level = o.level ?? 1;

  // D-RCPT-04: "the envelope sig.kid must equal iss".
  const issKey = ctx.key(iss);
  if (!issKey.ok) emit('KEY_INVALID', '/iss', issKey.reason);
  if (sig['kid'] !== iss) emit('SIG_KID_MISMATCH', '/sig/kid', 'sig.kid is not iss');
  else if (issKey.ok) sigFinding(verifySig(sig, receiptSigInput(r), issKey.publicKey), 'SIG_INVALID', '/sig', emit);
  // D-RCPT-21: "A Receipt whose iss is not trusted is ISSUER_UNTRUSTED (once per untrusted issuer, at its first Receipt)".
  if ((ctx.trusted === undefined || !ctx.trusted.has(iss)) && !ctx.untrustedReported.has(iss)) {
    ctx.untrustedReported.add(iss);
    emit('ISSUER_UNTRUSTED', '/iss', ctx.trusted === undefined ? `no trusted issuer keys given; ${iss} is not trusted` : `${iss} is not a trusted issuer key`);
  }

  const actor = r['actor'] as string;
  const actorKey = ctx.key(actor);
  if (!actorKey.ok) emit('KEY_INVALID', '/actor', actorKey.reason);
  const actorSig = isObj(act?.['actor_sig']) ? (act['actor_sig'] as Obj) : undefined;
  if (actorSig === undefined) {
    // Seed, act table: "actor_sig ... level 2 and above".
    if (level >= 2) emit('L2_ACTOR_SIG_MISSING', '/act/actor_sig', 'level 2 needs actor_sig');
  } else if (actorSig['kid'] !== actor) {
    emit('SIG_KID_MISMATCH', '/act/actor_sig/kid', 'actor_sig.kid is not actor');
  } else if (o.grantId === undefined) {
    // D-RCPT-19: "When a level-2 check needs it and it is absent: GRANT_ID_UNAVAILABLE".
    if (level >= 2 && !ctx.grantIdReported) {
      ctx.grantIdReported = true;
      emit('GRANT_ID_UNAVAILABLE', '/act/actor_sig', 'no grant id given (mandate.grant_id or --grant-id): actor_sig cannot be checked');
    }
    if (level < 2) ctx.notes.add('actor_sig present but not checked: no grant id given (--grant-id)');
  } else if (actorKey.ok) {
    sigFinding(verifySig(actorSig, actorSigInput(o.grantId, act as Obj), actorKey.publicKey), 'ACTOR_SIG_INVALID', '/act/actor_sig', emit);
  }
  // Seed, Versioning: "level 3 (context)"; D-RCPT-20: the model-driven acts are those with verb model.call.
  if (level >= 3 && verb === 'model.call' && r['context'] === undefined) emit('L3_CONTEXT_MISSING', '/context', 'level 3 needs context on model.call');

  const approval = isObj(r['approval']) ? r['approval'] : undefined;
  if (approval !== undefined) {
    const kid = approval['kid'] as string;
    const approverKey = ctx.key(kid);
    if (!approverKey.ok) emit('KEY_INVALID', '/approval/kid', approverKey.reason);
    else {
      // Seed: "the approver's detached signature over the the service identifier joined with the act digest".
      const serviceId = o.serviceId ?? iss;
      sigFinding(verifySig(approval, approvalSigInput(serviceId, act as Obj), approverKey.publicKey), 'APPROVAL_SIG_INVALID', '/approval', emit);
    }
    if (!ctx.approvers.has(kid)) emit('APPROVER_UNTRUSTED', '/approval/kid', `${kid} is not an approver key`);
  }
  const token = str(r['token']);
  if (token !== undefined) {
    // D-RCPT-10: "token commitment = digest over the UTF-8 bytes of the token string".
    if (ctx.tokenCommitments === undefined) emit('TOKEN_UNVERIFIED', '/token', 'no token commitment given');
    else if (!ctx.tokenCommitments.has(tokenCommitment(token))) emit('TOKEN_MISMATCH', '/token', `token commitment ${tokenCommitment(token)} was not given`);
  }

  const iat = r['iat'] as number;
  const skew = o.maxSkewSeconds ?? 300;
  if (iat > ctx.now + skew) emit('IAT_FUTURE', '/iat', `iat ${iat} is more than ${skew} s after ${ctx.now}`);

  const payload = o.payloads?.(index, id);
  if (payload !== undefined) {
    const outcome = isObj(r['outcome']) ? r['outcome'] : undefined;
    if (payload.input !== undefined && act?.['input_digest'] !== digestOf(payload.input)) emit('IO_DIGEST_MISMATCH', '/act/input_digest', 'input_digest is not the digest of the given request body');
    if (payload.output !== undefined && outcome !== undefined && outcome['output_digest'] !== digestOf(payload.output)) emit('IO_DIGEST_MISMATCH', '/outcome/output_digest', 'output_digest is not the digest of the given output');
    if (payload.context !== undefined && r['context'] !== digestOf(payload.context)) emit('CONTEXT_DIGEST_MISMATCH', '/context', 'context is not the digest of the given Context Envelope');
  }
  return { digest, schemaValid: true };
}

function verifySig(sig: Obj, input: Uint8Array, publicKey: Uint8Array): SignatureCheck {
  const val = decodeBase64url(sig['val'] as string, 64);
  if (!val.ok) return 'noncanonical';
  return verifyEd25519(val.bytes, input, publicKey);
}

function sigFinding(check: SignatureCheck, invalidCode: FindingCode, pointer: string, emit: (code: FindingCode, pointer: string, detail: string) => void): void {
  if (check === 'noncanonical') emit('SIG_NONCANONICAL', `${pointer}/val`, 'signature is not canonical (S >= L, or R small-order or not a canonical point)');
  else if (check === 'invalid') emit(invalidCode, pointer, 'signature does not verify');
}

/** D-RCPT-01 strict-wire option: the wire text must be the JCS form. */
export function isCanonicalWire(text: string, value: unknown): boolean {
  return canonicalString(value) === text;
}
