// Applies a known-failures baseline to a finished conformance report (docs/conformance.md,
// "Known failures"): a listed failure becomes `known` (shown, never a finding); a failure not
// listed stays a failure; a listed ID that no longer fails is reported fixed, with a hint to drop
// the entry; an expired entry no longer covers its failure, which fails again saying so.
import type { Baseline, BaselineEntry } from './baseline-file.ts';
import { summarize } from './conformance-results.ts';
import type { BaselineOutcome, RequirementResult } from '../kernel/verdicts.ts';
import type { ConformanceReport } from './conformance-report.ts';

export type { BaselineOutcome } from '../kernel/verdicts.ts';


function failing(r: RequirementResult): r is Extract<RequirementResult, { verdict: 'fail' | 'non-strict' }> {
  return r.verdict === 'fail' || r.verdict === 'non-strict';
}

/** `today` is YYYY-MM-DD (UTC); an entry holds through its `expires` day. */
export function applyBaseline(report: ConformanceReport, baseline: Baseline, today: string, serverVersion?: string): { report: ConformanceReport; outcome: BaselineOutcome } {
  const byId = new Map<string, BaselineEntry>(baseline.entries.map((e) => [e.id, e]));
  const outcome: BaselineOutcome = {
    file: baseline.file,
    ...(serverVersion === undefined ? {} : { serverVersion }),
    known: [],
    fixed: [],
    expired: [],
    otherVersion: [],
    new: [],
  };
  const results = report.results.map((r): RequirementResult => {
    const entry = byId.get(r.id);
    if (entry === undefined) {
      if (r.verdict === 'fail') outcome.new.push(r.id);
      return r;
    }
    if (entry.serverVersion !== undefined && entry.serverVersion !== serverVersion) {
      outcome.otherVersion.push({ id: r.id, line: entry.line, serverVersion: entry.serverVersion });
      if (r.verdict === 'fail') outcome.new.push(r.id);
      return r;
    }
    if (!failing(r)) {
      // Skipped or undecided shows nothing about the listed failure: the entry stays.
      if (r.verdict !== 'skipped' && r.verdict !== 'undecided') outcome.fixed.push({ id: r.id, line: entry.line, hint: `${r.id} now ${r.verdict === 'pass' ? 'passes' : `is ${r.verdict}`}: remove it from ${baseline.file} (line ${entry.line})` });
      return r;
    }
    if (entry.expires !== undefined && entry.expires < today) {
      outcome.expired.push({ id: r.id, line: entry.line, expires: entry.expires });
      const note = { message: `known-failure entry expired on ${entry.expires} (${baseline.file} line ${entry.line}: ${entry.reason}); it fails again` };
      return { ...r, failures: [note, ...r.failures] };
    }
    outcome.known.push(r.id);
    const { verdict: _verdict, ...rest } = r;
    return {
      ...rest,
      verdict: 'known',
      known: { reason: entry.reason, ...(entry.expires === undefined ? {} : { expires: entry.expires }), ...(entry.serverVersion === undefined ? {} : { serverVersion: entry.serverVersion }) },
    };
  });
  return { report: { ...report, results, summary: summarize(results), baseline: outcome }, outcome };
}

/** Lines for stderr after the summary table: fixed entries, expired ones, new failures. */
export function baselineNotes(outcome: BaselineOutcome): string[] {
  const lines: string[] = [];
  if (outcome.known.length > 0) lines.push(`baseline: ${outcome.known.length} known failure(s) not counted: ${outcome.known.join(', ')}`);
  for (const f of outcome.fixed) lines.push(`baseline: fixed: ${f.hint}`);
  for (const e of outcome.expired) lines.push(`baseline: expired: ${e.id}'s entry (line ${e.line}) expired on ${e.expires}; it counts as a failure again`);
  for (const o of outcome.otherVersion) lines.push(`baseline: ${o.id}'s entry (line ${o.line}) is for server version ${o.serverVersion}, not applied`);
  if (outcome.new.length > 0) lines.push(`baseline: ${outcome.new.length} new failure(s) not in ${outcome.file}: ${outcome.new.join(', ')}`);
  return lines;
}
