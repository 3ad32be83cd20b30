import { describe, expect, it } from 'vitest';
import type { RequirementResult } from '../checks/kernel/verdicts.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { runOutcome, runPassed, summarize } from '../checks/runner/conformance-results.ts';
import { applyBaseline } from '../checks/runner/apply-baseline.ts';
import { parseBaseline } from '../checks/runner/baseline-file.ts';
import { compareConformance, conformanceCount } from '../compare/conformance-compare.ts';
import { baselineEntriesOf } from '../cli/test-baseline.ts';
import { conformanceJson, conformanceJunit, resultsNdjson } from './conformance-files.ts';
import { renderConformanceReport } from './conformance-html.ts';
import { createRedactor } from './redact.ts';
import { formatSummary } from './summary-table.ts';
import { tinyConformanceReport } from '../../test-support/sample-reports.ts';

const reason = "not decided: the run's deadline (--run-timeout 5 min) passed before this check started";
const redactor = createRedactor(['sk-unused-0000000000']);

/** tinyConformanceReport with its failure fixed, and two requirements the run's deadline left open. */
function undecidedReport(withFail = false): ConformanceReport {
  const base = tinyConformanceReport('sk-unused-0000000000');
  const kept = base.results.filter((r) => withFail || r.verdict !== 'fail');
  const open: RequirementResult[] = [
    { id: 'CHAT-001', area: 'CHAT', grade: 'MUST', title: 'g', checks: ['CHAT-001: g'], durationMs: 0, verdict: 'undecided', cause: 'deadline', reason },
    { id: 'CHAT-002', area: 'CHAT', grade: 'SHOULD', title: 'h', checks: ['CHAT-002: h'], durationMs: 0, verdict: 'undecided', cause: 'deadline', reason },
  ];
  const results = [...kept, ...open];
  return { ...base, results, summary: summarize(results) };
}

describe('issue 37: a deadline decides nothing, in every output', () => {
  it('the run is not a pass: exit 4 (undecided) with none failed, exit 1 when one failed too', () => {
    expect(runOutcome(undecidedReport())).toBe('undecided');
    expect(runPassed(undecidedReport())).toBe(false);
    expect(runOutcome(undecidedReport(true))).toBe('failed');
  });

  it('the terminal summary counts them in their own column and lists them apart, with no FAIL row for them', () => {
    const text = formatSummary(undecidedReport());
    expect(text).toMatch(/^area\s+pass\s+fail\s+non-strict\s+info\s+skipped\s+undecided$/m);
    expect(text).toMatch(/^total\s+1\s+0\s+1\s+0\s+1\s+2$/m);
    expect(text).toContain(`UNDECIDED (deadline) 2 requirement(s): ${reason}\n  CHAT-001 CHAT-002\n`);
    expect(text).not.toMatch(/^FAIL CHAT-00[12]/m);
    expect(text).toMatch(/^UNDECIDED: 2 requirement\(s\) not decided.*\(exit 4\)$/m);
    expect(formatSummary(tinyConformanceReport('sk-unused-0000000000'))).not.toContain('undecided');
  });

  it('conformance.json and results.ndjson carry the verdict with its cause and the count; passed is false', () => {
    const json = JSON.parse(conformanceJson(undecidedReport(), redactor)) as { passed: boolean; summary: Record<string, number>; results: Record<string, unknown>[] };
    expect(json.passed).toBe(false);
    expect(json.summary['undecided']).toBe(2);
    expect(json.summary['fail']).toBe(0);
    expect(json.results.find((r) => r['id'] === 'CHAT-001')).toMatchObject({ verdict: 'undecided', cause: 'deadline', reason });
    const lines = resultsNdjson(undecidedReport(), redactor).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l['verdict'] === 'undecided').map((l) => l['id'])).toEqual(['CHAT-001', 'CHAT-002']);
  });

  it('a conformance.json written before the verdict existed reads as 0 undecided', () => {
    const old = tinyConformanceReport('sk-unused-0000000000');
    const { undecided: _gone, ...summary } = old.summary;
    const json = JSON.parse(conformanceJson({ ...old, summary: summary as ConformanceReport['summary'] }, redactor)) as { summary: Record<string, number> };
    expect(json.summary['undecided']).toBe(0);
  });

  it('junit.xml makes each an error (could not complete), neither a failure nor passed nor skipped', () => {
    const xml = conformanceJunit(undecidedReport(), redactor);
    expect(xml).toMatch(/<testcase name="CHAT-001: g"[^>]*>[^]*?<\/properties>\s*<error message="[^"]*the run&apos;s deadline[^"]*" type="undecided: deadline">/);
    expect(xml).toMatch(/<testsuites[^>]* failures="0" errors="2"/);
  });

  it('report.html shows the verdict and its cause', () => {
    const page = renderConformanceReport(undecidedReport());
    expect(page).toContain('undecided (deadline): not decided: the run');
    expect(page).toContain('undecided: 2 of');
    expect(page).toContain('NOT PASSED: no requirement failed; 2 requirements undecided');
    expect(page).not.toContain('PASSED: no requirement failed</p>');
  });

  it('a known-failures baseline keeps an entry whose requirement was undecided (not fixed) and --write-baseline lists none', () => {
    const ids = new Set(['AUTH-001', 'AUTH-006', 'CHAT-012', 'LIMIT-001', 'CHAT-001', 'CHAT-002']);
    const baseline = parseBaseline('known:\n  - id: CHAT-001\n    reason: tracked\n', 'known.yaml', ids);
    const { outcome } = applyBaseline(undecidedReport(), baseline, '2026-11-29');
    expect(outcome.fixed).toEqual([]);
    expect(baselineEntriesOf(undecidedReport(), undefined).map((e) => e.id)).not.toContain('CHAT-001');
  });

  it('iari report compare counts undecided as untested: a failure before and undecided now is not fixed, only could be', () => {
    const before = tinyConformanceReport('sk-unused-0000000000');
    const failedBefore = { ...before, results: [...before.results, { id: 'CHAT-001', area: 'CHAT', grade: 'MUST' as const, title: 'g', checks: [], durationMs: 0, verdict: 'fail' as const, failures: [{ message: 'x' }] }] };
    const diff = compareConformance(failedBefore, undecidedReport(true), (a, b) => (a < b ? -1 : 1));
    expect(diff.fixed).toEqual([]);
    expect(conformanceCount(diff, 'conformance.fixed')).toMatchObject({ low: 0, high: 1, could: ['CHAT-001'] });
  });
});
