import type { Finding } from '../../receipts/index.ts';

const S = (n: number): string => `RCPT-SCHEMA-${String(n).padStart(3, '0')}`;

/** Fixed code -> requirement mappings (codes whose meaning does not depend on where they point). */
const byCode: Record<string, string[]> = {
  JSON_SYNTAX: [S(41)],
  JSON_DUPLICATE_KEY: [S(41)],
  JSON_LONE_SURROGATE: [S(41)],
  JSON_INVALID_UTF8: [S(41)],
  JSON_NUMBER_FORM: [S(41)],
  JSON_LIMITS: [S(41)],
  WIRE_NOT_CANONICAL: ['RCPT-SIG-008'],
  UNSUPPORTED_PROTO: [S(2)],
  BAD_DIGEST: [S(6)],
  BAD_KEYREF: [S(7)],
  BAD_SIG_ENCODING: [S(8)],
  NONCANONICAL_BASE64URL: ['RCPT-SIG-003'],
  BAD_BUDGET: [S(10)],
  NONCANONICAL_DECIMAL: [S(10)],
  BAD_VERB: [S(12)],
  UNKNOWN_VERB: [S(13)],
  REASON_MISSING: [S(17)],
  REASON_ON_ALLOWED: [S(19)],
  CRIT_OBJECT_MISSING: [S(24)],
  CRIT_OBJECT_UNEXPECTED: [S(26)],
  OUTCOME_ON_DENIED: ['RCPT-PAIR-003'],
  GATE_REF_MISSING: [S(32)],
  GATE_REF_WITHOUT_OUTCOME: [S(33)],
  RESOLVED_MISSING: [S(34), 'RCPT-PAIR-007'],
  APPROVAL_WRONG_VERB: [S(35)],
  TOKEN_WRONG_VERB: [S(36)],
  APPROVAL_AND_TOKEN: [S(37)],
  STOP_EVIDENCE_MISSING: ['RCPT-PAIR-008'],
  L2_ACTOR_SIG_MISSING: [S(39)],
  L3_CONTEXT_MISSING: [S(38)],
  SIG_ALG_UNSUPPORTED: [S(8)],
  KEY_INVALID: ['RCPT-SIG-004'],
  SIG_NONCANONICAL: ['RCPT-SIG-003'],
  SIG_INVALID: ['RCPT-SIG-001'],
  ACTOR_SIG_INVALID: ['RCPT-SIG-006'],
  APPROVAL_SIG_INVALID: ['RCPT-SIG-007'],
  APPROVER_UNTRUSTED: ['RCPT-SIG-007'],
  ISSUER_UNTRUSTED: ['RCPT-SIG-005'],
  GRANT_ID_UNAVAILABLE: ['RCPT-SIG-009'],
  TOKEN_MISMATCH: ['RCPT-PAIR-008'],
  CHAIN_NO_GENESIS: ['RCPT-CHAIN-001'],
  CHAIN_MULTIPLE_GENESIS: ['RCPT-CHAIN-001'],
  CHAIN_BREAK: ['RCPT-CHAIN-002'],
  PREV_DIGEST_FORM: ['RCPT-CHAIN-003'],
  CHAIN_FORK: ['RCPT-CHAIN-004'],
  DUPLICATE_ID: ['RCPT-CHAIN-005'],
  DUPLICATE_RECEIPT: ['RCPT-CHAIN-005'],
  IAT_REGRESSION: ['RCPT-CHAIN-006'],
  IAT_FUTURE: ['RCPT-CHAIN-006'],
  ISSUER_CHANGED: ['RCPT-CHAIN-008'],
  HEAD_MISMATCH: ['RCPT-CHAIN-009'],
  GATE_NOT_FOUND: ['RCPT-PAIR-001'],
  GATE_NOT_PRIOR: ['RCPT-PAIR-002'],
  GATE_IS_OUTCOME: ['RCPT-PAIR-002'],
  OUTCOME_WITHOUT_ALLOWED_GATE: ['RCPT-PAIR-003'],
  DUPLICATE_OUTCOME: ['RCPT-PAIR-004'],
  PAIR_ACT_MISMATCH: ['RCPT-PAIR-005'],
  PAIR_ACTOR_MISMATCH: ['RCPT-PAIR-005'],
  PAIR_DECISION_MISMATCH: ['RCPT-PAIR-005'],
  PAIR_IAT_REGRESSION: ['RCPT-PAIR-006'],
  GATE_OPEN: ['RCPT-PAIR-009'],
};

