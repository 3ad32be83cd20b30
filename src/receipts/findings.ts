// D-RCPT-23 and the table "Finding codes" in spec/DECISIONS.md (src/receipts/findings.test.ts
// compares the two): the closed set of finding codes, each with its severity and scope. Anchors §3
// "Verifier error codes. A complete proposal; (w) marks warnings", minus PROTO_CHANGED (unreachable
// with a constant proto).

export type FindingLayer = 'parse' | 'schema' | 'rules' | 'crypto' | 'chain' | 'pairing';
/** IAT_FUTURE is a warning, or an error with the strictClock option (D-RCPT-08). */
export type FindingSeverity = 'error' | 'warning';
/** receipt: index is the Receipt's position; chain: index is null; either: JSON_SYNTAX (null for the file's framing). */
export type FindingScope = 'receipt' | 'chain' | 'either';

export interface FindingCodeInfo {
  layer: FindingLayer;
  severity: FindingSeverity;
  scope: FindingScope;
  summary: string;
}

export const FINDING_TABLE = {
  // Parse
  JSON_SYNTAX: { layer: 'parse', severity: 'error', scope: 'either', summary: 'not valid JSON (RFC 8259), or data after the value' },
  JSON_DUPLICATE_KEY: { layer: 'parse', severity: 'error', scope: 'receipt', summary: 'a member name occurs twice in one object' },
  JSON_LONE_SURROGATE: { layer: 'parse', severity: 'error', scope: 'receipt', summary: 'a string holds an unpaired UTF-16 surrogate' },
  JSON_INVALID_UTF8: { layer: 'parse', severity: 'error', scope: 'receipt', summary: 'the bytes are not valid UTF-8, or start with a byte order mark' },
  JSON_NUMBER_FORM: { layer: 'parse', severity: 'error', scope: 'receipt', summary: 'a number is not an integer 0..2^53-1 written without sign, fraction or exponent' },
  JSON_LIMITS: { layer: 'parse', severity: 'error', scope: 'receipt', summary: 'the Receipt is larger than 64 KiB or nested deeper than 32' },
  WIRE_NOT_CANONICAL: { layer: 'parse', severity: 'error', scope: 'receipt', summary: 'the wire bytes are not the JCS form (strict-wire mode)' },
  // Schema
  SCHEMA_MISSING_FIELD: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'a required member is missing' },
  SCHEMA_UNKNOWN_FIELD: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'a member that is not allowed here' },
  SCHEMA_TYPE: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'a member has the wrong JSON type' },
  SCHEMA_PATTERN: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'a value is outside its allowed form or set' },
  UNSUPPORTED_PROTO: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'proto is not 1.0-draft.2' },
  BAD_DIGEST: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'not a digest: sha256: followed by 64 lowercase hex digits' },
  BAD_KEYREF: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'not a did:key Ed25519 key reference' },
  BAD_SIG_ENCODING: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'signature value is not 86 base64url characters' },
  NONCANONICAL_BASE64URL: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'base64url text with non-zero unused bits (an alias of another value)' },
  BAD_BUDGET: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'budget amount is not an unsigned decimal, or unit is not a currency code, tokens or requests' },
  NONCANONICAL_DECIMAL: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'budget amount is not in canonical decimal form (leading or trailing zeros)' },
  BAD_VERB: { layer: 'schema', severity: 'error', scope: 'receipt', summary: 'verb is not a dotted lowercase name' },
  UNKNOWN_VERB: { layer: 'schema', severity: 'warning', scope: 'receipt', summary: 'verb is well formed but not one of model.call, stop.approve' },
  UNKNOWN_DENY_REASON: { layer: 'schema', severity: 'warning', scope: 'receipt', summary: 'deny reason is well formed but not one of the reasons shown by the spec' },
  // Rules
  REASON_MISSING: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'a denied decision has no reason' },
  REASON_ON_ALLOWED: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'an allowed decision carries a reason' },
  POLICY_DETAIL_MISSING: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'PROTO_DENY_POLICY without subcode and prose' },
  CRIT_OBJECT_MISSING: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'PROTO_DENY_UNKNOWN_CRIT without crit_object' },
  CRIT_OBJECT_UNEXPECTED: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'crit_object without PROTO_DENY_UNKNOWN_CRIT' },
  OUTCOME_ON_DENIED: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'a denied Receipt carries an outcome' },
  GATE_REF_MISSING: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'an outcome Receipt has no gate reference' },
  GATE_REF_WITHOUT_OUTCOME: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'a gate reference on a Receipt without outcome' },
  RESOLVED_MISSING: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'a model.call outcome does not record resolved (object when status is ok)' },
  APPROVAL_WRONG_VERB: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'approval on a Receipt whose verb is not stop.approve' },
  TOKEN_WRONG_VERB: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'token on a Receipt whose verb is not stop.approve' },
  APPROVAL_AND_TOKEN: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'approval and token together (one mode only)' },
  STOP_EVIDENCE_MISSING: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'an allowed stop.approve gate has neither approval nor token' },
  L2_ACTOR_SIG_MISSING: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'level 2: act.actor_sig is missing' },
  L3_CONTEXT_MISSING: { layer: 'rules', severity: 'error', scope: 'receipt', summary: 'level 3: a model.call Receipt has no context' },
  // Crypto
  SIG_ALG_UNSUPPORTED: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'signature alg is not Ed25519' },
  SIG_KID_MISMATCH: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'signature kid is not the key it must be (sig.kid = iss, actor_sig.kid = actor)' },
  KEY_INVALID: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'key does not decode to a canonical Ed25519 point of large order' },
  SIG_NONCANONICAL: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'signature is malleable or malformed (S >= L, small-order or undecodable R)' },
  SIG_INVALID: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'the envelope signature does not verify' },
  ACTOR_SIG_INVALID: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'actor_sig does not verify over the grant id and act' },
  APPROVAL_SIG_INVALID: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'approval does not verify over the service id and act digest' },
  ISSUER_UNTRUSTED: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'the issuer key is not among the trusted issuer keys' },
  APPROVER_UNTRUSTED: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'the approval key is not among the approver keys' },
  GRANT_ID_UNAVAILABLE: { layer: 'crypto', severity: 'error', scope: 'chain', summary: 'actor_sig cannot be checked: no grant id was given' },
  TOKEN_MISMATCH: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'the token does not match any given token commitment' },
  TOKEN_UNVERIFIED: { layer: 'crypto', severity: 'warning', scope: 'receipt', summary: 'token present but no token commitment was given' },
  CONTEXT_DIGEST_MISMATCH: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'context is not the digest of the given Context Envelope' },
  IO_DIGEST_MISMATCH: { layer: 'crypto', severity: 'error', scope: 'receipt', summary: 'input_digest or output_digest is not the digest of the given payload' },
  // Chain
  CHAIN_NO_GENESIS: { layer: 'chain', severity: 'error', scope: 'chain', summary: 'no Receipt without prev (the chain has no start)' },
  CHAIN_MULTIPLE_GENESIS: { layer: 'chain', severity: 'error', scope: 'receipt', summary: 'more than one Receipt without prev' },
  CHAIN_BREAK: { layer: 'chain', severity: 'error', scope: 'receipt', summary: 'prev names no Receipt of the chain' },
  PREV_DIGEST_FORM: { layer: 'chain', severity: 'error', scope: 'receipt', summary: 'prev is the digest of the previous Receipt in another form (without its sig, or its bytes as served)' },
  CHAIN_FORK: { layer: 'chain', severity: 'error', scope: 'receipt', summary: 'two Receipts have the same prev' },
  DUPLICATE_ID: { layer: 'chain', severity: 'error', scope: 'receipt', summary: 'two different Receipts have the same id' },
  DUPLICATE_RECEIPT: { layer: 'chain', severity: 'error', scope: 'receipt', summary: 'the same Receipt occurs twice' },
  IAT_REGRESSION: { layer: 'chain', severity: 'error', scope: 'receipt', summary: 'iat is earlier than the previous Receipt\'s iat' },
  IAT_FUTURE: { layer: 'chain', severity: 'warning', scope: 'receipt', summary: 'iat is in the future beyond the allowed skew' },
  ISSUER_CHANGED: { layer: 'chain', severity: 'warning', scope: 'receipt', summary: 'iss differs from the previous Receipt\'s iss' },
  HEAD_MISMATCH: { layer: 'chain', severity: 'error', scope: 'chain', summary: 'the chain head is not the expected head digest' },
  // Pairing
  GATE_NOT_FOUND: { layer: 'pairing', severity: 'error', scope: 'receipt', summary: 'gate names no Receipt of the chain' },
  GATE_NOT_PRIOR: { layer: 'pairing', severity: 'error', scope: 'receipt', summary: 'gate names a Receipt that comes later in the chain' },
  GATE_IS_OUTCOME: { layer: 'pairing', severity: 'error', scope: 'receipt', summary: 'gate names an outcome Receipt' },
  OUTCOME_WITHOUT_ALLOWED_GATE: { layer: 'pairing', severity: 'error', scope: 'receipt', summary: 'the gate of this outcome was denied' },
  DUPLICATE_OUTCOME: { layer: 'pairing', severity: 'error', scope: 'receipt', summary: 'a second outcome for the same gate' },
  PAIR_ACT_MISMATCH: { layer: 'pairing', severity: 'error', scope: 'receipt', summary: 'outcome act differs from its gate\'s act' },
  PAIR_ACTOR_MISMATCH: { layer: 'pairing', severity: 'error', scope: 'receipt', summary: 'outcome actor differs from its gate\'s actor' },
  PAIR_DECISION_MISMATCH: { layer: 'pairing', severity: 'error', scope: 'receipt', summary: 'outcome decision differs from its gate\'s decision' },
  PAIR_IAT_REGRESSION: { layer: 'pairing', severity: 'error', scope: 'receipt', summary: 'outcome iat is earlier than its gate\'s iat' },
  GATE_OPEN: { layer: 'pairing', severity: 'warning', scope: 'receipt', summary: 'an allowed gate has no outcome (yet)' },
} as const satisfies Record<string, FindingCodeInfo>;

export type FindingCode = keyof typeof FINDING_TABLE;

/** One-line summary of each code (what `iari receipts verify` prints beside it). */
export const FINDING_CODES = Object.fromEntries(Object.entries(FINDING_TABLE).map(([code, info]) => [code, info.summary])) as Record<FindingCode, string>;

export const ALL_FINDING_CODES = Object.keys(FINDING_TABLE) as FindingCode[];

/** Codes that are warnings by default (a warning does not make a chain invalid). */
export const WARNING_CODES: ReadonlySet<FindingCode> = new Set<FindingCode>(ALL_FINDING_CODES.filter((c) => FINDING_TABLE[c].severity === 'warning'));

/** Codes that the strictClock option turns from warning into error. */
export const CLOCK_CODES: ReadonlySet<FindingCode> = new Set<FindingCode>(['IAT_FUTURE']);

export function isFindingCode(code: string): code is FindingCode {
  return Object.hasOwn(FINDING_TABLE, code);
}

export interface Finding {
  code: FindingCode;
  /** 0-based position of the Receipt in the input; null for a finding about the whole chain. */
  index: number | null;
  id?: string;
  pointer?: string;
  detail: string;
}
