// The conformance half of `iari report compare`: requirement verdicts of two conformance.json files.
import type { Verdict } from '../checks/kernel/verdicts.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';

type Side = Verdict | 'absent';

export interface ConformanceDiff {
  /** Failing now (verdict fail), not failing in the base run (neither fail nor known). */
  newFail: string[];
  /** Failing in the base run (fail or known), tested and not failing now (pass, non-strict, informational). */
  fixed: string[];
  /** Every requirement whose verdict differs, with both verdicts ("absent" when a run lacks the ID). */
  changed: { id: string; base: Side; new: Side }[];
  /**
   * Tested on one side and not on the other (skipped, undecided or absent): a new failure or a fix there
   * cannot be ruled out, so gates count them as "could be" (conformance-gates.ts).
   */
  untested: { id: string; base: Side; new: Side }[];
  summary: { base: ConformanceReport['summary']; new: ConformanceReport['summary'] };
}

/** A listed known failure (iari test --baseline) still fails: fail -> known is not fixed, known -> fail is not new. */
export const failing = (v: Side): boolean => v === 'fail' || v === 'known';
/** Undecided (the run's deadline, 429s after waiting) was selected but not tested: like skipped here. */
export const tested = (v: Side): boolean => v !== 'skipped' && v !== 'undecided' && v !== 'absent';

export function compareConformance(base: ConformanceReport, next: ConformanceReport, order: (a: string, b: string) => number): ConformanceDiff {
  const a = new Map(base.results.map((r) => [r.id, r.verdict]));
  const b = new Map(next.results.map((r) => [r.id, r.verdict]));
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort(order);
  const diff: ConformanceDiff = { newFail: [], fixed: [], changed: [], untested: [], summary: { base: base.summary, new: next.summary } };
  for (const id of ids) {
    const va: Side = a.get(id) ?? 'absent';
    const vb: Side = b.get(id) ?? 'absent';
    if (va === vb) continue;
    diff.changed.push({ id, base: va, new: vb });
    if (tested(va) !== tested(vb)) diff.untested.push({ id, base: va, new: vb });
    if (vb === 'fail' && !failing(va)) diff.newFail.push(id);
    else if (failing(va) && tested(vb) && !failing(vb)) diff.fixed.push(id);
  }
  return diff;
}

/**
 * The count a conformance gate reads, as an interval: `low` what is certain, `high` what it could
 * be had the untested requirements been run (`could` names them).
 */
export function conformanceCount(diff: ConformanceDiff, key: 'conformance.new_fail' | 'conformance.fixed' | 'conformance.changed'): { low: number; high: number; ids: string[]; could: string[] } {
  if (key === 'conformance.changed') {
    const ids = diff.changed.map((c) => c.id);
    return { low: ids.length, high: ids.length, ids, could: [] };
  }
  if (key === 'conformance.new_fail') {
    // Passing before and not tested now: it could fail. Not tested before and failing now is in newFail.
    const could = diff.untested.filter((u) => tested(u.base) && !failing(u.base)).map((u) => u.id);
    return { low: diff.newFail.length, high: diff.newFail.length + could.length, ids: diff.newFail, could };
  }
  const could = diff.untested.filter((u) => failing(u.base)).map((u) => u.id);
  return { low: diff.fixed.length, high: diff.fixed.length + could.length, ids: diff.fixed, could };
}
