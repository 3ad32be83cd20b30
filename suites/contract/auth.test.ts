// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('auth', () => {
  it('AUTH-001, AUTH-002, AUTH-003, AUTH-006, AUTH-007: private routes refuse missing, unknown, malformed and non-Bearer credentials', runs('auth-rejects'));
  it('AUTH-008, AUTH-009, AUTH-010, AUTH-011: authentication failures answer 401 as OpenAI does (invalid_request_error, invalid_api_key for an unknown token) with WWW-Authenticate Bearer and never echo the token', runs('auth-401-shape'));
  it('AUTH-004: GET /v1/models answers the model list without credentials', runs('auth-models-public'));
  it('AUTH-005: a valid bearer token is accepted on /v1/me', runs('auth-valid-token'));
  it('AUTH-012: tokens of two accounts see two different users', runs('auth-own-account'));
  it('AUTH-013: an unknown route answers 404 with and without credentials', runs('auth-unknown-route'));
});
