import { describe, expect, it } from 'vitest';
import { ALL_FINDING_CODES } from '../../receipts/index.ts';
import { requirementIdsOfFinding } from './receipt-finding-ids.ts';
import { requirementInfos } from './registry-view.ts';

// Findings that need payloads or evidence the harness does not hold over HTTP.
const unmapped = new Set(['CONTEXT_DIGEST_MISMATCH', 'IO_DIGEST_MISMATCH', 'UNKNOWN_DENY_REASON', 'TOKEN_UNVERIFIED']);

describe('requirementIdsOfFinding', () => {
  it('maps every verifier finding code to registered requirement IDs (except payload-only ones)', () => {
    const registry = requirementInfos();
    for (const code of ALL_FINDING_CODES) {
      const ids = requirementIdsOfFinding({ code, pointer: '/decision/result' });
      if (unmapped.has(code)) continue;
      expect(ids.length, code).toBeGreaterThan(0);
      for (const id of ids) expect(registry.has(id), `${code} -> ${id}`).toBe(true);
    }
  });

  it('decides schema findings by where they point', () => {
    expect(requirementIdsOfFinding({ code: 'SCHEMA_UNKNOWN_FIELD', pointer: '/decision/note' })).toEqual(['RCPT-SCHEMA-015']);
    expect(requirementIdsOfFinding({ code: 'SCHEMA_UNKNOWN_FIELD', pointer: '/extra' })).toEqual(['RCPT-SCHEMA-040']);
    expect(requirementIdsOfFinding({ code: 'SCHEMA_MISSING_FIELD', pointer: '/sig' })).toEqual(['RCPT-SCHEMA-008']);
    expect(requirementIdsOfFinding({ code: 'SCHEMA_MISSING_FIELD', pointer: '/iat' })).toEqual(['RCPT-SCHEMA-001']);
    expect(requirementIdsOfFinding({ code: 'SCHEMA_PATTERN', pointer: '/decision/subcode' })).toEqual(['RCPT-SCHEMA-021']);
    expect(requirementIdsOfFinding({ code: 'SCHEMA_MISSING_FIELD', pointer: '/decision/subcode' })).toEqual(['RCPT-SCHEMA-020']);
  });

  it('RCPT-SCHEMA-023: counts a subcode or prose the reason does not allow against the detail rule, not the pattern or presence rules', () => {
    expect(requirementIdsOfFinding({ code: 'SCHEMA_UNKNOWN_FIELD', pointer: '/decision/subcode' })).toEqual(['RCPT-SCHEMA-023']);
    expect(requirementIdsOfFinding({ code: 'SCHEMA_UNKNOWN_FIELD', pointer: '/decision/prose' })).toEqual(['RCPT-SCHEMA-023']);
    expect(requirementIdsOfFinding({ code: 'POLICY_DETAIL_MISSING', pointer: '/decision/prose' })).toEqual(['RCPT-SCHEMA-022']);
  });

  it('RCPT-SCHEMA-027: counts a malformed "the service" digest against the digest rule and the "the service" rule', () => {
    expect(requirementIdsOfFinding({ code: 'BAD_DIGEST', pointer: '/decision/the service' })).toEqual(['RCPT-SCHEMA-006', 'RCPT-SCHEMA-027']);
    expect(requirementIdsOfFinding({ code: 'BAD_DIGEST', pointer: '/prev' })).toEqual(['RCPT-SCHEMA-006']);
  });

  it('counts a missing resolved against both the schema rule and the pairing rule', () => {
    expect(requirementIdsOfFinding({ code: 'RESOLVED_MISSING', pointer: '/outcome' })).toEqual(['RCPT-SCHEMA-034', 'RCPT-PAIR-007']);
  });
});
