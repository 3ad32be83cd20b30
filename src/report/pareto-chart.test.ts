import { describe, expect, it } from 'vitest';
import { paretoChart, paretoFrontier } from './pareto-chart.ts';
import { paretoCharts } from './pareto-section.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';

describe('Pareto view of a sweep or capacity search', () => {
  it('LOAD-PARETO: the frontier keeps the points no other point beats on both axes, by rising per-user rate', () => {
    const pts = [
      { x: 60, y: 475 },
      { x: 58, y: 950 },
      { x: 50, y: 900 },
      { x: 52, y: 1900 },
      { x: 38, y: 3800 },
      { x: 20, y: 6080 },
      { x: 19, y: 5000 },
    ];
    expect(paretoFrontier(pts).map((p) => p.x)).toEqual([20, 38, 52, 58, 60]);
  });

  it('LOAD-PARETO: report.html marks frontier points, draws the SLO boundary at the best level, and plots TTFT p95 against aggregate tokens/s', () => {
    const r = sampleLoadResult({ seed: 3, stall: false, errors: false, sweep: true });
    const out = String(paretoCharts(r));
    expect(out).toContain('data-chart="pareto"');
    expect(out.match(/data-frontier="true"/g)?.length).toBe(5);
    expect(out).toContain('SLO boundary: rate 20');
    expect(out).toContain('TTFT p95 by aggregate output tokens/s');
    expect(out).toContain('SLO ttft.p95&lt;800ms');
    const dominated = String(paretoChart({ title: 't', points: [{ x: 10, y: 10, ok: true, level: 1, tip: '' }, { x: 5, y: 5, ok: false, level: 2, tip: '' }] }));
    expect(dominated.match(/data-frontier="true"/g)?.length).toBe(1);
    expect(paretoCharts({ ...r, sweep: null })).toBe('');
  });
});
