// The table-driven receipt faults: name, which Receipt each changes, the requirement IDs a
// correct check must fail while it is on (observed by suites/meta/fault-matrix.test.ts) and the
// verifier finding it causes (first in the description, asserted by receipt-fault-mutations.test.ts).
// Data only (no receipt library import), so the fault registry loads anywhere; the changes
// themselves are in receipt-fault-mutations.ts.
import type { FaultDefinition } from './core/fault-catalogue.ts';

/** Which Receipt a mutation applies to: an allowed gate, a denied gate, or an outcome. */
export type ReceiptRole = 'gate' | 'denial' | 'outcome';

export interface ReceiptFaultRow {
  name: string;
  on: readonly ReceiptRole[];
  breaks: string[];
  description: string;
  /** IDs whose checks the fault lets judge an optional feature (skipped before, may pass now). */
  exercises?: string[];
}

const GATE_ONLY = ['gate'] as const;
const OUTCOME_ONLY = ['outcome'] as const;
const DENIAL_ONLY = ['denial'] as const;
// Members that the outcome copies from its gate change on both, so only the rule under test fires (no PAIR_*_MISMATCH).
const PAIRED = ['gate', 'outcome'] as const;
const SCHEMA = ['RCPT-HTTP-005', 'RCPT-HTTP-006'];
const DENIAL = ['RCPT-HTTP-005', 'RCPT-HTTP-006', 'RCPT-HTTP-011'];
const s = (n: number): string => `RCPT-SCHEMA-${String(n).padStart(3, '0')}`;
const t = (name: string, on: readonly ReceiptRole[], breaks: string[], description: string, exercises?: string[]): ReceiptFaultRow => ({ name, on, breaks, description, ...(exercises === undefined ? {} : { exercises }) });

