import { describe, expect, it } from 'vitest';
import { applyBaseline, baselineNotes } from './apply-baseline.ts';
import { baselineYaml, parseBaseline } from './baseline-file.ts';
import { formatSummary } from '../../report/summary-table.ts';
import { isHarnessError } from '../../errors.ts';
import { tinyConformanceReport } from '../../../test-support/sample-reports.ts';
import { baselineEntriesOf } from '../../cli/test-baseline.ts';

// tinyConformanceReport: AUTH-001 pass, AUTH-006 MUST fail, CHAT-012 non-strict, LIMIT-001 skipped.
const ids = new Set(['AUTH-001', 'AUTH-006', 'CHAT-012', 'LIMIT-001', 'CHAT-001']);
const report = tinyConformanceReport('iari_sk_secret_value');

function parseError(text: string): string {
  try {
    parseBaseline(text, 'known.yaml', ids);
  } catch (error) {
    if (isHarnessError(error)) return `${error.exitCode} ${error.message}`;
    throw error;
  }
  return 'no error';
}

describe('known-failures baseline file', () => {
  it('reads id, reason, expires and server-version with each entry line', () => {
    const b = parseBaseline('# header\nknown:\n  - id: AUTH-006\n    reason: tracked in ISSUE-12\n    expires: 2027-01-31\n  - id: CHAT-012\n    reason: refusal\n    server-version: "1.2"\n', 'known.yaml', ids);
    expect(b.entries).toEqual([
      { id: 'AUTH-006', reason: 'tracked in ISSUE-12', expires: '2027-01-31', line: 3 },
      { id: 'CHAT-012', reason: 'refusal', serverVersion: '1.2', line: 6 },
    ]);
  });

  it('rejects a bad file with a configuration error (exit 2) naming the file and the line', () => {
    expect(parseError('known:\n  - id: AUTH-006\n')).toBe('2 iari test: known.yaml:2: entry has no "reason"');
    expect(parseError('known:\n  - id: AUTH-006\n    reason: x\n    expires: 31/01/2027\n')).toBe('2 iari test: known.yaml:4: expires must be a date YYYY-MM-DD, got "31/01/2027"');
    expect(parseError('known:\n  - id: AUTH-006\n    reason: x\n    expires: 2027-02-30\n')).toMatch(/known\.yaml:4: expires must be a date/);
    expect(parseError('known:\n  - id: NOPE-1\n    reason: x\n')).toBe('2 iari test: known.yaml:2: unknown requirement ID "NOPE-1" (iari requirements lists every ID)');
    expect(parseError('known:\n  - id: AUTH-006\n    reason: x\n    why: y\n')).toMatch(/^2 iari test: known\.yaml:4: unknown key "why"/);
    expect(parseError('known:\n  - id: AUTH-006\n    reason: x\n  - id: AUTH-006\n    reason: y\n')).toBe('2 iari test: known.yaml:4: AUTH-006 is listed twice (first on line 2)');
    expect(parseError('known: [\n')).toMatch(/^2 iari test: known\.yaml:\d+: not valid YAML/);
    expect(parseError('skip:\n  - AUTH-006\n')).toMatch(/^2 iari test: known\.yaml:1: unknown key "skip"/);
  });

  it('writes a file that reads back to the same entries', () => {
    const entries = [{ id: 'AUTH-006', reason: 'a: "quoted" #not comment', expires: '2027-01-01' }, { id: 'CHAT-012', reason: 'b', serverVersion: '0.6.3' }];
    const back = parseBaseline(baselineYaml(entries, 'header line'), 'w.yaml', ids).entries.map(({ line: _l, ...e }) => e);
    expect(back).toEqual(entries);
  });
});

