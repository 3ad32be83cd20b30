// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('headers', () => {
  it('HDR-001, HDR-002: every response, errors and streams included, carries an x-request-id of the form req_<24+ hex>', runs('headers-request-id'));
  it('HDR-003: ten requests get ten distinct x-request-id values', runs('headers-request-id-unique'));
  it('HDR-004, HDR-005, HDR-006, HDR-007: x-ratelimit-* headers, where present, are well-formed integers and Go durations that agree with /v1/me limits', runs('headers-rate-limit'));
  it('HDR-008: non-streaming 200 responses declare Content-Type application/json', runs('headers-json-content-type'));
  it('HDR-009, HDR-010: endpoints answer under the /v1 prefix and not as unversioned aliases', runs('headers-v1-prefix'));
  it('HDR-011: retry-after-ms, where present, is a non-negative number', runs('headers-retry-after-ms'));
});
