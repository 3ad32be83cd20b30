import { describe, expect, it } from 'vitest';
import { loadRequirements } from './requirements-registry.ts';
import { streamRuleCodes } from '../../protocols/chat-completions/stream-rules.ts';
import { idsOfRules, streamRuleIds } from './stream-rule-ids.ts';

describe('stream rule table', () => {
  const registry = new Set(loadRequirements().map((r) => r.id));

  it.each(streamRuleCodes)('rule %s decides a requirement of spec/requirements.yaml', (code) => {
    expect(registry.has(streamRuleIds[code]), `${streamRuleIds[code]} is not in spec/requirements.yaml`).toBe(true);
  });

  it('idsOfRules names each requirement once, in the order of the rules', () => {
    expect(idsOfRules(['empty-data', 'non-json-data', 'done-missing'])).toEqual([streamRuleIds['empty-data'], streamRuleIds['done-missing']]);
  });
});
