// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('usage', () => {
  it('USAGE-001, USAGE-002, USAGE-003, USAGE-006, USAGE-007, USAGE-008, USAGE-009: GET /v1/me/usage answers 30 consecutive zero-filled UTC day rows ending today, each with consistent counts', runs('usage-shape'));
  it('USAGE-004: days=1, 7 and 90 answer exactly that many rows', runs('usage-days'));
  it('USAGE-005: days=0, 91, -1, 1.5 and abc answer 400 invalid_request_error naming days', runs('usage-days-invalid'));
  it('USAGE-010, USAGE-011, USAGE-012: the current month’s daily rows sum to /v1/me requests_this_month, tokens_this_month and spend_usd', runs('usage-month-sums'));
  it('ME-024, ME-025, USAGE-013: one small completion adds exactly its usage to /v1/me and to today’s row of /v1/me/usage', runs('usage-growth'));
  it('USAGE-014: a streamed completion with include_usage is counted exactly like its usage chunk', runs('usage-stream-growth'));
  it('USAGE-015: requests answered 4xx (401, 400, 404) leave requests, tokens and spend unchanged', runs('usage-rejected-not-counted'));
});
