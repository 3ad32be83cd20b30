// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('receipts', () => {
  it('RCPT-HTTP-001, RCPT-HTTP-002: GET /v1/receipts/keys answers 200 with the issuer keys document or 404 when receipts are not offered', runs('receipts-discovery'));
  it('RCPT-HTTP-003: GET /v1/receipts without a token answers 401', runs('receipts-list-auth'));
  it('RCPT-HTTP-004: GET /v1/receipts answers {"object":"list","mandate":{id,grant_id,actor},"head","data":[...]}', runs('receipts-list-shape'));
  it('RCPT-HTTP-005, RCPT-SCHEMA-001, RCPT-SCHEMA-002, RCPT-SCHEMA-003, RCPT-SCHEMA-004, RCPT-SCHEMA-005, RCPT-SCHEMA-006, RCPT-SCHEMA-007, RCPT-SCHEMA-008, RCPT-SCHEMA-009, RCPT-SCHEMA-010, RCPT-SCHEMA-011, RCPT-SCHEMA-012, RCPT-SCHEMA-013, RCPT-SCHEMA-014, RCPT-SCHEMA-015, RCPT-SCHEMA-016, RCPT-SCHEMA-017, RCPT-SCHEMA-018, RCPT-SCHEMA-019, RCPT-SCHEMA-020, RCPT-SCHEMA-021, RCPT-SCHEMA-022, RCPT-SCHEMA-023, RCPT-SCHEMA-024, RCPT-SCHEMA-025, RCPT-SCHEMA-026, RCPT-SCHEMA-027, RCPT-SCHEMA-028, RCPT-SCHEMA-029, RCPT-SCHEMA-030, RCPT-SCHEMA-031, RCPT-SCHEMA-032, RCPT-SCHEMA-033, RCPT-SCHEMA-034, RCPT-SCHEMA-035, RCPT-SCHEMA-036, RCPT-SCHEMA-037, RCPT-SCHEMA-038, RCPT-SCHEMA-039, RCPT-SCHEMA-040, RCPT-SCHEMA-041: every served Receipt passes the Receipt schema and its rules', runs('receipts-schema'));
  it('RCPT-SIG-001, RCPT-SIG-002, RCPT-SIG-003, RCPT-SIG-004, RCPT-SIG-005, RCPT-SIG-006, RCPT-SIG-007, RCPT-SIG-008, RCPT-SIG-009: served Receipts are signed by a published issuer key over JCS bytes with canonical encodings', runs('receipts-signatures'));
  it('RCPT-HTTP-006, RCPT-CHAIN-001, RCPT-CHAIN-002, RCPT-CHAIN-003, RCPT-CHAIN-004, RCPT-CHAIN-005, RCPT-CHAIN-006, RCPT-CHAIN-007, RCPT-CHAIN-008, RCPT-CHAIN-009: the served chain verifies as one hash-linked chain under the published keys and its head is the last Receipt', runs('receipts-chain'));
  it('RCPT-PAIR-001, RCPT-PAIR-002, RCPT-PAIR-003, RCPT-PAIR-004, RCPT-PAIR-005, RCPT-PAIR-006, RCPT-PAIR-007, RCPT-PAIR-008, RCPT-PAIR-009: every served outcome points at an earlier allowed gate of the same chain that agrees with it', runs('receipts-pairing'));
  it('RCPT-HTTP-007, RCPT-HTTP-008, RCPT-HTTP-009, RCPT-HTTP-010: each completion appends one allowed gate named by x-receipt-gate and one outcome with the answering model and the spend it cost', runs('receipts-completion'));
  it('RCPT-HTTP-012: two accounts see two different mandates and none of each other’s Receipts', runs('receipts-isolation'));
  it('RCPT-HTTP-013: requests answered 4xx append no allowed gate and no outcome', runs('receipts-rejected'));
  it('RCPT-HTTP-011: a request refused for the monthly spend cap appends a PROTO_DENY_POLICY X_BUDGET_MONTHLY_CAP gate with prose and no outcome', runs('receipts-denial'));
});
