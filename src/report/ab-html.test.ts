import { describe, expect, it } from 'vitest';
import { abRows, abSection } from './ab-html.ts';
import { renderLoadReport } from './load-html.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import type { AbSection } from '../load/search/ab-blocks.ts';

describe('report.html for --ab (issue 43 item 7)', () => {
  const a = sampleLoadResult({ seed: 1, errors: false });
  const b = sampleLoadResult({ seed: 2, errors: true });
  const ab = { schema: 'iari.ab/1', baseUrlB: 'http://127.0.0.1:2/v1', blockS: 3, order: 'ABBA', pairs: [], b } as unknown as AbSection;

  it('LOAD-COMPARE: the report shows side B\'s figures beside side A\'s, both servers named; a run without --ab has no such section', () => {
    const page = renderLoadReport({ ...a, ab } as typeof a);
    expect(page).toContain('A/B: side B beside side A');
    expect(page).toContain('http://127.0.0.1:2/v1');
    expect(page).toContain('href="#ab"');
    const rows = abRows(a, b);
    expect(rows.find((r) => r[0] === 'requests failed')).toEqual(['requests failed', String(a.counts.failed), String(b.counts.failed)]);
    expect(rows.find((r) => r[0] === 'successful req/s')).toEqual(['successful req/s', String(a.throughput.rps), String(b.throughput.rps)]);
    expect(rows.some((r) => r[0] === 'TTFT p95')).toBe(true);
    for (const row of rows) expect(page).toContain(`<td>${row[0]}</td>`);
    expect(abSection(a)).toBe('');
    expect(renderLoadReport(a)).not.toContain('A/B: side B');
  });
});
