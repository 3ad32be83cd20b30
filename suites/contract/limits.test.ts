// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('limits', () => {
  it('LIMIT-001, LIMIT-002, LIMIT-003, LIMIT-004, LIMIT-007, LIMIT-008: more than requests_per_minute requests get 429 rate_limit_exceeded with Retry-After and x-ratelimit headers, are not counted, and succeed again after Retry-After', runs('limits-requests-per-minute'));
  it('LIMIT-005: requests whose tokens exceed tokens_per_minute get 429 rate_limit_exceeded', runs('limits-tokens-per-minute'));
  it('LIMIT-006: an account at its monthly spend cap gets 429 insufficient_quota', runs('limits-spend-cap'));
  it('LIMIT-009, LIMIT-010: a 429 met during the run lifts after the wait the server asks for and never comes before the limits /v1/me reports', runs('limits-met-during-run'));
});
