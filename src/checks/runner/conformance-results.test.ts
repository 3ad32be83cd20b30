import { describe, expect, it } from 'vitest';
import { buildResults, compareIds, coverageOf, deselectionReason, noTokenHeadline, runOutcome, summarize, type RequirementInfo } from './conformance-results.ts';

const reqs: RequirementInfo[] = [
  { id: 'CHAT-STREAM-010', grade: 'MUST', title: 'b' },
  { id: 'CHAT-002', grade: 'SHOULD', title: 'a' },
  { id: 'CHAT-010', grade: 'INFO', title: 'c' },
  { id: 'AUTH-001', grade: 'MUST', title: 'd' },
];
const all = { grade: 'all', only: [], skip: [] } as const;

describe('buildResults', () => {
  it('sorts by area then number, numerically', () => {
    expect([...reqs].sort((a, b) => compareIds(a.id, b.id)).map((r) => r.id)).toEqual(['AUTH-001', 'CHAT-002', 'CHAT-010', 'CHAT-STREAM-010']);
  });

  it('folds several checks into one result per requirement, worst verdict first, and skips what no check exercised', () => {
    const results = buildResults(
      reqs,
      [
        { title: 'AUTH-001, CHAT-002: x', ids: ['AUTH-001', 'CHAT-002'], outcomes: [{ id: 'AUTH-001', verdict: 'pass' }, { id: 'CHAT-002', verdict: 'pass' }], durationMs: 4 },
        { title: 'CHAT-002: y', ids: ['CHAT-002'], outcomes: [{ id: 'CHAT-002', verdict: 'non-strict', failures: [{ message: 'm' }] }], durationMs: 2 },
      ],
      all,
    );
    expect(results.map((r) => [r.id, r.verdict])).toEqual([
      ['AUTH-001', 'pass'],
      ['CHAT-002', 'non-strict'],
      ['CHAT-010', 'skipped'],
      ['CHAT-STREAM-010', 'skipped'],
    ]);
    expect(results[1]?.checks).toEqual(['AUTH-001, CHAT-002: x', 'CHAT-002: y']);
    expect(summarize(results)).toMatchObject({ pass: 1, 'non-strict': 1, skipped: 2, total: 4 });
  });

  it('marks requirements outside --grade, --only and --skip as skipped with the reason', () => {
    expect(deselectionReason(reqs[2] as RequirementInfo, { grade: 'should', only: [], skip: [] })).toBe('not selected (--grade should)');
    expect(deselectionReason(reqs[1] as RequirementInfo, { grade: 'must', only: [], skip: [] })).toBe('not selected (--grade must)');
    expect(deselectionReason(reqs[0] as RequirementInfo, { grade: 'all', only: ['AUTH-001'], skip: [] })).toBe('not selected (--only)');
    expect(deselectionReason(reqs[3] as RequirementInfo, { grade: 'all', only: [], skip: ['AUTH-001'] })).toBe('excluded by --skip');
    expect(deselectionReason(reqs[3] as RequirementInfo, all)).toBeUndefined();
  });

  it('lists unexercised requirements in ID order', () => {
    expect(coverageOf(reqs, new Set(['AUTH-001']))).toEqual({ exercised: 1, registry: 4, unexercised: ['CHAT-002', 'CHAT-010', 'CHAT-STREAM-010'] });
  });
});

describe('runOutcome', () => {
  const summary = (fail: number, undecided = 0) => ({ ...summarize([]), fail, undecided });
  it('AUTH-001: a run that sent no token without --no-token is undecided (exit 4), never passed; with --no-token it passes; a failure still fails it', () => {
    expect(runOutcome({ summary: summary(0) })).toBe('passed');
    expect(runOutcome({ summary: summary(0), run: { noToken: 'implicit' } })).toBe('undecided');
    expect(runOutcome({ summary: summary(0), run: { noToken: 'accepted' } })).toBe('passed');
    expect(runOutcome({ summary: summary(1), run: { noToken: 'implicit' } })).toBe('failed');
    expect(runOutcome({ summary: summary(0, 2), run: { noToken: 'accepted' } })).toBe('undecided');
    expect(noTokenHeadline({ run: { noToken: 'implicit' } })).toMatch(/^no token: AUTH, ME, USAGE, RCPT.* not tested.*pass --no-token to accept this$/);
    expect(noTokenHeadline({ run: { noToken: 'accepted' } })).toMatch(/^no token: auth not tested \(--no-token\)/);
    expect(noTokenHeadline({ run: {} })).toBeUndefined();
  });
});
