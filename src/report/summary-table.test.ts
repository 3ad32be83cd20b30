import { describe, expect, it } from 'vitest';
import { formatSummary } from './summary-table.ts';
import { sampleConformanceReport, tinyConformanceReport } from '../../test-support/sample-reports.ts';

describe('summary table', () => {
  it('summarises per area and lists what failed', () => {
    const text = formatSummary(tinyConformanceReport('sk-unused-0000000000'));
    expect(text).toMatch(/^area\s+pass\s+fail/);
    expect(text).toMatch(/FAIL AUTH-006 \(MUST\)/);
    expect(text).toMatch(/NS {3}CHAT-012 \(SHOULD\)/);
  });

  it('AUTH-001: a run without a token says so on the summary\'s first line, --no-token or not', () => {
    const base = tinyConformanceReport('sk-unused-0000000000');
    expect(formatSummary(base).split('\n')[0]).toMatch(/^area/);
    const implicit = formatSummary({ ...base, run: { ...base.run, noToken: 'implicit' } }).split('\n')[0];
    expect(implicit).toMatch(/^no token: AUTH, ME, USAGE, RCPT.*; pass --no-token to accept this$/);
    expect(formatSummary({ ...base, run: { ...base.run, noToken: 'accepted' } }).split('\n')[0]).toMatch(/^no token: auth not tested \(--no-token\)/);
  });

  it('CHAT-034: ends with the capability table: status and what became of each capability\'s requirements, --expect marked', () => {
    const text = formatSummary(sampleConformanceReport());
    expect(text).toContain('capabilities beyond the seed (* = --expect):');
    expect(text).toMatch(/\n {2}json-object\* +ignored +FAIL \(--expect\): CHAT-034\n/);
    expect(text).toMatch(/\n {2}json-schema +refused +skipped: CHAT-035, CHAT-036, CHAT-037\n/);
    expect(text).toMatch(/\n {2}stop +not-probed +reported only\n/);
    expect(formatSummary(tinyConformanceReport('sk-unused-0000000000'))).not.toContain('capabilities beyond the seed');
  });

  it('HDR-012: puts one root cause first with the requirements it blocked under it, not as separate failures', () => {
    const base = tinyConformanceReport('sk-unused-0000000000');
    const cause = "not decided: the server's streams do not end (HDR-012, request id req_9)";
    const report = {
      ...base,
      results: [
        ...base.results,
        { id: 'CHAT-STREAM-001', area: 'CHAT-STREAM', grade: 'MUST' as const, title: 'e', checks: [], durationMs: 0, verdict: 'fail' as const, failures: [{ message: `POST /v1/chat/completions: ${cause}` }] },
        { id: 'HDR-002', area: 'HDR', grade: 'INFO' as const, title: 'f', checks: [], durationMs: 0, verdict: 'skipped' as const, reason: `blocked: POST /v1/chat/completions: ${cause}` },
      ],
    };
    const lines = formatSummary(report).split('\n');
    const at = lines.indexOf("ROOT CAUSE the server's streams do not end (HDR-012, request id req_9): 2 requirement(s) not decided");
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 3)).toEqual(['  FAIL    CHAT-STREAM-001 (MUST)', '  blocked HDR-002 (INFO)']);
    expect(lines.filter((l) => l.startsWith('FAIL CHAT-STREAM-001') || /FAIL HDR-002/.test(l))).toEqual([]);
    expect(at).toBeLessThan(lines.findIndex((l) => l.startsWith('FAIL AUTH-006')));
  });
});
