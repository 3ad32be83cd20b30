import { describe, expect, it } from 'vitest';
import { requirementsOf } from './requirements-registry.ts';
import { ruleGrades } from './registry-view.ts';
import { defaultProtocols } from '../../protocols/registry.ts';
import { idsOfRules, streamRules } from '../../protocols/chat-completions/stream-rules.ts';

describe('the rule tables of the shipped protocols', () => {
  const registry = new Set(requirementsOf().map((r) => r.id));
  const rows = defaultProtocols.flatMap((p) => Object.entries(p.rules).map(([code, rule]) => [p.name, code, rule.requirement] as const));

  it.each(rows)('%s rule %s decides %s, a requirement of spec/requirements.yaml', (_, __, id) => {
    expect(registry.has(id)).toBe(true);
  });

  it('every capability of every protocol names registered requirements', () => {
    const caps = defaultProtocols.flatMap((p) => [...(p.capability === undefined ? [] : [p.capability]), ...(p.capabilities ?? [])]);
    expect(caps.flatMap((c) => c.ids).filter((id) => !registry.has(id))).toEqual([]);
  });

  it('idsOfRules names each requirement once, in the order of the rules', () => {
    expect(idsOfRules(['empty-data', 'non-json-data', 'done-missing'])).toEqual([streamRules['empty-data'].requirement, streamRules['done-missing'].requirement]);
  });

  it('a rule grades as its requirement; an unknown rule is MUST (fail closed)', () => {
    const grade = ruleGrades();
    const chat = defaultProtocols[0];
    expect(grade(chat, 'done-missing')).toBe('MUST');
    expect(grade(chat, 'comment-lines')).toBe('INFO');
    expect(grade(chat, 'no-such-rule')).toBe('MUST');
  });
});
