import { describe, expect, it } from 'vitest';
import type { ConformanceReport } from './verdicts.ts';
import { conformanceJson, conformanceJunit, resultsNdjson } from './report-files.ts';
import { formatSummary } from './summary-table.ts';
import { createRedactor } from '../report/redact.ts';

const token = 'sk-report-files-secret-123456';
const report: ConformanceReport = {
  tool: { name: 'iari', version: '0.1.0' },
  run: { id: 'r1', startedAt: '2026-11-21T00:00:00.000Z', durationMs: 10, baseUrl: 'http://127.0.0.1:1/v1', target: 'external', seed: 1, grade: 'all', only: [], skip: [], include: [] },
  summary: { pass: 1, fail: 1, 'non-strict': 1, informational: 0, skipped: 1, total: 4 },
  results: [
    { id: 'AUTH-001', area: 'AUTH', grade: 'MUST', title: 'a', checks: ['AUTH-001: a'], durationMs: 1, verdict: 'pass' },
    { id: 'AUTH-006', area: 'AUTH', grade: 'MUST', title: 'b', checks: ['AUTH-006: b'], durationMs: 1, verdict: 'fail', failures: [{ message: `echoed ${token}`, requestId: 'req_1', curl: `curl -H "authorization: Bearer ${token}"` }] },
    { id: 'CHAT-012', area: 'CHAT', grade: 'SHOULD', title: 'c', checks: ['CHAT-012: c'], durationMs: 1, verdict: 'non-strict', failures: [{ message: 'refusal missing' }] },
    { id: 'LIMIT-001', area: 'LIMIT', grade: 'SHOULD', title: 'd', checks: [], durationMs: 0, verdict: 'skipped', reason: 'run with --include limits' },
  ],
  coverage: { exercised: 3, registry: 4, unexercised: ['LIMIT-001'] },
  usage: { unavailable: 'n/a' },
};
const redactor = createRedactor([token]);

describe('report files', () => {
  it('never write the token, whatever a failure carried', () => {
    for (const text of [conformanceJson(report, redactor), resultsNdjson(report, redactor), conformanceJunit(report, redactor)]) {
      expect(text.includes(token)).toBe(false);
      expect(text).toContain('[REDACTED]');
    }
  });

  it('write one NDJSON line per requirement, in report order', () => {
    const lines = resultsNdjson(report, redactor).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['AUTH-001', 'AUTH-006', 'CHAT-012', 'LIMIT-001']);
  });

  it('write one JUnit testcase per requirement: fail is a failure, skipped is skipped, non-strict passes with its finding', () => {
    const xml = conformanceJunit(report, redactor);
    expect(xml.match(/<testcase /g)?.length).toBe(4);
    expect(xml).toMatch(/<testsuites name="iari conformance" tests="4" failures="1" errors="0" skipped="1"/);
    expect(xml).toMatch(/name="CHAT-012: c"[\s\S]*?<system-out>refusal missing<\/system-out>/);
  });

  it('summarise per area and list what failed', () => {
    const text = formatSummary(report);
    expect(text).toMatch(/^area\s+pass\s+fail/);
    expect(text).toMatch(/FAIL AUTH-006 \(MUST\)/);
    expect(text).toMatch(/NS {3}CHAT-012 \(SHOULD\)/);
  });
});