/** One Receipt rule each: the Receipt is changed, then signed and linked normally unless the rule is a signature rule. */
export const receiptFaultTable: readonly ReceiptFaultRow[] = [
  t('receipt-schema-missing-type', GATE_ONLY, [s(1), ...SCHEMA], 'The gate Receipt has no type member (SCHEMA_MISSING_FIELD /type).'),
  t('receipt-schema-wrong-proto', GATE_ONLY, [s(2), ...SCHEMA], 'The gate Receipt\'s proto is "1.0-draft.3" (UNSUPPORTED_PROTO).'),
  t('receipt-schema-wrong-type', GATE_ONLY, [s(3), ...SCHEMA], 'The gate Receipt\'s type is "Receipt" (SCHEMA_PATTERN /type).'),
  t('receipt-schema-bad-id', GATE_ONLY, [s(4), ...SCHEMA], 'The gate Receipt\'s id contains a space (SCHEMA_PATTERN /id).'),
  t('receipt-schema-string-iat', GATE_ONLY, [s(5), ...SCHEMA], 'The gate Receipt\'s iat is an ISO 8601 string instead of integer seconds (SCHEMA_TYPE /iat).'),
  t('receipt-json-negative-iat', GATE_ONLY, [s(41), 'RCPT-CHAIN-001', 'RCPT-CHAIN-002', 'RCPT-CHAIN-009', 'RCPT-PAIR-001', ...SCHEMA], 'The first gate Receipt of a chain has iat -1, a number lexeme outside the non-negative integers (JSON_NUMBER_FORM); the verifier drops that Receipt, so the chain has no genesis and the outcome no gate.'),
  t('receipt-schema-bad-output-digest', OUTCOME_ONLY, [s(6), ...SCHEMA], 'The outcome\'s output_digest has upper-case hex (BAD_DIGEST /outcome/output_digest).'),
  t('receipt-schema-bad-actor-keyref', PAIRED, [s(7), ...SCHEMA], 'Gate and outcome name the actor with a did:key containing "0", outside base58btc (BAD_KEYREF /actor).'),
  t('receipt-schema-sig-extra-member', GATE_ONLY, [s(8), ...SCHEMA], 'The gate Receipt\'s sig carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /sig/note).'),
  t('receipt-schema-cost-not-object', GATE_ONLY, [s(9), ...SCHEMA], 'The gate Receipt\'s cost is the amount string instead of {amount, unit} (SCHEMA_TYPE /cost).'),
  t('receipt-schema-act-extra-member', PAIRED, [s(11), ...SCHEMA], 'act carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /act/note).'),
  t('receipt-schema-bad-verb', PAIRED, [s(12), ...SCHEMA], 'act.verb is "Model.Call" (BAD_VERB).'),
  t('receipt-schema-unknown-verb', PAIRED, [s(13)], 'act.verb is "model.invoke", well-formed but not a known verb (UNKNOWN_VERB warning).'),
  t('receipt-schema-empty-resource', PAIRED, [s(14), ...SCHEMA], 'act.resource is the empty string (SCHEMA_PATTERN /act/resource).'),
  t('receipt-schema-bad-result', PAIRED, [s(16), ...SCHEMA, 'RCPT-HTTP-008', 'RCPT-PAIR-003'], 'decision.result is "permitted" (SCHEMA_PATTERN /decision/result; a completion then appends no allowed gate, and the outcome names a gate that is not allowed: OUTCOME_WITHOUT_ALLOWED_GATE).'),
  t('receipt-schema-bad-reason', DENIAL_ONLY, [s(18), ...DENIAL], 'A denial gives reason "DENY_BUDGET", outside PROTO_DENY_*, and no subcode or prose (SCHEMA_PATTERN /decision/reason).'),
  t('receipt-schema-reason-on-allowed', PAIRED, [s(19), ...SCHEMA], 'An allowed decision carries reason "PROTO_DENY_SCOPE" (REASON_ON_ALLOWED).'),
  t('receipt-schema-bad-subcode', DENIAL_ONLY, [s(21), ...DENIAL], 'A policy denial\'s subcode is "BUDGET_MONTHLY_CAP", without the X_ prefix (SCHEMA_PATTERN /decision/subcode).'),
  t('receipt-schema-policy-without-prose', DENIAL_ONLY, [s(22), ...DENIAL], 'A PROTO_DENY_POLICY denial has its subcode but no prose (POLICY_DETAIL_MISSING /decision/prose).'),
  t('receipt-schema-prose-on-allowed', PAIRED, [s(23), ...SCHEMA], 'An allowed decision carries prose (SCHEMA_UNKNOWN_FIELD /decision/prose).'),
  t('receipt-schema-crit-without-object', DENIAL_ONLY, [s(24), ...DENIAL], 'A denial gives reason PROTO_DENY_UNKNOWN_CRIT and no crit_object (CRIT_OBJECT_MISSING).'),
  t('receipt-schema-crit-object-extra-member', DENIAL_ONLY, [s(25), ...DENIAL], 'A PROTO_DENY_UNKNOWN_CRIT denial\'s crit_object carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /decision/crit_object/note).'),
  t('receipt-schema-crit-object-on-policy', DENIAL_ONLY, [s(26), ...SCHEMA], 'A PROTO_DENY_POLICY denial also carries a crit_object (CRIT_OBJECT_UNEXPECTED).'),
  t('receipt-schema-bad-service-digest', PAIRED, [s(6), s(27), ...SCHEMA], 'decision["the service"] is a name, not a digest (BAD_DIGEST /decision/the service).'),
  t('receipt-schema-outcome-extra-member', OUTCOME_ONLY, [s(28), ...SCHEMA], 'outcome carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /outcome/note).'),
  t('receipt-schema-bad-status', OUTCOME_ONLY, [s(29), ...SCHEMA], 'outcome.status is "done" (SCHEMA_PATTERN /outcome/status).'),
  t('receipt-schema-bad-effects', OUTCOME_ONLY, [s(30), ...SCHEMA], 'outcome.effects is [1], not an array of strings (SCHEMA_TYPE /outcome/effects/0).'),
  t('receipt-schema-resolved-extra-member', OUTCOME_ONLY, [s(31), ...SCHEMA], 'outcome.resolved carries an extra member "note" (SCHEMA_UNKNOWN_FIELD /outcome/resolved/note).'),
  t('receipt-schema-gate-ref-on-gate', GATE_ONLY, [s(33), ...SCHEMA], 'The gate Receipt carries a gate member (GATE_REF_WITHOUT_OUTCOME).'),
  t('receipt-schema-approval-on-model-call', GATE_ONLY, [s(35), ...SCHEMA, 'RCPT-SIG-007'], 'The model.call gate carries an approval by the issuer key (APPROVAL_WRONG_VERB; the issuer is no approver: APPROVER_UNTRUSTED).'),
  t('receipt-schema-token-on-model-call', GATE_ONLY, [s(36), ...SCHEMA], 'The model.call gate carries a token (TOKEN_WRONG_VERB).'),
  t('receipt-schema-unknown-member', GATE_ONLY, [s(40), ...SCHEMA], 'The gate Receipt carries an unknown top-level member "note" (SCHEMA_UNKNOWN_FIELD /note).'),
  t('receipt-sig-kid-mismatch', GATE_ONLY, ['RCPT-SIG-002', 'RCPT-HTTP-006'], 'The gate Receipt\'s sig.kid names another key than iss; the signature is still by iss (SIG_KID_MISMATCH).'),
  t('receipt-sig-noncanonical-base64url', GATE_ONLY, ['RCPT-SIG-003', 'RCPT-HTTP-005', 'RCPT-HTTP-006'], 'The gate Receipt\'s sig.val has non-zero unused trailing bits: same 64 bytes, other text (NONCANONICAL_BASE64URL).'),
  t('receipt-sig-small-order-actor', PAIRED, ['RCPT-SIG-004', 'RCPT-HTTP-006'], 'Gate and outcome name as actor the did:key of a small-order point (KEY_INVALID).'),
  t('receipt-chain-second-genesis', GATE_ONLY, ['RCPT-CHAIN-001', 'RCPT-CHAIN-009', 'RCPT-HTTP-006'], 'A gate Receipt after the first has no prev (CHAIN_MULTIPLE_GENESIS; the served head is then unreachable: HEAD_MISMATCH).'),
  t('receipt-chain-prev-without-sig', GATE_ONLY, ['RCPT-CHAIN-003', 'RCPT-CHAIN-002', 'RCPT-CHAIN-009', 'RCPT-HTTP-006'], 'A gate Receipt\'s prev is the digest of the previous Receipt without its sig (PREV_DIGEST_FORM; it names no Receipt: CHAIN_BREAK, and the served head is then unreachable: HEAD_MISMATCH).'),
  t('receipt-chain-fork', GATE_ONLY, ['RCPT-CHAIN-004', 'RCPT-CHAIN-009', 'RCPT-HTTP-006'], 'A gate Receipt\'s prev is its predecessor\'s prev (CHAIN_FORK; the served head is then unreachable: HEAD_MISMATCH).'),
  t('receipt-chain-duplicate-id', GATE_ONLY, ['RCPT-CHAIN-005', 'RCPT-HTTP-006'], 'A gate Receipt reuses the previous Receipt\'s id (DUPLICATE_ID).'),
  t('receipt-issuer-rotated', GATE_ONLY, ['RCPT-CHAIN-008'], 'Gates are signed by a second service key, published beside the first in GET /v1/receipts/keys (ISSUER_CHANGED warning).'),
  t('receipt-pair-gate-not-found', OUTCOME_ONLY, ['RCPT-PAIR-001', 'RCPT-PAIR-009', 'RCPT-HTTP-006', 'RCPT-HTTP-008'], 'The outcome\'s gate is a well-formed digest of no Receipt (GATE_NOT_FOUND; the gate stays open).'),
  t('receipt-pair-gate-is-outcome', OUTCOME_ONLY, ['RCPT-PAIR-002', 'RCPT-PAIR-009', 'RCPT-HTTP-006', 'RCPT-HTTP-008'], 'The outcome\'s gate names the Receipt before its gate, the previous outcome (GATE_IS_OUTCOME).'),
  t('receipt-outcome-cost-differs', OUTCOME_ONLY, ['RCPT-HTTP-010'], 'The outcome\'s cost is one USD more than the spend the request added.'),
  t('receipt-pair-outcome-before-gate', OUTCOME_ONLY, ['RCPT-PAIR-006', 'RCPT-CHAIN-006', 'RCPT-HTTP-006'], 'The outcome\'s iat is one second before its gate\'s (PAIR_IAT_REGRESSION; the outcome follows its gate, so also IAT_REGRESSION).'),
  // Level 2/3 and stop.approve Receipts, which the mock issues only at other levels or never: the fault turns the feature on, broken in one way.
  t('receipt-l2-actor-sig-after-first', PAIRED, [s(39), 'RCPT-HTTP-006'], 'From the second completion on, acts carry a valid actor_sig (level 2); the chain\'s first gate and outcome carry none (L2_ACTOR_SIG_MISSING).', ['RCPT-SIG-006', 'RCPT-SIG-009']),
  t('receipt-l2-bad-actor-sig', PAIRED, ['RCPT-SIG-006', 'RCPT-HTTP-006'], 'Gates and outcomes carry an actor_sig by the actor over another grant id (ACTOR_SIG_INVALID).', [s(39), 'RCPT-SIG-009']),
  t('receipt-l3-context-on-gate-only', PAIRED, [s(38), 'RCPT-HTTP-006'], 'Gates and outcomes carry a valid actor_sig and gates a context digest (level 3), outcomes no context (L3_CONTEXT_MISSING).', [s(39), 'RCPT-SIG-006', 'RCPT-SIG-009']),
  t('receipt-stop-approve-approval-and-token', PAIRED, [s(37), ...SCHEMA, 'RCPT-SIG-007'], 'Gates and outcomes are stop.approve Receipts and the gate carries both an approval and a token (APPROVAL_AND_TOKEN; the issuer is no approver: APPROVER_UNTRUSTED).', ['RCPT-PAIR-008']),
  t('receipt-stop-approve-without-evidence', PAIRED, ['RCPT-PAIR-008', ...SCHEMA], 'Gates and outcomes are stop.approve Receipts and the allowed gate carries neither approval nor token (STOP_EVIDENCE_MISSING).'),
  t('receipt-stop-approve-bad-approval', PAIRED, ['RCPT-SIG-007', 'RCPT-HTTP-006'], 'Gates and outcomes are stop.approve Receipts and the gate\'s approval signs another act (APPROVAL_SIG_INVALID).', ['RCPT-PAIR-008']),
];

