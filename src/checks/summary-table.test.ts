import { describe, expect, it } from 'vitest';
import type { ConformanceReport } from './verdicts.ts';
import { formatSummary } from './summary-table.ts';

const report: ConformanceReport = {
  tool: { name: 'iari', version: '0.1.0' },
  run: { id: 'r1', startedAt: '2026-11-21T00:00:00.000Z', durationMs: 10, baseUrl: 'http://127.0.0.1:1/v1', target: 'external', seed: 1, grade: 'all', only: [], skip: [], include: [] },
  summary: { pass: 1, fail: 1, 'non-strict': 1, informational: 0, skipped: 1, total: 4 },
  results: [
    { id: 'AUTH-001', area: 'AUTH', grade: 'MUST', title: 'a', checks: ['AUTH-001: a'], durationMs: 1, verdict: 'pass' },
    { id: 'AUTH-006', area: 'AUTH', grade: 'MUST', title: 'b', checks: ['AUTH-006: b'], durationMs: 1, verdict: 'fail', failures: [{ message: 'echoed the token', requestId: 'req_1' }] },
    { id: 'CHAT-012', area: 'CHAT', grade: 'SHOULD', title: 'c', checks: ['CHAT-012: c'], durationMs: 1, verdict: 'non-strict', failures: [{ message: 'refusal missing' }] },
    { id: 'LIMIT-001', area: 'LIMIT', grade: 'SHOULD', title: 'd', checks: [], durationMs: 0, verdict: 'skipped', reason: 'run with --include limits' },
  ],
  coverage: { exercised: 3, registry: 4, unexercised: ['LIMIT-001'] },
  usage: { unavailable: 'n/a' },
};

describe('summary table', () => {
  it('summarises per area and lists what failed', () => {
    const text = formatSummary(report);
    expect(text).toMatch(/^area\s+pass\s+fail/);
    expect(text).toMatch(/FAIL AUTH-006 \(MUST\)/);
    expect(text).toMatch(/NS {3}CHAT-012 \(SHOULD\)/);
  });
});
