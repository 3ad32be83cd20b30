// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('errors', () => {
  it('ERR-001, ERR-002, ERR-003, ERR-004, ERR-005, ERR-008, ERR-009: error responses are JSON {"error":{message,type,param,code}} with string-or-null param and code, and 400s are invalid_request_error', runs('errors-body-shape'));
  it('ERR-001, ERR-006: generated invalid requests (missing fields, wrong types, out-of-range values) answer 4xx with an error body, never 5xx', runs('errors-negative-inputs'));
  it('ERR-007: the same invalid request gets the same status three times', runs('errors-same-status'));
  it('ERR-010: a chat body over 1 MiB is refused with 413 request_too_large (or 400)', runs('errors-body-too-large'));
  it('ERR-011: a chat body sent as text/plain is refused with 415 unsupported_media_type (or 400)', runs('errors-unsupported-media-type'));
  it('ERR-012: an unknown route answers 404', runs('errors-unknown-route'));
  it('ERR-013: a JSON body that is an array, a string or null answers 400', runs('errors-non-object-body'));
  it('ERR-014: messages as a string or stream as "yes" answers 400 naming the field', runs('errors-wrong-type-field'));
  it('ERR-015: every 5xx seen during the run carries the same four-member error body', runs('errors-server-error-shape'));
});
