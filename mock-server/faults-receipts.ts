// Receipt faults of the mock: each changes exactly one behaviour of the receipt issuer
// (mock-server/receipt-issuer.ts applies them). `breaks` lists the requirement IDs
// (spec/requirements.yaml) a correct check must fail while the fault is on; the verifier finding
// each one produces is in the description and asserted by mock-server/receipts.test.ts.
import type { FaultDefinition } from './core/fault-catalogue.ts';
import { mutationFaults } from './receipt-fault-table.ts';

export const ReceiptFault = {
  brokenPrev: 'receipt-broken-prev',
  badSignature: 'receipt-bad-signature',
  outcomeWithoutGate: 'receipt-outcome-without-gate',
  denialWithoutReason: 'receipt-denial-without-reason',
  policyDenialWithoutSubcode: 'receipt-policy-denial-without-subcode',
  wrongResolvedModel: 'receipt-wrong-resolved-model',
  missingOutcome: 'receipt-missing-outcome',
  duplicateOutcome: 'receipt-duplicate-outcome',
  iatBackwards: 'receipt-iat-backwards',
  unknownDecisionMember: 'receipt-unknown-decision-member',
  keysMismatch: 'receipt-keys-mismatch',
  wrongGateHeader: 'receipt-wrong-gate-header',
  missingResolved: 'receipt-missing-resolved',
  pairActMismatch: 'receipt-pair-act-mismatch',
  noncanonicalCost: 'receipt-noncanonical-cost',
} as const;

export type ReceiptFaultName = (typeof ReceiptFault)[keyof typeof ReceiptFault];

const f = (name: ReceiptFaultName, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });

export const receiptFaults: readonly FaultDefinition[] = [
  f(ReceiptFault.brokenPrev, ['RCPT-CHAIN-002', 'RCPT-CHAIN-009', 'RCPT-HTTP-006'], 'The gate Receipt\'s prev is a well-formed digest of no Receipt in the chain (CHAIN_BREAK; the served head is then unreachable: HEAD_MISMATCH).'),
  f(ReceiptFault.badSignature, ['RCPT-SIG-001', 'RCPT-HTTP-006'], 'The gate Receipt carries a well-formed Ed25519 signature by the issuer over other bytes (SIG_INVALID).'),
  f(ReceiptFault.outcomeWithoutGate, ['RCPT-SCHEMA-032', 'RCPT-HTTP-005', 'RCPT-HTTP-006', 'RCPT-HTTP-008', 'RCPT-PAIR-009'], 'The outcome Receipt has no gate member (GATE_REF_MISSING; its gate then looks open).'),
  f(ReceiptFault.denialWithoutReason, ['RCPT-SCHEMA-017', 'RCPT-HTTP-005', 'RCPT-HTTP-006', 'RCPT-HTTP-011'], 'A denied gate carries no reason (nor the subcode and prose that go with it) (REASON_MISSING).'),
  f(ReceiptFault.policyDenialWithoutSubcode, ['RCPT-SCHEMA-020', 'RCPT-HTTP-005', 'RCPT-HTTP-006', 'RCPT-HTTP-011'], 'A PROTO_DENY_POLICY denial has prose but no subcode (POLICY_DETAIL_MISSING).'),
  f(ReceiptFault.wrongResolvedModel, ['RCPT-HTTP-009'], 'The outcome\'s resolved.model names another model than the one that answered (the chain itself still verifies).'),
  f(ReceiptFault.missingOutcome, ['RCPT-HTTP-008', 'RCPT-PAIR-009'], 'A completion that ended appends no outcome Receipt: its gate stays open (GATE_OPEN, pairing check).'),
  f(ReceiptFault.duplicateOutcome, ['RCPT-PAIR-004', 'RCPT-HTTP-006', 'RCPT-HTTP-008'], 'A completion appends two outcome Receipts for the same gate (DUPLICATE_OUTCOME).'),
  f(ReceiptFault.iatBackwards, ['RCPT-CHAIN-006', 'RCPT-HTTP-006'], 'The gate Receipt\'s iat is one second before the previous Receipt\'s (IAT_REGRESSION).'),
  f(ReceiptFault.unknownDecisionMember, ['RCPT-SCHEMA-015', 'RCPT-HTTP-005', 'RCPT-HTTP-006'], 'decision carries an extra member "note" (SCHEMA_UNKNOWN_FIELD).'),
  f(ReceiptFault.keysMismatch, ['RCPT-SIG-005', 'RCPT-HTTP-006'], 'GET /v1/receipts/keys advertises a different key than the one that signs the Receipts (ISSUER_UNTRUSTED against the published keys).'),
  f(ReceiptFault.wrongGateHeader, ['RCPT-HTTP-007'], 'The x-receipt-gate header names a digest that is not the request\'s gate Receipt (the chain itself still verifies).'),
  f(ReceiptFault.missingResolved, ['RCPT-SCHEMA-034', 'RCPT-PAIR-007', 'RCPT-HTTP-005', 'RCPT-HTTP-006'], 'A model.call outcome has no resolved member (RESOLVED_MISSING; the outcome still pairs with its gate).'),
  f(ReceiptFault.pairActMismatch, ['RCPT-PAIR-005', 'RCPT-HTTP-006'], 'The outcome\'s act names another resource than its gate\'s act (PAIR_ACT_MISMATCH).'),
  f(ReceiptFault.noncanonicalCost, ['RCPT-SCHEMA-010', 'RCPT-HTTP-005', 'RCPT-HTTP-006'], 'The gate\'s cost amount has a trailing zero, e.g. "0.000120" (NONCANONICAL_DECIMAL).'),
  // One rule each, table-driven (receipt-fault-table.ts).
  ...mutationFaults,
];
