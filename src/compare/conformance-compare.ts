// The conformance half of `iari report compare`: requirement verdicts of two conformance.json files.
import type { Verdict } from '../checks/kernel/verdicts.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';

export interface ConformanceDiff {
  /** Failing now (verdict fail), not failing in the base run. */
  newFail: string[];
  /** Failing in the base run, not failing now. */
  fixed: string[];
  /** Every requirement whose verdict differs, with both verdicts ("absent" when a run lacks the ID). */
  changed: { id: string; base: Verdict | 'absent'; new: Verdict | 'absent' }[];
  summary: { base: ConformanceReport['summary']; new: ConformanceReport['summary'] };
}

export function compareConformance(base: ConformanceReport, next: ConformanceReport, order: (a: string, b: string) => number): ConformanceDiff {
  const a = new Map(base.results.map((r) => [r.id, r.verdict]));
  const b = new Map(next.results.map((r) => [r.id, r.verdict]));
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort(order);
  const diff: ConformanceDiff = { newFail: [], fixed: [], changed: [], summary: { base: base.summary, new: next.summary } };
  for (const id of ids) {
    const va = a.get(id) ?? 'absent';
    const vb = b.get(id) ?? 'absent';
    if (va === vb) continue;
    diff.changed.push({ id, base: va, new: vb });
    if (vb === 'fail') diff.newFail.push(id);
    else if (va === 'fail') diff.fixed.push(id);
  }
  return diff;
}