/** Keys-document and whole-issuer faults that are not a change to one Receipt. */
export const ReceiptIssuerFault = {
  keysBadShape: 'receipt-keys-bad-shape',
  outcomeOnDenial: 'receipt-outcome-on-denial',
  crossAccountCopy: 'receipt-cross-account-copy',
  listWithoutGrantId: 'receipt-list-without-grant-id',
} as const;

const issuerFaults: FaultDefinition[] = [
  { name: ReceiptIssuerFault.keysBadShape, kind: 'fault', breaks: ['RCPT-HTTP-002'], description: 'GET /v1/receipts/keys gives each key use "signing" instead of "issuer".' },
  { name: ReceiptIssuerFault.outcomeOnDenial, kind: 'fault', breaks: ['RCPT-PAIR-003', 'RCPT-HTTP-005', 'RCPT-HTTP-006', 'RCPT-HTTP-011'], description: 'A denied gate is followed by a failed outcome Receipt for it (OUTCOME_ON_DENIED, OUTCOME_WITHOUT_ALLOWED_GATE).' },
  { name: ReceiptIssuerFault.crossAccountCopy, kind: 'fault', breaks: ['RCPT-HTTP-012', 'RCPT-CHAIN-001', 'RCPT-CHAIN-009', 'RCPT-HTTP-006'], description: 'Every Receipt is also listed in every other account\'s GET /v1/receipts (whose chain then has a second genesis and an unreachable head: CHAIN_MULTIPLE_GENESIS, HEAD_MISMATCH on the capped account).' },
  { name: ReceiptIssuerFault.listWithoutGrantId, kind: 'fault', breaks: ['RCPT-HTTP-004'], description: 'After a chat request under this fault, the account\'s GET /v1/receipts mandate has no grant_id.' },
];

export const mutationFaults: readonly FaultDefinition[] = [
  ...receiptFaultTable.map((x): FaultDefinition => ({ name: x.name, kind: 'fault', breaks: x.breaks, description: x.description, ...(x.exercises === undefined ? {} : { exercises: x.exercises }) })),
  ...issuerFaults,
];
