import type { Grade, Profile, Source } from '../kernel/verdicts.ts';
import { loadRequirements } from './requirements-registry.ts';

/** The registry facts a report needs about one requirement. */
export interface RequirementInfo {
  id: string;
  grade: Grade;
  title: string;
}

const caches = new Map<Profile, Map<string, RequirementInfo>>();

/**
 * The grade a requirement is judged by under a profile (spec/DECISIONS.md D-GRADE-04): a `profile`
 * requirement is INFO in the registry, and `--profile strict` raises it to SHOULD.
 */
export function effectiveGrade(r: { source: Source; grade: Grade }, profile: Profile): Grade {
  return profile === 'strict' && r.source === 'profile' ? 'SHOULD' : r.grade;
}

/** The registry as the checks need it: ID, grade (under the profile, default `default`) and title. */
export function requirementInfos(profile: Profile = 'default'): Map<string, RequirementInfo> {
  let cache = caches.get(profile);
  if (cache === undefined) {
    cache = new Map();
    for (const r of loadRequirements()) cache.set(r.id, { id: r.id, grade: effectiveGrade(r, profile), title: r.title });
    caches.set(profile, cache);
  }
  return cache;
}

/** The grade of a registered requirement under the default profile; an unregistered ID is treated as MUST (fail-closed). */
export function gradeOf(id: string): Grade {
  return requirementInfos().get(id)?.grade ?? 'MUST';
}

/** `gradeOf` for a profile. */
export function gradeFor(profile: Profile): (id: string) => Grade {
  if (profile === 'default') return gradeOf;
  const infos = requirementInfos(profile);
  return (id) => infos.get(id)?.grade ?? 'MUST';
}
