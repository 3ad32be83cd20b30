import { describe, expect, it } from 'vitest';
import { Judge, mergeOutcomes } from './judge.ts';
import type { Grade } from './verdicts.ts';

const grades: Record<string, Grade> = { 'A-001': 'MUST', 'A-002': 'SHOULD', 'A-003': 'INFO' };
const gradeOf = (id: string): Grade => grades[id] ?? 'MUST';

describe('Judge', () => {
  it('fails an ID that no judgement reached (fail-closed)', () => {
    const j = new Judge(['A-001', 'A-002'], gradeOf);
    j.pass('A-001');
    expect(j.outcomes().map((o) => o.verdict)).toEqual(['pass', 'fail']);
  });

  it('grades a violation by the requirement: MUST fails, SHOULD is non-strict, INFO is informational', () => {
    const j = new Judge(['A-001', 'A-002', 'A-003'], gradeOf);
    for (const id of ['A-001', 'A-002', 'A-003']) j.violated(id, { message: `broken ${id}` });
    expect(j.outcomes().map((o) => o.verdict)).toEqual(['fail', 'non-strict', 'informational']);
  });

  it('lets the worst judgement win and keeps the failures', () => {
    const j = new Judge(['A-001'], gradeOf);
    j.pass('A-001');
    j.violated('A-001', { message: 'one' });
    j.pass('A-001');
    const [o] = j.outcomes();
    expect(o).toEqual({ id: 'A-001', verdict: 'fail', failures: [{ message: 'one' }] });
  });

  it('keeps a breach of an INFO requirement on one sample informational although another sample passed (D-GRADE-04)', () => {
    const j = new Judge(['A-003'], gradeOf);
    j.pass('A-003');
    j.violated('A-003', { message: 'profile choice not followed' });
    j.pass('A-003');
    expect(j.outcomes()[0]).toEqual({ id: 'A-003', verdict: 'informational', note: 'profile choice not followed' });
    expect(mergeOutcomes('A-003', [{ id: 'A-003', verdict: 'pass' }, { id: 'A-003', verdict: 'informational', note: 'n' }]).verdict).toBe('informational');
  });

  it('fails an exception-hit ID whatever its grade', () => {
    const j = new Judge(['A-002'], gradeOf);
    j.failRest({ message: 'timeout' });
    expect(j.outcomes()[0]?.verdict).toBe('fail');
  });

  it('never fails an INFO requirement: one hit by an exception or left without a verdict is skipped as not decided', () => {
    const hit = new Judge(['A-001', 'A-003'], gradeOf);
    hit.failRest({ message: 'request failed: connect ECONNREFUSED' });
    expect(hit.outcomes()).toEqual([
      { id: 'A-001', verdict: 'fail', failures: [{ message: 'request failed: connect ECONNREFUSED' }] },
      { id: 'A-003', verdict: 'skipped', reason: 'not decided: request failed: connect ECONNREFUSED' },
    ]);
    expect(new Judge(['A-003'], gradeOf).outcomes()[0]?.verdict).toBe('skipped');
  });

  it('refuses a judgement on an ID the check does not declare', () => {
    const j = new Judge(['A-001'], gradeOf);
    expect(() => j.pass('A-002')).toThrow(/does not declare/);
  });

  it('merges outcomes of several checks worst-first', () => {
    expect(mergeOutcomes('A-001', [{ id: 'A-001', verdict: 'skipped', reason: 'x' }, { id: 'A-001', verdict: 'pass' }]).verdict).toBe('pass');
    expect(mergeOutcomes('A-001', [{ id: 'A-001', verdict: 'pass' }, { id: 'A-001', verdict: 'non-strict', failures: [{ message: 'm' }] }]).verdict).toBe('non-strict');
    expect(mergeOutcomes('A-001', []).verdict).toBe('fail');
  });
});
