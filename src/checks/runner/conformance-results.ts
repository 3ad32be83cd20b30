import type { Grade, RequirementResult, UsageDay, Verdict } from '../kernel/verdicts.ts';
import type { ConformanceReport } from './conformance-report.ts';
import { verdicts } from '../kernel/verdicts.ts';
import type { CheckOutcome } from '../kernel/verdicts.ts';
import { mergeOutcomes } from '../kernel/judge.ts';
import type { Discoveries } from '../wire/usage-shape.ts';
import type { RequirementInfo } from '../registry/registry-view.ts';
import { needsToken, outOfScope, type Scope } from './scopes.ts';

export type { RequirementInfo } from '../registry/registry-view.ts';


/** One check's run: the test that ran it and the graded outcomes it produced. */
export interface CheckRun {
  title: string;
  ids: readonly string[];
  outcomes: readonly CheckOutcome[];
  durationMs: number;
  /** What the run had discovered about open shapes when this check ended. */
  discovered?: Discoveries;
}

/** Why a run sends no token: see Selection.noToken. */
export type NoToken = 'implicit' | 'accepted';

export interface Selection {
  grade: 'must' | 'should' | 'all';
  only: readonly string[];
  skip: readonly string[];
  /** What the run judges (scopes.ts); absent: the whole interface. */
  scope?: Scope;
  /**
   * The run sends no token (issue 43): what needs one is skipped, saying so (scopes.ts needsToken).
   * `implicit`: none was named and $IARI_TOKEN is unset, so the run is undecided (exit 4);
   * `accepted`: the user said the server has no auth (--no-token, the library's noToken).
   */
  noToken?: NoToken;
}

/** The area of a requirement ID: everything before the final `-NNN`. */
export function areaOfId(id: string): string {
  return id.replace(/-\d+$/, '');
}

const gradeRank: Record<Grade, number> = { MUST: 0, SHOULD: 1, INFO: 2 };
const selectionRank: Record<Selection['grade'], number> = { must: 0, should: 1, all: 2 };

/** Why a requirement is not selected by `--grade/--only/--skip`, or undefined when it is. */
export function deselectionReason(req: RequirementInfo, sel: Selection): string | undefined {
  if (sel.only.length > 0 && !sel.only.includes(req.id)) return 'not selected (--only)';
  if (sel.skip.includes(req.id)) return 'excluded by --skip';
  const scoped = sel.scope === undefined ? undefined : outOfScope(req.id, sel.scope);
  if (scoped !== undefined) return scoped;
  const tokenless = sel.noToken !== undefined ? needsToken(req.id) : undefined;
  if (tokenless !== undefined) return tokenless;
  if (gradeRank[req.grade] > selectionRank[sel.grade]) return `not selected (--grade ${sel.grade})`;
  return undefined;
}

export function compareIds(a: string, b: string): number {
  const [aa, an] = [areaOfId(a), Number(/(\d+)$/.exec(a)?.[1] ?? 0)];
  const [ba, bn] = [areaOfId(b), Number(/(\d+)$/.exec(b)?.[1] ?? 0)];
  if (aa !== ba) return aa < ba ? -1 : 1;
  return an - bn;
}

/**
 * Folds check runs into one result per registry requirement, sorted by ID. Several checks may
 * decide one requirement: the worst verdict wins. A requirement no check exercises is `skipped`
 * (and listed as unexercised in the coverage).
 */
export function buildResults(requirements: readonly RequirementInfo[], runs: readonly CheckRun[], sel: Selection): RequirementResult[] {
  const byId = new Map<string, { outcomes: CheckOutcome[]; checks: string[]; durationMs: number }>();
  for (const run of runs) {
    for (const o of run.outcomes) {
      const entry = byId.get(o.id) ?? { outcomes: [], checks: [], durationMs: 0 };
      entry.outcomes.push(o);
      if (!entry.checks.includes(run.title)) entry.checks.push(run.title);
      entry.durationMs += run.durationMs / Math.max(1, run.ids.length);
      byId.set(o.id, entry);
    }
  }
  const results: RequirementResult[] = [];
  for (const req of [...requirements].sort((a, b) => compareIds(a.id, b.id))) {
    const base = { id: req.id, area: areaOfId(req.id), grade: req.grade, title: req.title };
    const entry = byId.get(req.id);
    const checks = [...(entry?.checks ?? [])].sort();
    const durationMs = Math.round(entry?.durationMs ?? 0);
    const reason = deselectionReason(req, sel);
    if (reason !== undefined) {
      results.push({ ...base, checks, durationMs: 0, verdict: 'skipped', reason });
      continue;
    }
    if (entry === undefined) {
      results.push({ ...base, checks, durationMs, verdict: 'skipped', reason: 'no check exercises this requirement' });
      continue;
    }
    const merged = mergeOutcomes(req.id, entry.outcomes);
    results.push({ ...merged, ...base, checks, durationMs } as RequirementResult);
  }
  return results;
}

export function summarize(results: readonly RequirementResult[]): Record<Verdict, number> & { total: number } {
  const summary = Object.fromEntries(verdicts.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const r of results) summary[r.verdict] += 1;
  return { ...summary, total: results.length };
}

/** The one verdict on a run: `iari test`'s exit code, runConformance's `passed`, every report file's status. */
export function runPassed(report: OutcomeOf): boolean {
  return runOutcome(report) === 'passed';
}

/** The reports runOutcome reads: the run's facts are optional (a summary alone is judged by its counts). */
export type OutcomeOf = Pick<ConformanceReport, 'summary' | 'runFailures'> & { run?: Pick<ConformanceReport['run'], 'noToken'> };

/**
 * `failed` (exit 1) when a requirement failed or a failure outside them (--expect); else `undecided`
 * (exit 4) when a selected requirement was left undecided (the run's deadline, 429s after waiting:
 * issue 37, nothing passes for what it could not test), or when the run sent no token without being
 * told the server has no auth (issue 43: a CI secret that is missing, as on a forked pull request,
 * must not make a green build with authentication never checked); else `passed`.
 */
export function runOutcome(report: OutcomeOf): 'passed' | 'failed' | 'undecided' {
  if (report.summary.fail > 0 || (report.runFailures ?? []).length > 0) return 'failed';
  if (report.run?.noToken === 'implicit') return 'undecided';
  // A report written before the verdict existed has no count for it.
  return (report.summary.undecided ?? 0) > 0 ? 'undecided' : 'passed';
}

/**
 * The first line of a summary of a run that sent no token (issue 43), or undefined when it sent one.
 * Spec, Authentication 2: "Authenticated routes: /v1/me, /v1/me/usage, /v1/chat/completions".
 */
export function noTokenHeadline(report: { run?: Pick<ConformanceReport['run'], 'noToken'> }): string | undefined {
  switch (report.run?.noToken) {
    case 'implicit':
      return 'no token: AUTH, ME, USAGE, RCPT and the account\'s limits and bill not tested, so the run is undecided (exit 4); pass --no-token to accept this';
    case 'accepted':
      return 'no token: auth not tested (--no-token): AUTH, ME, USAGE, RCPT and the account\'s limits and bill skipped';
    default:
      return undefined;
  }
}

/** IDs named in the contract suites' titles, against the registry. */
export function coverageOf(requirements: readonly RequirementInfo[], exercisedIds: ReadonlySet<string>): ConformanceReport['coverage'] {
  const unexercised = requirements.map((r) => r.id).filter((id) => !exercisedIds.has(id)).sort(compareIds);
  return { exercised: requirements.length - unexercised.length, registry: requirements.length, unexercised };
}

export type UsageSection = { days: UsageDay[] } | { unavailable: string };
