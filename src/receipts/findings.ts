// Anchors §3 "Verifier error codes. A complete proposal; (w) marks warnings." The closed set of
// finding codes (D-RCPT-23: PROTO_CHANGED dropped, unreachable with a constant proto).

export const FINDING_CODES = {
  // Parse
  JSON_SYNTAX: 'not valid JSON (RFC 8259), or data after the value',
  JSON_DUPLICATE_KEY: 'a member name occurs twice in one object',
  JSON_LONE_SURROGATE: 'a string holds an unpaired UTF-16 surrogate',
  JSON_INVALID_UTF8: 'the bytes are not valid UTF-8, or start with a byte order mark',
  JSON_NUMBER_FORM: 'a number is not an integer 0..2^53-1 written without sign, fraction or exponent',
  JSON_LIMITS: 'the Receipt is larger than 64 KiB or nested deeper than 32',
  WIRE_NOT_CANONICAL: 'the wire bytes are not the JCS form (strict-wire mode)',
  // Schema
  SCHEMA_MISSING_FIELD: 'a required member is missing',
  SCHEMA_UNKNOWN_FIELD: 'a member that is not allowed here',
  SCHEMA_TYPE: 'a member has the wrong JSON type',
  SCHEMA_PATTERN: 'a value is outside its allowed form or set',
  UNSUPPORTED_PROTO: 'proto is not 1.0-draft.2',
  BAD_DIGEST: 'not a digest: sha256: followed by 64 lowercase hex digits',
  BAD_KEYREF: 'not a did:key Ed25519 key reference',
  BAD_SIG_ENCODING: 'signature value is not 86 base64url characters',
  NONCANONICAL_BASE64URL: 'base64url text with non-zero unused bits (an alias of another value)',
  BAD_BUDGET: 'budget amount is not an unsigned decimal, or unit is not a currency code, tokens or requests',
  NONCANONICAL_DECIMAL: 'budget amount is not in canonical decimal form (leading or trailing zeros)',
  BAD_VERB: 'verb is not a dotted lowercase name',
  UNKNOWN_VERB: 'verb is well formed but not one of model.call, stop.approve',
  UNKNOWN_DENY_REASON: 'deny reason is well formed but not one of the reasons shown by the spec',
  // Rules
  REASON_MISSING: 'a denied decision has no reason',
  REASON_ON_ALLOWED: 'an allowed decision carries a reason',
  POLICY_DETAIL_MISSING: 'PROTO_DENY_POLICY without subcode and prose',
  CRIT_OBJECT_MISSING: 'PROTO_DENY_UNKNOWN_CRIT without crit_object',
  CRIT_OBJECT_UNEXPECTED: 'crit_object without PROTO_DENY_UNKNOWN_CRIT',
  OUTCOME_ON_DENIED: 'a denied Receipt carries an outcome',
  GATE_REF_MISSING: 'an outcome Receipt has no gate reference',
  GATE_REF_WITHOUT_OUTCOME: 'a gate reference on a Receipt without outcome',
  RESOLVED_MISSING: 'a model.call outcome does not record resolved (object when status is ok)',
  APPROVAL_WRONG_VERB: 'approval on a Receipt whose verb is not stop.approve',
  TOKEN_WRONG_VERB: 'token on a Receipt whose verb is not stop.approve',
  APPROVAL_AND_TOKEN: 'approval and token together (one mode only)',
  STOP_EVIDENCE_MISSING: 'an allowed stop.approve gate has neither approval nor token',
  L2_ACTOR_SIG_MISSING: 'level 2: act.actor_sig is missing',
  L3_CONTEXT_MISSING: 'level 3: a model.call Receipt has no context',
  // Crypto
  SIG_ALG_UNSUPPORTED: 'signature alg is not Ed25519',
  SIG_KID_MISMATCH: 'signature kid is not the key it must be (sig.kid = iss, actor_sig.kid = actor)',
  KEY_INVALID: 'key does not decode to a canonical Ed25519 point of large order',
  SIG_NONCANONICAL: 'signature is malleable or malformed (S >= L, small-order or undecodable R)',
  SIG_INVALID: 'the envelope signature does not verify',
  ACTOR_SIG_INVALID: 'actor_sig does not verify over the grant id and act',
  APPROVAL_SIG_INVALID: 'approval does not verify over the service id and act digest',
  ISSUER_UNTRUSTED: 'the issuer key is not among the trusted issuer keys',
  APPROVER_UNTRUSTED: 'the approval key is not among the approver keys',
  GRANT_ID_UNAVAILABLE: 'actor_sig cannot be checked: no grant id was given',
  TOKEN_MISMATCH: 'the token does not match any given token commitment',
  TOKEN_UNVERIFIED: 'token present but no token commitment was given',
  CONTEXT_DIGEST_MISMATCH: 'context is not the digest of the given Context Envelope',
  IO_DIGEST_MISMATCH: 'input_digest or output_digest is not the digest of the given payload',
  // Chain
  CHAIN_NO_GENESIS: 'no Receipt without prev (the chain has no start)',
  CHAIN_MULTIPLE_GENESIS: 'more than one Receipt without prev',
  CHAIN_BREAK: 'prev names no Receipt of the chain',
  CHAIN_FORK: 'two Receipts have the same prev',
  DUPLICATE_ID: 'two different Receipts have the same id',
  DUPLICATE_RECEIPT: 'the same Receipt occurs twice',
  IAT_REGRESSION: 'iat is earlier than the previous Receipt\'s iat',
  IAT_FUTURE: 'iat is in the future beyond the allowed skew',
  ISSUER_CHANGED: 'iss differs from the previous Receipt\'s iss',
  HEAD_MISMATCH: 'the chain head is not the expected head digest',
  // Pairing
  GATE_NOT_FOUND: 'gate names no Receipt of the chain',
  GATE_NOT_PRIOR: 'gate names a Receipt that comes later in the chain',
  GATE_IS_OUTCOME: 'gate names an outcome Receipt',
  OUTCOME_WITHOUT_ALLOWED_GATE: 'the gate of this outcome was denied',
  DUPLICATE_OUTCOME: 'a second outcome for the same gate',
  PAIR_ACT_MISMATCH: 'outcome act differs from its gate\'s act',
  PAIR_ACTOR_MISMATCH: 'outcome actor differs from its gate\'s actor',
  PAIR_DECISION_MISMATCH: 'outcome decision differs from its gate\'s decision',
  PAIR_IAT_REGRESSION: 'outcome iat is earlier than its gate\'s iat',
  GATE_OPEN: 'an allowed gate has no outcome (yet)',
} as const;

export type FindingCode = keyof typeof FINDING_CODES;

export const WARNING_CODES: ReadonlySet<FindingCode> = new Set<FindingCode>(['UNKNOWN_VERB', 'UNKNOWN_DENY_REASON', 'TOKEN_UNVERIFIED', 'ISSUER_CHANGED', 'GATE_OPEN']);

export const ALL_FINDING_CODES = Object.keys(FINDING_CODES) as FindingCode[];

export function isFindingCode(code: string): code is FindingCode {
  return Object.hasOwn(FINDING_CODES, code);
}

export interface Finding {
  code: FindingCode;
  /** 0-based position of the Receipt in the input; null for a finding about the whole chain. */
  index: number | null;
  id?: string;
  pointer?: string;
  detail: string;
}
