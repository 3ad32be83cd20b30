import type { Grade } from './verdicts.ts';
import type { RequirementInfo } from './conformance-results.ts';
import { loadRequirements } from './requirements-registry.ts';

let cache: Map<string, RequirementInfo> | undefined;

/** The registry as the checks need it: ID, grade and one-line expectation. */
export function requirementInfos(): Map<string, RequirementInfo> {
  if (cache === undefined) {
    cache = new Map();
    for (const r of loadRequirements()) cache.set(r.id, { id: r.id, grade: r.grade, title: r.title });
  }
  return cache;
}

/** The grade of a registered requirement; an unregistered ID is treated as MUST (fail-closed). */
export function gradeOf(id: string): Grade {
  return requirementInfos().get(id)?.grade ?? 'MUST';
}
