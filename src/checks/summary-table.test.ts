import { describe, expect, it } from 'vitest';
import { formatSummary } from './summary-table.ts';
import { tinyConformanceReport } from '../report/sample-reports.ts';

describe('summary table', () => {
  it('summarises per area and lists what failed', () => {
    const text = formatSummary(tinyConformanceReport('sk-unused-0000000000'));
    expect(text).toMatch(/^area\s+pass\s+fail/);
    expect(text).toMatch(/FAIL AUTH-006 \(MUST\)/);
    expect(text).toMatch(/NS {3}CHAT-012 \(SHOULD\)/);
  });
});
