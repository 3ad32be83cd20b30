import { describe, expect, it } from 'vitest';
import { effectiveGrade, gradeFor, gradeOf, requirementInfos } from './registry-view.ts';
import { loadRequirements } from './requirements-registry.ts';

describe('grades under a profile (spec/DECISIONS.md D-GRADE-04)', () => {
  it('keeps profile requirements INFO by default and raises them to SHOULD under strict; other sources keep their grade', () => {
    expect(effectiveGrade({ source: 'profile', grade: 'INFO' }, 'default')).toBe('INFO');
    expect(effectiveGrade({ source: 'profile', grade: 'INFO' }, 'strict')).toBe('SHOULD');
    expect(effectiveGrade({ source: 'seed', grade: 'MUST' }, 'strict')).toBe('MUST');
    expect(effectiveGrade({ source: 'compat', grade: 'INFO' }, 'strict')).toBe('INFO');
  });

  it('AUTH-009 (a profile choice) is INFO by default and SHOULD under strict; ERR-001 (compat) is MUST under both', () => {
    expect(gradeOf('AUTH-009')).toBe('INFO');
    expect(gradeFor('strict')('AUTH-009')).toBe('SHOULD');
    expect(gradeFor('default')('ERR-001')).toBe('MUST');
    expect(gradeFor('strict')('ERR-001')).toBe('MUST');
    expect(gradeFor('strict')('NOPE-001')).toBe('MUST');
  });

  it('changes exactly the profile requirements between the two profiles', () => {
    const strict = requirementInfos('strict');
    const changed = [...strict.values()].filter((r) => requirementInfos('default').get(r.id)?.grade !== r.grade).map((r) => r.id).sort();
    const profileIds = loadRequirements().filter((r) => r.source === 'profile').map((r) => r.id).sort();
    expect(changed).toEqual(profileIds);
    expect(changed.length).toBeGreaterThan(50);
  });
});
