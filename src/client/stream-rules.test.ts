import { describe, expect, it } from 'vitest';
import { loadRequirements } from '../checks/registry/requirements-registry.ts';
import { severityOfGrade, streamRuleCodes, streamRules } from './stream-rules.ts';

describe('stream rule table', () => {
  const registry = new Map(loadRequirements().map((r) => [r.id, r]));

  it.each(streamRuleCodes)('rule %s names a registry requirement with the same grade', (code) => {
    const rule = streamRules[code];
    const req = registry.get(rule.requirementId);
    expect(req, `${rule.requirementId} is not in spec/requirements.yaml`).toBeDefined();
    expect(rule.grade).toBe(req?.grade);
  });

  it('maps MUST to fail, SHOULD to non-strict and INFO to informational', () => {
    expect([severityOfGrade('MUST'), severityOfGrade('SHOULD'), severityOfGrade('INFO')]).toEqual(['fail', 'non-strict', 'informational']);
  });
});
