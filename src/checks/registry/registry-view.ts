import type { Grade, Profile, Source } from '../kernel/verdicts.ts';
import { requirementsOf } from './requirements-registry.ts';
import { defaultProtocols, type ProtocolList } from '../../protocols/registry.ts';
import type { Protocol } from '../../protocols/protocol.ts';

/** The registry facts a report needs about one requirement. */
export interface RequirementInfo {
  id: string;
  grade: Grade;
  title: string;
}

const caches = new WeakMap<ProtocolList, Map<Profile, Map<string, RequirementInfo>>>();

/**
 * The grade a requirement is judged by under a profile (spec/DECISIONS.md D-GRADE-04): a `profile`
 * requirement is INFO in the registry, and `--profile strict` raises it to SHOULD.
 */
export function effectiveGrade(r: { source: Source; grade: Grade }, profile: Profile): Grade {
  return profile === 'strict' && r.source === 'profile' ? 'SHOULD' : r.grade;
}

/** The registry as the checks need it: ID, grade (under the profile, default `default`) and title; with the requirements `protocols` bring. */
export function requirementInfos(profile: Profile = 'default', protocols: ProtocolList = defaultProtocols): Map<string, RequirementInfo> {
  let byProfile = caches.get(protocols);
  if (byProfile === undefined) caches.set(protocols, (byProfile = new Map()));
  let cache = byProfile.get(profile);
  if (cache === undefined) {
    cache = new Map();
    for (const r of requirementsOf(protocols)) cache.set(r.id, { id: r.id, grade: effectiveGrade(r, profile), title: r.title });
    byProfile.set(profile, cache);
  }
  return cache;
}

/** The grade of a registered requirement under the default profile; an unregistered ID is treated as MUST (fail-closed). */
export function gradeOf(id: string): Grade {
  return requirementInfos().get(id)?.grade ?? 'MUST';
}

/** `gradeOf` for a profile and the requirements of a protocol list. */
export function gradeFor(profile: Profile, protocols: ProtocolList = defaultProtocols): (id: string) => Grade {
  if (profile === 'default' && protocols === defaultProtocols) return gradeOf;
  const infos = requirementInfos(profile, protocols);
  return (id) => infos.get(id)?.grade ?? 'MUST';
}

/**
 * The registry grade (default profile) of the requirement a protocol's rule decides: what a load
 * run reads to call an answer nonconforming (a MUST finding). An unknown rule is MUST (fail closed).
 * The checks never grade here: the judge does.
 */
export function ruleGrades(protocols: ProtocolList = defaultProtocols): (protocol: Pick<Protocol, 'rules'>, rule: string) => Grade {
  const grade = gradeFor('default', protocols);
  return (protocol, rule) => {
    const id = protocol.rules[rule]?.requirement;
    return id === undefined ? 'MUST' : grade(id);
  };
}
