// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('me', () => {
  it('ME-001, ME-002, ME-003, ME-004, ME-005, ME-006, ME-007, ME-008, ME-009, ME-010, ME-011, ME-012, ME-013, ME-014, ME-015, ME-016, ME-017, ME-018, ME-019, ME-020, ME-021, ME-022, ME-023: GET /v1/me answers the current user with exactly the seed’s typed fields', runs('me-shape'));
});