/** Schema findings (missing, unknown, wrong type or form) decided by where they point. */
function bySchemaPointer(code: string, pointer: string): string[] {
  const p = pointer;
  const top = /^\/[^/]*$/.test(p) || p === '';
  if (p.startsWith('/decision/crit_object')) return [S(25)];
  if (p.startsWith('/outcome/resolved')) return [S(31)];
  if (p.startsWith('/outcome/effects')) return [S(30)];
  if (p === '/outcome/status') return [code === 'SCHEMA_MISSING_FIELD' ? S(28) : S(29)];
  if (p.startsWith('/outcome')) return [S(28)];
  if (p === '/decision/result') return [code === 'SCHEMA_MISSING_FIELD' ? S(15) : S(16)];
  if (p === '/decision/reason') return [S(18)];
  // RCPT-SCHEMA-023: "subcode or prose with any other reason (or no reason) is rejected" (an unexpected member).
  if ((p === '/decision/subcode' || p === '/decision/prose') && code === 'SCHEMA_UNKNOWN_FIELD') return [S(23)];
  if (p === '/decision/subcode') return [code === 'SCHEMA_MISSING_FIELD' ? S(20) : S(21)];
  if (p === '/decision/prose') return [S(22)];
  if (p === '/decision/the service') return [S(27)];
  if (p.startsWith('/decision')) return [S(15)];
  if (p === '/act/verb') return [code === 'SCHEMA_MISSING_FIELD' ? S(11) : S(12)];
  if (p === '/act/resource') return [code === 'SCHEMA_MISSING_FIELD' ? S(11) : S(14)];
  if (p === '/act/input_digest') return [S(6)];
  if (p.startsWith('/act/actor_sig') || p.startsWith('/sig') || p.startsWith('/approval')) return [S(8)];
  if (p.startsWith('/act')) return [S(11)];
  if (p.startsWith('/cost')) return [p === '/cost' && code !== 'SCHEMA_UNKNOWN_FIELD' ? S(9) : S(10)];
  if (p === '/proto') return [code === 'SCHEMA_MISSING_FIELD' ? S(1) : S(2)];
  if (p === '/type') return [code === 'SCHEMA_MISSING_FIELD' ? S(1) : S(3)];
  if (p === '/id') return [code === 'SCHEMA_MISSING_FIELD' ? S(1) : S(4)];
  if (p === '/iat') return [code === 'SCHEMA_MISSING_FIELD' ? S(1) : S(5)];
  if (p === '/prev' || p === '/context' || p === '/gate') return [S(6)];
  if (p === '/iss' || p === '/actor') return [code === 'SCHEMA_MISSING_FIELD' ? S(1) : S(7)];
  if (p === '/token') return [S(36)];
  if (top) return [code === 'SCHEMA_UNKNOWN_FIELD' ? S(40) : S(1)];
  return [S(1)];
}

const schemaCodes = new Set(['SCHEMA_MISSING_FIELD', 'SCHEMA_UNKNOWN_FIELD', 'SCHEMA_TYPE', 'SCHEMA_PATTERN']);

/**
 * The requirement IDs a verifier finding about a served chain is evidence against. Findings
 * with no mapping here (payload digests the harness does not have) count only against the
 * chain as a whole (RCPT-HTTP-006).
 */
export function requirementIdsOfFinding(f: Pick<Finding, 'code' | 'pointer'>): string[] {
  if (schemaCodes.has(f.code)) return bySchemaPointer(f.code, f.pointer ?? '');
  // RCPT-SCHEMA-027: "The decision member literally named "the service", when present, is a digest string."
  if (f.code === 'BAD_DIGEST' && f.pointer === '/decision/the service') return [S(6), S(27)];
  if (f.code === 'SIG_KID_MISMATCH') return [f.pointer?.startsWith('/act') === true ? 'RCPT-SIG-006' : 'RCPT-SIG-002'];
  if (f.code === 'POLICY_DETAIL_MISSING') return [f.pointer === '/decision/prose' ? S(22) : S(20)];
  return byCode[f.code] ?? [];
}