describe('applying a baseline', () => {
  it('reports a listed failure as known, not a finding, while a failure not listed still fails the run', () => {
    const onlyNonStrict = parseBaseline('known:\n  - id: CHAT-012\n    reason: refusal tracked\n', 'k.yaml', ids);
    const a = applyBaseline(report, onlyNonStrict, '2026-11-25');
    expect(a.report.results.find((r) => r.id === 'CHAT-012')?.verdict).toBe('known');
    expect(a.report.summary).toMatchObject({ fail: 1, 'non-strict': 0, known: 1, total: 4 });
    expect(a.outcome.new).toEqual(['AUTH-006']);
    const both = parseBaseline('known:\n  - id: CHAT-012\n    reason: refusal tracked\n  - id: AUTH-006\n    reason: echo tracked\n    expires: 2026-11-25\n', 'k.yaml', ids);
    const b = applyBaseline(report, both, '2026-11-25');
    expect(b.report.summary.fail).toBe(0);
    expect(b.outcome.known).toEqual(['AUTH-006', 'CHAT-012']);
    const table = formatSummary(b.report);
    expect(table).toMatch(/KNOWN AUTH-006 \(MUST\) echo tracked \[until 2026-11-25\]: echoed/);
    expect(table.split('\n')[0]).toMatch(/known$/);
  });

  it('reports a listed ID that passes as fixed with a hint to remove the entry', () => {
    const b = parseBaseline('known:\n  - id: AUTH-001\n    reason: was broken\n  - id: LIMIT-001\n    reason: not judged\n', 'k.yaml', ids);
    const a = applyBaseline(report, b, '2026-11-25');
    expect(a.outcome.fixed).toEqual([{ id: 'AUTH-001', line: 2, hint: 'AUTH-001 now passes: remove it from k.yaml (line 2)' }]);
    expect(a.report.results.find((r) => r.id === 'AUTH-001')?.verdict).toBe('pass');
    expect(baselineNotes(a.outcome)).toContain('baseline: fixed: AUTH-001 now passes: remove it from k.yaml (line 2)');
  });

  it('fails an expired entry again, saying it expired, from the day after its expires date', () => {
    const b = parseBaseline('known:\n  - id: AUTH-006\n    reason: echo tracked\n    expires: 2026-11-24\n', 'k.yaml', ids);
    const a = applyBaseline(report, b, '2026-11-25');
    const r = a.report.results.find((x) => x.id === 'AUTH-006');
    expect(r?.verdict).toBe('fail');
    expect(r !== undefined && r.verdict === 'fail' ? r.failures[0]?.message : '').toBe('known-failure entry expired on 2026-11-24 (k.yaml line 2: echo tracked); it fails again');
    expect(a.report.summary.fail).toBe(1);
    expect(a.outcome.expired).toEqual([{ id: 'AUTH-006', line: 2, expires: '2026-11-24' }]);
    expect(applyBaseline(report, b, '2026-11-24').report.summary.fail).toBe(0);
  });

  it('applies an entry with server-version only to a run given that version', () => {
    const b = parseBaseline('known:\n  - id: AUTH-006\n    reason: fixed in 2.0\n    server-version: "1.9"\n', 'k.yaml', ids);
    expect(applyBaseline(report, b, '2026-11-25', '1.9').report.summary.fail).toBe(0);
    const other = applyBaseline(report, b, '2026-11-25', '2.0');
    expect(other.report.summary.fail).toBe(1);
    expect(other.outcome.otherVersion).toEqual([{ id: 'AUTH-006', line: 2, serverVersion: '1.9' }]);
    expect(applyBaseline(report, b, '2026-11-25').report.summary.fail).toBe(1);
  });

  it('--write-baseline lists every failing ID, keeping reasons and dates of entries it already had', () => {
    const b = parseBaseline('known:\n  - id: CHAT-012\n    reason: refusal tracked\n    expires: 2027-01-01\n', 'k.yaml', ids);
    const a = applyBaseline(report, b, '2026-11-25');
    expect(baselineEntriesOf(a.report, b)).toEqual([
      { id: 'AUTH-006', reason: 'fail: echoed iari_sk_secret_value' },
      { id: 'CHAT-012', reason: 'refusal tracked', expires: '2027-01-01' },
    ]);
  });
});
