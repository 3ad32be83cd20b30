import { describe, expect, it } from 'vitest';
import { formatSummary } from './summary-table.ts';
import { sampleConformanceReport, tinyConformanceReport } from '../report/sample-reports.ts';

describe('summary table', () => {
  it('summarises per area and lists what failed', () => {
    const text = formatSummary(tinyConformanceReport('sk-unused-0000000000'));
    expect(text).toMatch(/^area\s+pass\s+fail/);
    expect(text).toMatch(/FAIL AUTH-006 \(MUST\)/);
    expect(text).toMatch(/NS {3}CHAT-012 \(SHOULD\)/);
  });

  it('CHAT-034: ends with the capability table: status and what became of each capability\'s requirements, --expect marked', () => {
    const text = formatSummary(sampleConformanceReport());
    expect(text).toContain('capabilities beyond the seed (* = --expect):');
    expect(text).toMatch(/\n {2}json-object\* +ignored +FAIL \(--expect\): CHAT-034\n/);
    expect(text).toMatch(/\n {2}json-schema +refused +skipped: CHAT-035, CHAT-036, CHAT-037\n/);
    expect(text).toMatch(/\n {2}stop +not-probed +reported only\n/);
    expect(formatSummary(tinyConformanceReport('sk-unused-0000000000'))).not.toContain('capabilities beyond the seed');
  });
});
