import type { CheckContext, CheckDef, CheckOutcome } from '../context/check-types.ts';
import type { CheckRun } from './conformance-results.ts';
import { runCheck } from './check-runner.ts';
import { catalog, testTitle } from './catalog.ts';
import { mergeOutcomes } from '../kernel/judge.ts';
import { gradeOf } from '../registry/registry-view.ts';
import type { Grade } from '../kernel/verdicts.ts';

export interface CatalogRun {
  /** One check run per check, in catalog order: its title, IDs, graded outcomes and duration. */
  runs: CheckRun[];
  /** One merged outcome per requirement ID the checks decided. */
  outcomes: Map<string, CheckOutcome>;
  /** Per check: its outcomes, for reports and debugging. */
  byCheck: Map<string, CheckOutcome[]>;
}

export interface CatalogRunOptions {
  /** Requirement IDs selected by --grade/--only/--skip; a check none of whose IDs is selected does not run. Absent: all. */
  selected?: ReadonlySet<string>;
  /** Called after each check, e.g. for a progress line. */
  onResult?: (run: CheckRun, done: number, total: number) => void;
}

/** The requirement IDs the catalog's checks decide: the registry's coverage comes from here, not from files. */
export function catalogIds(checks: readonly CheckDef[] = catalog): Set<string> {
  return new Set(checks.flatMap((c) => c.ids));
}

/**
 * Runs checks in this process, one after another, in catalog order (the bounds first, so a server
 * that hangs has them decided before the run's deadline). Every check is bounded by its own deadline
 * and the run's (check-runner.ts), so the loop ends; a check never throws out of `runCheck`.
 */
export async function runChecksInProcess(ctx: CheckContext, checks: readonly CheckDef[], grade: (id: string) => Grade = gradeOf, options: CatalogRunOptions = {}): Promise<CatalogRun> {
  const runs: CheckRun[] = [];
  const byCheck = new Map<string, CheckOutcome[]>();
  const perId = new Map<string, CheckOutcome[]>();
  const isSelected = (def: CheckDef): boolean => options.selected === undefined || def.ids.some((id) => options.selected?.has(id) === true);
  // Slow resources (a client's process) start now, beside the checks that come before theirs (issue 41).
  for (const def of checks) if (def.prepare !== undefined && isSelected(def) && !(def.needsLimits === true && !ctx.includeLimits)) def.prepare(ctx);
  for (const def of checks) {
    const started = performance.now();
    const selected = isSelected(def);
    const outcomes: CheckOutcome[] = selected ? await runCheck(def, ctx, grade) : def.ids.map((id) => ({ id, verdict: 'skipped', reason: 'not selected' }));
    const run: CheckRun = {
      title: testTitle(def),
      ids: def.ids,
      outcomes,
      durationMs: Math.round(performance.now() - started),
      ...(ctx.discovered.usage === undefined ? {} : { discovered: ctx.discovered }),
    };
    runs.push(run);
    byCheck.set(def.name, outcomes);
    for (const o of outcomes) perId.set(o.id, [...(perId.get(o.id) ?? []), o]);
    options.onResult?.(run, runs.length, checks.length);
  }
  const outcomes = new Map<string, CheckOutcome>();
  for (const [id, list] of perId) outcomes.set(id, mergeOutcomes(id, list));
  return { runs, outcomes, byCheck };
}
