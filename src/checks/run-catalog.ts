import type { CheckContext, CheckDef, CheckOutcome } from './check-types.ts';
import { runCheck } from './check-runner.ts';
import { mergeOutcomes } from './judge.ts';
import { gradeOf } from './registry-view.ts';
import type { Grade } from './verdicts.ts';

export interface CatalogRun {
  /** One merged outcome per requirement ID the checks decided. */
  outcomes: Map<string, CheckOutcome>;
  /** Per check: its outcomes, for reports and debugging. */
  byCheck: Map<string, CheckOutcome[]>;
}

/**
 * Runs checks in-process, one after another, in catalog order (no vitest): the programmatic
 * form of a conformance run, used by the fault-matrix meta-suite.
 */
export async function runChecksInProcess(ctx: CheckContext, checks: readonly CheckDef[], grade: (id: string) => Grade = gradeOf): Promise<CatalogRun> {
  const byCheck = new Map<string, CheckOutcome[]>();
  const perId = new Map<string, CheckOutcome[]>();
  for (const def of checks) {
    const outcomes = await runCheck(def, ctx, grade);
    byCheck.set(def.name, outcomes);
    for (const o of outcomes) perId.set(o.id, [...(perId.get(o.id) ?? []), o]);
  }
  const outcomes = new Map<string, CheckOutcome>();
  for (const [id, list] of perId) outcomes.set(id, mergeOutcomes(id, list));
  return { outcomes, byCheck };
}
