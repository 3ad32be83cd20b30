import { describe, expect, it } from 'vitest';
import { checkCreatedNear, checkSemanticRules, checkUsageSum } from './semantic-rules.ts';

describe('semantic rules beyond JSON Schema', () => {
  it('CHAT-016: accepts a usage whose total is the sum of its parts', () => {
    expect(checkUsageSum({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 })).toEqual({ ok: true });
  });

  it('CHAT-016: rejects total_tokens that is not the sum, pointing at total_tokens', () => {
    const r = checkSemanticRules('ChatCompletion', { usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 16 } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual([expect.objectContaining({ pointer: '/usage/total_tokens', keyword: 'sum' })]);
  });

  it('CHAT-STREAM-029: checks the usage chunk the same way', () => {
    const r = checkSemanticRules('UsageChunk', { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 3 } });
    expect(r.ok).toBe(false);
  });

  it('USAGE-009: points at the daily row whose total is wrong', () => {
    const rows = [
      { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      { prompt_tokens: 5, completion_tokens: 5, total_tokens: 11 },
    ];
    const r = checkSemanticRules('DailyUsage', { data: rows });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.pointer)).toEqual(['/data/1/total_tokens']);
  });

  it('leaves type errors to the schema (non-integers are not judged here)', () => {
    expect(checkUsageSum({ prompt_tokens: '1', completion_tokens: 1, total_tokens: 5 })).toEqual({ ok: true });
  });

  it('CHAT-006: accepts created within a day of now and rejects one a year off', () => {
    const now = 1_763_712_000;
    expect(checkCreatedNear(now - 60, now).ok).toBe(true);
    const far = checkCreatedNear(now - 365 * 86_400, now);
    expect(far.ok).toBe(false);
    if (!far.ok) expect(far.errors[0]?.pointer).toBe('/created');
  });
});
